"""Driver for benchmarks/bench-agreement; see that script."""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import results_file


def main():
    binary, rounds, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ratios = []
    with tempfile.TemporaryDirectory() as data, results_file.recorded("bench-agreement", arguments=sys.argv[2:]):
        env = {**os.environ, "RUNANYWHERE_DATA": data}

        def run(arguments):
            return json.loads(subprocess.run([binary, *arguments], env=env, check=True, capture_output=True, text=True).stdout)

        print(f"{'round':<6} {'bench tok/s':>12} {'generate tok/s':>15} {'ratio':>7}")
        for number in range(1, rounds + 1):
            bench = run(["bench", "run", "--category", "llm", "--scenario", "Medium generation", "--repetitions", "3",
                         "--threads", threads, "--json"])["run"]["results"][0]["metrics"]["tokensPerSecond"]
            generate = run(["generate", "--json", "--temperature", "0", "--max-tokens", "256", "--threads", threads,
                            "Explain how photosynthesis works in 3 paragraphs."])["tokensPerSecond"]
            ratios.append(bench / generate)
            print(f"{number:<6} {bench:>12.1f} {generate:>15.1f} {ratios[-1]:>7.3f}", flush=True)
        median = statistics.median(ratios)
        print(f"median ratio {median:.3f}: {'within' if 0.8 <= median <= 1.2 else 'OUTSIDE'} the 20% of check 5.3.1")


if __name__ == "__main__":
    main()
