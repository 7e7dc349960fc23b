"""Driver for benchmarks/llm-overhead; see that script. Runs each side in a fresh process, one
at a time, alternating which goes first, and reports medians."""
import argparse
import json
import os
import statistics
import subprocess
import sys

import results_file

PROMPT = (
    "The history of computing is a story of people who built machines to think faster than they could. "
    "It begins with the abacus and the slide rule, moves through the mechanical calculators of Pascal and "
    "Leibniz, and reaches Babbage's engines and Ada Lovelace's notes on programming. In the twentieth century, "
    "relays gave way to vacuum tubes, tubes to transistors, and transistors to integrated circuits, and each "
    "step made computers smaller, cheaper and far more capable. Today a phone in a pocket can run a language "
    "model on its own processor. Here is the next chapter of that story:\n\n"
)

PYTHON_SIDE = r"""
import json, sys, time
import llama_cpp
from llama_cpp import Llama
args = json.loads(sys.argv[1])
llm = Llama(model_path=args["model"], n_ctx=args["ctx"], n_threads=args["threads"], n_threads_batch=args["threads"],
            n_batch=args["batch"], n_ubatch=args["batch"], flash_attn=False, verbose=False)
tokens = llm.tokenize(args["prompt"].encode(), add_bos=True, special=True)
start = time.perf_counter()
first = last = None
out = []
for token in llm.generate(tokens, temp=0.0, reset=True):
    now = time.perf_counter()
    if llama_cpp.llama_vocab_is_eog(llm._model.vocab, token):
        break
    first = first or now
    last = now
    out.append(token)
    if len(out) >= args["tokens"]:
        break
n = len(out)
print(json.dumps({
    "inputTokens": len(tokens), "tokens": n,
    "prompt": len(tokens) / (first - start),
    "decode": (n - 1) / (last - first) if n > 1 else 0.0,
    "text": llm.detokenize(out).decode("utf-8", "replace"),
}))
"""


def run_ours(binary, args):
    command = [binary, "generate", "--json", "--raw", "--model", args.model, "--temperature", "0",
               "--max-tokens", str(args.tokens), "--threads", str(args.threads), "--context-length", str(args.ctx),
               "--batch-size", str(args.batch), "--flash-attention", "disabled", PROMPT * args.prompt_repeat]
    result = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    return {
        "inputTokens": result["inputTokens"], "tokens": result["tokensUsed"],
        # Same definitions as the Python side: prompt = input tokens / time to first token,
        # decode = tokens after the first / time from the first to the last.
        "prompt": result["inputTokens"] / (result["timeToFirstTokenMs"] / 1000),
        "decode": result["decodeTokensPerSecond"],
        "text": result["text"],
    }


def run_python(model_path, args):
    payload = json.dumps({"model": model_path, "ctx": args.ctx, "threads": args.threads, "tokens": args.tokens, "batch": args.batch, "prompt": PROMPT * args.prompt_repeat})
    out = subprocess.run([sys.executable, "-c", PYTHON_SIDE, payload], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description="RunAnywhere vs llama-cpp-python on the same libllama")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=min(4, os.cpu_count() or 1))
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--ctx", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=64, help="prompt tokens per decode step, both sides (RunAnywhere's default is 64)")
    parser.add_argument("--prompt-repeat", type=int, default=1, help="repeat the ~117-token prompt this many times")
    args = parser.parse_args()

    info = json.loads(subprocess.run([args.binary, "models", "info", args.model, "--json"], check=True, capture_output=True, text=True).stdout)
    model_path = info["model"]["localPath"]
    model_path = model_path[len("file://"):] if model_path.startswith("file://") else model_path
    init = json.loads(subprocess.run([args.binary, "info", "--json"], check=True, capture_output=True, text=True).stdout)["initializationMs"]

    print(f"llm-overhead: {info['model']['name']}, {args.threads} threads, {args.tokens} new tokens, greedy, "
          f"flash attention off, batch {args.batch}, prompt x{args.prompt_repeat}, {args.rounds} rounds, alternating order")
    print(f"{'round':>5}  {'ours prompt':>11}  {'ours decode':>11}  {'py prompt':>9}  {'py decode':>9}")
    ours, theirs = [], []
    for round_index in range(args.rounds):
        pair = [("ours", lambda: run_ours(args.binary, args)), ("python", lambda: run_python(model_path, args))]
        if round_index % 2:
            pair.reverse()
        results = {name: run() for name, run in pair}
        ours.append(results["ours"])
        theirs.append(results["python"])
        print(f"{round_index + 1:>5}  {results['ours']['prompt']:>11.1f}  {results['ours']['decode']:>11.1f}  "
              f"{results['python']['prompt']:>9.1f}  {results['python']['decode']:>9.1f}")

    same = all(o["text"] == t["text"] and o["tokens"] == t["tokens"] for o, t in zip(ours, theirs))
    print(f"prompt: {ours[0]['inputTokens']} tokens (python: {theirs[0]['inputTokens']}); generated {ours[0]['tokens']} tokens "
          f"(python: {theirs[0]['tokens']}); identical text: {'yes' if same else 'NO'}")
    failed = False
    for metric in ("prompt", "decode"):
        mine = statistics.median(r[metric] for r in ours)
        python = statistics.median(r[metric] for r in theirs)
        ratio = mine / python if python else float("nan")
        verdict = "meets" if ratio >= 0.98 else "BELOW"
        failed |= ratio < 0.98
        print(f"median {metric} tok/s: ours {mine:.1f}, llama-cpp-python {python:.1f}, ratio {ratio:.3f} ({verdict} target >= 0.98)")
    print(f"SDK initialize: {init:.2f} ms ({'meets' if init < 100 else 'BELOW'} target < 100 ms)")
    return 1 if failed or not same else 0


if __name__ == "__main__":
    with results_file.recorded("llm-overhead"):
        code = main()
    sys.exit(code)
