"""A Model Context Protocol server made with the official Python SDK (mcp), for the MCP tests.

Its tools: `capital` (a country's capital city, or a tool error for a country it does not know),
`math.add` (a name with a dot, which a model cannot call by: offered as `math_add`), `crash`
(ends the server in the middle of the call) and `wait` (answers after the seconds asked). Each
call is appended to the file $MCP_CALL_LOG as a JSON line, so that a test sees that the server
ran it. With the argument `exit-at-start` the server writes a reason to standard error and exits
with status 3 before speaking MCP; with `silent` it never answers.
"""
import json
import os
import sys
import time

# The modes that never speak MCP decide before the SDK's (slow) import.
MODE = sys.argv[1] if len(sys.argv) > 1 else ""
if MODE == "exit-at-start":
    print("no configuration given; giving up", file=sys.stderr, flush=True)
    sys.exit(3)
if MODE == "silent":
    time.sleep(3600)

from mcp.server.mcpserver import MCPServer  # noqa: E402

server = MCPServer("runanywhere-test-tools")
CAPITALS = {"france": "Paris", "japan": "Tokyo", "kenya": "Nairobi", "peru": "Lima"}


def record(tool, arguments):
    log = os.environ.get("MCP_CALL_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as file:
            file.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool()
def capital(country: str) -> str:
    """The capital city of a country."""
    record("capital", {"country": country})
    known = CAPITALS.get(country.strip().lower())
    if known is None:
        raise ValueError(f"No capital is known for {country!r}")
    return f"The capital of {country} is {known}."


@server.tool(name="math.add")
def add(a: int, b: int) -> int:
    """Adds two whole numbers."""
    record("math.add", {"a": a, "b": b})
    return a + b


@server.tool()
def crash() -> str:
    """Ends the server while it is being called."""
    record("crash", {})
    print("crashing as asked", file=sys.stderr, flush=True)
    os._exit(5)


@server.tool()
def wait(seconds: float) -> str:
    """Answers after the seconds asked."""
    record("wait", {"seconds": seconds})
    time.sleep(seconds)
    return "waited"


if __name__ == "__main__":
    server.run("stdio")
