"""Driver for benchmarks/serve-burst; see that script."""
import argparse
import json
import statistics
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import results_file
from gpu_bench import STORY, complete
from serve_process import start_server

MODEL = "smollm2-135m-instruct-q4_1"


def stream(base, prompt, tokens):
    """The arrival times of a streamed completion's tokens."""
    body = {"model": MODEL, "prompt": prompt, "max_tokens": tokens, "temperature": 0.8, "stream": True}
    request = urllib.request.Request(base + "/v1/completions", json.dumps(body).encode(), {"content-type": "application/json"})
    times = []
    with urllib.request.urlopen(request, timeout=900) as response:
        for line in response:
            if line.startswith(b"data: {"):
                times.append(time.perf_counter())
    return times


def round_(args):
    """Gaps between tokens of the running streams before the burst and while it is read."""
    flags = ["--threads", str(args.threads), "--context-length", "512", "--parallel", str(args.streams + args.burst), "--queue", "0"]
    process, base = start_server(args.binary, flags)
    try:
        complete(base, MODEL, "Hello", 4)
        with ThreadPoolExecutor(args.streams + args.burst) as pool:
            running = [pool.submit(stream, base, f"{i + 1}. Count slowly:", 10_000) for i in range(args.streams)]
            time.sleep(args.before)
            burst_started = time.perf_counter()
            burst = [pool.submit(complete, base, MODEL, f"{i + 1}. {STORY}", 8, 0.8) for i in range(args.burst)]
            for request in burst:
                request.result()
            burst_ended = time.perf_counter()
    finally:
        process.terminate()  # ends the running streams
        process.wait(timeout=60)
    before, during = [], []
    for times in (request.result() for request in running):
        for a, b in zip(times, times[1:]):
            if b <= burst_started:
                before.append(b - a)
            elif a < burst_ended:
                during.append(b - a)
    return statistics.median(before), sorted(during)


def main():
    parser = argparse.ArgumentParser(description="Running streams' gaps between tokens while a burst of requests arrives")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--streams", type=int, default=8)
    parser.add_argument("--burst", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", type=float, default=3, help="seconds the streams run before the burst")
    args = parser.parse_args()
    print(f"{args.streams} streams generating, then {args.burst} requests at once; {args.threads} threads")
    print(f"{'round':<6} {'gap before':>11} {'p99 during':>11} {'longest':>9} {'longest/before':>15}  target")
    for number in range(1, args.rounds + 1):
        usual, during = round_(args)
        longest, p99 = during[-1], during[len(during) * 99 // 100]
        ratio = longest / usual
        print(f"{number:<6} {usual * 1000:>9.0f}ms {p99 * 1000:>9.0f}ms {longest * 1000:>7.0f}ms {ratio:>14.1f}x  < 10 {'ok' if ratio < 10 else 'ABOVE'}",
              flush=True)


if __name__ == "__main__":
    with results_file.recorded("serve-burst"):
        main()
