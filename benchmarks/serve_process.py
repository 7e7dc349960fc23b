"""Starting `runanywhere serve` for the benchmark scripts (and a free port for other servers), and
the CPU time a server's processes use."""
import os
import socket
import subprocess
import threading


def free_port():
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(binary, arguments=(), env=None):
    """Starts `binary serve --port 0 ARGUMENTS…` and returns the process and its base URL
    (`http://127.0.0.1:PORT`) once it listens; its log is drained in the background."""
    process = subprocess.Popen([binary, "serve", "--port", "0", *arguments], stderr=subprocess.PIPE, text=True, env=env)
    for line in process.stderr:
        if "http://127.0.0.1:" in line:
            port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
            threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
            return process, f"http://127.0.0.1:{port}"
    raise SystemExit("runanywhere serve did not start")


def cpu_seconds(pids):
    """The CPU time (user and system) the processes `pids` have used so far, their children apart."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")
