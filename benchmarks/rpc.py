"""Driver for benchmarks/rpc; see that script."""
import argparse
import json
import os
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request

import results_file
from serve_process import start_server

PROMPTS = [
    "Write a short story about a lighthouse keeper who finds a message in a bottle.",
    "Explain how a bicycle's gears work, step by step.",
]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_worker(binary, threads, env):
    """`runanywhere rpc-worker` on a free loopback port, once it accepts connections."""
    port = free_port()
    process = subprocess.Popen([binary, "rpc-worker", "--port", str(port), "--threads", str(threads)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("rpc: runanywhere rpc-worker did not start listening")


def chat(base, model, prompt, tokens):
    """A greedy chat completion: its text, decode tokens/s (the server's timings) and tokens/s end to end."""
    body = {"model": model, "messages": [{"role": "user", "content": prompt}], "max_tokens": tokens, "temperature": 0}
    request = urllib.request.Request(base + "/v1/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        answer = json.loads(response.read())
    elapsed = time.perf_counter() - started
    return answer["choices"][0]["message"]["content"], answer["timings"]["predicted_per_second"], answer["usage"]["completion_tokens"] / elapsed


def measure(args, placement, worker, env):
    """One server for `placement`: its answers and median decode and end-to-end tokens/s over the prompts."""
    extra = {"local": [], "split": ["--rpc", worker, "--gpu-layers", str(args.split_layers)], "worker": ["--rpc", worker]}[placement]
    process, base = start_server(args.binary, ["--threads", str(args.threads), "--parallel", "1", "--keep-alive=-1", *extra], env)
    try:
        chat(base, args.model, PROMPTS[0], 8)  # loads the model
        answers, decode, whole = [], [], []
        for text in PROMPTS:
            answer, speed, overall = chat(base, args.model, text, args.tokens)
            answers.append(answer)
            decode.append(speed)
            whole.append(overall)
        return answers, statistics.median(decode), statistics.median(whole)
    finally:
        process.terminate()
        process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    parser.add_argument("--split-layers", type=int, default=15, help="layers on the worker when split (SmolLM2-135M has 30)")
    args = parser.parse_args()
    env = dict(os.environ, RUNANYWHERE_DATA=tempfile.mkdtemp())
    worker, endpoint = start_worker(args.binary, args.threads, env)
    placements = ["local", "split", "worker"]
    speeds = {p: {"decode": [], "whole": []} for p in placements}
    answers = {}
    same = {p: True for p in placements}
    try:
        with results_file.recorded("rpc"):
            print(f"{args.model}, {args.threads} threads in the server and in the worker, greedy, {args.tokens} tokens at most, "
                  f"{len(PROMPTS)} prompts one at a time, median of {args.rounds} rounds; runanywhere serve alone (local), with "
                  f"{args.split_layers} layers on a runanywhere rpc-worker on loopback (split), and with all of them there (worker)\n")
            for number in range(args.rounds):
                order = placements if number % 2 == 0 else list(reversed(placements))
                for placement in order:
                    got, decode, whole = measure(args, placement, endpoint, env)
                    speeds[placement]["decode"].append(decode)
                    speeds[placement]["whole"].append(whole)
                    answers.setdefault(placement, got)
                    same[placement] = same[placement] and got == answers.get("local", got)
            local = {kind: statistics.median(speeds["local"][kind]) for kind in ("decode", "whole")}
            print("| placement | decode tok/s | × local | end to end tok/s | × local | local's answers |\n|---|---|---|---|---|---|")
            for placement in placements:
                decode = statistics.median(speeds[placement]["decode"])
                whole = statistics.median(speeds[placement]["whole"])
                print(f"| {placement} | {decode:.1f} | {decode / local['decode']:.3f} | {whole:.1f} | {whole / local['whole']:.3f} | "
                      f"{'yes' if answers[placement] == answers['local'] and same[placement] else 'NO'} |")
            split = statistics.median(speeds["split"]["decode"]) / local["decode"]
            print(f"\ntarget: split decode >= 0.8x local: {split:.3f}x, {'met' if split >= 0.8 else 'NOT met'}")
    finally:
        worker.terminate()
        worker.wait()


if __name__ == "__main__":
    main()
