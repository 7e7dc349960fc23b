"""Driver for benchmarks/scoring; see that script."""
import argparse
import json
import os
import statistics
import subprocess
import sys

import results_file
from llama_tools import ROOT, model_file


def ours(binary, args, text, scored):
    """One fresh `generate` process reading `text` (scored: with its prompt log-probabilities)."""
    command = [binary, "generate", "--json", "--raw", "--model", args.model, "--temperature", "0", "--max-tokens", "1",
               "--threads", str(args.threads), "-"]
    if scored:
        command[2:2] = ["--prompt-logprobs", "0"]
    result = json.loads(subprocess.run(command, input=text, check=True, capture_output=True, text=True).stdout)
    return result["promptTokensPerSecond"], result.get("promptLogprobs")


def theirs(path, args, text, scored, batch=512):
    """llama-cpp-python in a fresh process, reading in batches of `batch` tokens: eval's tokens/sec (scored: with every
    position's logits and their log-softmax) and the scored tokens' log-probabilities."""
    program = f"""
import json, sys, time
from llama_cpp import Llama
llm = Llama(model_path={path!r}, n_ctx=2048, n_batch={batch}, n_ubatch={batch}, n_threads={args.threads}, logits_all={scored}, flash_attn=True,
            verbose=False)
tokens = llm.tokenize(sys.stdin.read().encode(), add_bos=True, special=True)
start = time.perf_counter()
llm.eval(tokens)
values = []
if {scored}:
    rows = Llama.logits_to_logprobs(llm.scores[:len(tokens)])
    values = [[int(token), float(rows[i - 1][token])] for i, token in enumerate(tokens) if i > 0]
print(json.dumps({{"speed": len(tokens) / (time.perf_counter() - start), "values": values}}))
"""
    result = json.loads(subprocess.run([sys.executable, "-c", program], input=text, check=True, capture_output=True,
                                       text=True).stdout)
    return result["speed"], result["values"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--characters", type=int, default=2400, help="the text's length: the start of docs/architecture.md")
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    args = parser.parse_args()
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as file:
        text = file.read()[:args.characters]
    path = model_file(args.binary, args.model, os.environ, "scoring")
    sides = {"ours": lambda scored: ours(args.binary, args, text, scored), "theirs": lambda scored: theirs(path, args, text, scored)}
    speeds = {(side, scored): [] for side in sides for scored in (False, True)}
    values = {}
    for round_ in range(args.rounds):
        for side in sides if round_ % 2 == 0 else reversed(list(sides)):
            for scored in (False, True):
                speed, scores = sides[side](scored)
                speeds[(side, scored)].append(speed)
                if scored:
                    values[side] = scores
    ours_values = [(entry["id"], entry["logprob"]) for entry in values["ours"]]

    def gap(scores):
        theirs_values = [tuple(entry) for entry in scores]
        if [token for token, _ in ours_values] != [token for token, _ in theirs_values]:
            raise SystemExit(f"the two sides read different tokens: {len(ours_values)} / {len(theirs_values)} scored")
        return max(abs(a - b) for (_, a), (_, b) in zip(ours_values, theirs_values))
    # The numbers depend on the batch shape (llama.cpp's kernels round differently): read as ours are, they are the same.
    alike = gap(theirs(path, args, text, True, batch=64)[1])
    median = {key: statistics.median(samples) for key, samples in speeds.items()}
    print(f"prompt tok/s, median of {args.rounds} fresh processes each ({len(ours_values) + 1} tokens, {args.threads} threads, {args.model})")
    print(f"                       {'runanywhere':>12} {'llama-cpp-python':>17}")
    print(f"  reading only         {median[('ours', False)]:12.1f} {median[('theirs', False)]:17.1f}")
    print(f"  scoring              {median[('ours', True)]:12.1f} {median[('theirs', True)]:17.1f}")
    print(f"  scoring / reading    {median[('ours', True)] / median[('ours', False)]:12.3f} "
          f"{median[('theirs', True)] / median[('theirs', False)]:17.3f}")
    print(f"  scoring, ours / llama-cpp-python: {median[('ours', True)] / median[('theirs', True)]:.3f}   (target >= 1.0)")
    print(f"  largest difference between the two sides' log-probabilities over {len(ours_values)} tokens: {gap(values['theirs']):.4f}")
    print(f"    with llama-cpp-python reading in batches of 64 tokens, as the scoring side here does: {alike:.4f}")


if __name__ == "__main__":
    with results_file.recorded("scoring"):
        main()
