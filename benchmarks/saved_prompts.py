"""Driver for benchmarks/saved-prompts; see that script."""
import argparse
import json
import os
import shutil
import statistics
import tempfile
import urllib.request

import results_file
from serve_process import start_server


def complete(base, model, prompt, tokens):
    body = {"model": model, "prompt": prompt, "max_tokens": tokens, "temperature": 0}
    request = urllib.request.Request(base + "/v1/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.loads(response.read())


def ask(args, data, question):
    """Starts serve on `data`, loads the model with a short request, asks `question` after the
    prefix; its time to first token and cached tokens. The server is stopped after."""
    env = dict(os.environ, RUNANYWHERE_DATA=data)
    process, base = start_server(args.binary, ["--threads", str(args.threads), "--context-length", "4096", "--save-prompts"], env)
    try:
        complete(base, args.model, "Hello", 1)
        answer = complete(base, args.model, args.prefix + f"\nQuestion: {question}\nAnswer:", 4)
        return answer["timings"]["time_to_first_token_ms"], answer["usage"]
    finally:
        process.terminate()
        process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--facts", type=int, default=95, help="sentences of the prefix (95: about 2,000 tokens)")
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    parser.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args()
    args.prefix = " ".join(f"Fact {i}: the river town kept its old stone bridge, its market and its bell tower." for i in range(args.facts))
    cold, restored, prompt_tokens, cached = [], [], 0, 0
    for _ in range(args.rounds):
        data = tempfile.mkdtemp(prefix="saved-prompts-")
        try:
            ttft, usage = ask(args, data, "what did the town keep?")
            cold.append(ttft)
            ttft, usage = ask(args, data, "what is fact 7 about?")
            restored.append(ttft)
            prompt_tokens, cached = usage["prompt_tokens"], usage["prompt_tokens_details"]["cached_tokens"]
        finally:
            shutil.rmtree(data, ignore_errors=True)
    a, b = statistics.median(cold), statistics.median(restored)
    report = "\n".join([
        f"runanywhere serve --save-prompts, {args.threads} threads, {args.model}, a prompt of {prompt_tokens} tokens "
        f"({cached} of them restored after the restart), median of {args.rounds} rounds", "",
        "| first token | ms |", "|---|---|",
        f"| prefix read cold | {a:.0f} |", f"| prefix restored after a restart | {b:.0f} |",
        f"| ratio | {b / a:.3f} (target <= 0.2) |"])
    print(report)
    results_file.write(args.results, "saved-prompts", f"# saved-prompts\n\n{results_file.machine_and_command('saved-prompts')}\n{report}\n")


if __name__ == "__main__":
    main()
