"""Driver for benchmarks/chat-turn; see that script. Each round runs one scripted chat per
binary in a fresh process and data folder, alternating which binary goes first, and reads each
answer's analytics back from the saved conversation."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

import results_file

TURNS = [
    "Hi! I am planning a small vegetable garden behind my house. The soil is a bit sandy and the "
    "garden gets sun in the morning and shade after two in the afternoon. What should I think about first?",
    "Which vegetables would grow well there?",
    "How often should I water them in summer?",
    "What can I do about snails eating the lettuce?",
    "Thanks. Can you sum up the plan in three short points?",
    "One more question: when should I plant the tomatoes?",
]


def chat(binary, threads, tokens, temperature, data):
    env = dict(os.environ, RUNANYWHERE_DATA=data)
    args = [binary, "chat", "--temperature", str(temperature), "--max-tokens", str(tokens), "--threads", str(threads)]
    subprocess.run(args, input="\n".join(TURNS) + "\n", env=env, check=True, capture_output=True, text=True)
    listed = json.loads(subprocess.run([binary, "conversations", "list", "--json"], env=env, check=True,
                                       capture_output=True, text=True).stdout)
    exported = json.loads(subprocess.run([binary, "conversations", "export", listed[0]["id"], "--format", "json"],
                                         env=env, check=True, capture_output=True, text=True).stdout)
    return [m["analytics"] for m in exported["messages"] if m.get("analytics")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--baseline", help="a second runanywhere binary to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=48)
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="0 (greedy) reuses only whole prompt chunks; above 0, unseeded, reuses the whole common prefix")
    args = parser.parse_args()
    sides = {"binary": args.binary}
    if args.baseline:
        sides["baseline"] = args.baseline
    ttft = {name: [[] for _ in TURNS] for name in sides}
    tokens = {name: [0] * len(TURNS) for name in sides}
    for round_ in range(args.rounds):
        order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
        for name in order:
            with tempfile.TemporaryDirectory() as data:
                for turn, analytics in enumerate(chat(sides[name], args.threads, args.tokens, args.temperature, data)):
                    ttft[name][turn].append(analytics["timeToFirstToken"] * 1000)
                    tokens[name][turn] = analytics["inputTokens"]
    print(f"time to first token per chat turn, ms (median of {args.rounds} rounds, {args.threads} threads, "
          f"temperature {args.temperature})")
    header = "turn  prompt tokens  " + "  ".join(f"{name:>9}" for name in sides)
    if args.baseline:
        header += "   ratio"
    print(header)
    for turn in range(len(TURNS)):
        medians = [statistics.median(ttft[name][turn]) for name in sides]
        row = f"{turn + 1:>4}  {tokens['binary'][turn]:>13}  " + "  ".join(f"{m:>9.1f}" for m in medians)
        if args.baseline:
            row += f"   {medians[0] / medians[1]:.2f}"
        print(row)
    for name in sides:
        later = [statistics.median(ttft[name][turn]) for turn in range(1, len(TURNS))]
        print(f"{name}: mean of turns 2-{len(TURNS)}: {statistics.mean(later):.1f} ms")


if __name__ == "__main__":
    with results_file.recorded("chat-turn"):
        main()
