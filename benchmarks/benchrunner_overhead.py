"""Driver for benchmarks/benchrunner-overhead; see that script."""
import os
import subprocess
import sys

import results_file


def main():
    binary, rounds, seconds, threads = sys.argv[1:5]
    backend = "LiteRT" if os.environ.get("BENCH_USE_TFLITE") == "1" else "ONNX Runtime"
    with results_file.recorded("benchrunner-overhead", arguments=sys.argv[2:]):
        print(f"backend: {backend}")
        process = subprocess.run(
            [binary, "benchrunner", "--overhead-rounds", rounds, "--measure-seconds", seconds, "--threads", threads],
            capture_output=True, text=True)
        print(process.stdout, end="")
        if process.returncode != 0:
            sys.stderr.write(process.stderr)
            raise SystemExit(f"benchrunner-overhead: runanywhere benchrunner exited with {process.returncode}")


if __name__ == "__main__":
    main()
