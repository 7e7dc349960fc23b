"""Driver for benchmarks/grammar-cost; see that script."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

import results_file

PROMPT = "Count upwards from 1, one number after another, separated by commas: 1, 2, 3,"
SCHEMA = {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 500}


def run(binary, args, schema_file):
    command = [binary, "generate", "--json", "--raw", "--model", args.model, "--temperature", "0", "--max-tokens", str(args.tokens),
               "--threads", str(args.threads), PROMPT]
    if schema_file:
        command[2:2] = ["--json-schema", schema_file]
    result = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    return result["decodeTokensPerSecond"], result["tokensUsed"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    args = parser.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(SCHEMA, file)
    try:
        free, constrained = [], []
        for round_ in range(args.rounds):
            sides = [(free, None), (constrained, file.name)]
            for samples, schema in sides if round_ % 2 == 0 else reversed(sides):
                speed, tokens = run(args.binary, args, schema)
                if tokens < args.tokens:
                    raise SystemExit(f"a run stopped after {tokens} of {args.tokens} tokens; the comparison needs equal counts")
                samples.append(speed)
    finally:
        os.unlink(file.name)
    a, b = statistics.median(free), statistics.median(constrained)
    print(f"decode tok/s, median of {args.rounds} ({args.tokens} tokens, {args.threads} threads, {args.model})")
    print(f"  unconstrained      {a:8.1f}")
    print(f"  JSON Schema        {b:8.1f}")
    print(f"  ratio              {b / a:8.3f}   (target >= 0.85)")


if __name__ == "__main__":
    with results_file.recorded("grammar-cost"):
        main()
