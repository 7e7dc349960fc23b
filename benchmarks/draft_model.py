"""Driver for benchmarks/draft-model; see that script."""
import argparse
import os
import statistics
import tempfile

import llama_tools
import results_file
from serve_process import start_server
from speculation import chat  # a greedy chat completion with speculative.n_max: the same request

TASKS = {
    "code": "Write a Python function that returns the n-th Fibonacci number, with a docstring.",
    "prose": "Describe a walk along a beach at sunrise in a few sentences.",
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    parser.add_argument("--draft", help="the draft model's id (default: the model itself)")
    args = parser.parse_args()
    draft = args.draft or args.model
    home = os.environ.get("RUNANYWHERE_HOME") or os.path.expanduser("~/.cache/runanywhere")
    env = dict(os.environ, RUNANYWHERE_DATA=tempfile.mkdtemp())
    library, _ = llama_tools.engine_library(args.binary, env, "draft-model")
    program = llama_tools.build(library, home, ["llama-server"], args.threads, "draft-model")["llama-server"]
    model_path = llama_tools.model_file(args.binary, args.model, env, "draft-model")
    draft_path = llama_tools.model_file(args.binary, draft, env, "draft-model")
    servers = {}
    try:
        ours = start_server(args.binary, ["--threads", str(args.threads), "--parallel", "1", "--context-length", "1024",
                                          "--keep-alive=-1", "--draft-model", f"{args.model}={draft}"], env)
        servers["runanywhere"] = ours
        # llama-server drafts whatever a request's speculative.n_max says once it has a draft: one without, one with.
        plain = llama_tools.start_llama_server(program, model_path, args.model, args.threads, 1, 1024, "draft-model")
        servers["llama-server"] = plain
        drafting = llama_tools.start_llama_server(
            program, model_path, args.model, args.threads, 1, 1024, "draft-model",
            extra=["-md", draft_path, "--spec-type", "draft-simple", "--spec-draft-n-max", "8", "--spec-draft-n-min", "0",
                   "--spec-draft-p-min", "0.75", "-td", str(args.threads)])
        servers["llama-server -md"] = drafting
        sides = {"runanywhere": (ours[1], ours[1]), "llama-server": (plain[1], drafting[1])}
        print(f"{args.model} drafted for by {draft}{' (itself)' if draft == args.model else ''}, {args.threads} threads, greedy, "
              f"{args.tokens} tokens at most, one request at a time, median of {args.rounds} rounds; runanywhere serve "
              f"--draft-model with speculative.n_max 8 against 0, llama-server -md (at most 8, least confidence 0.75) against "
              f"llama-server without\n")
        print("| task | server | decode tok/s without | with | ratio | guesses kept | same answers |\n|---|---|---|---|---|---|---|")
        with_draft = {}
        for task, prompt in TASKS.items():
            for name, bases in sides.items():
                for n in (0, 8):
                    chat(bases[n > 0], args, prompt, n)  # loads the models and warms up
                speeds = {0: [], 8: []}
                answers = {0: set(), 8: set()}
                drafted = kept = 0
                for number in range(args.rounds):
                    for n in ((0, 8) if number % 2 == 0 else (8, 0)):
                        text, timings = chat(bases[n > 0], args, prompt, n)
                        speeds[n].append(timings["predicted_per_second"])
                        answers[n].add(text)
                        drafted += timings.get("draft_n", 0) if n else 0
                        kept += timings.get("draft_n_accepted", 0) if n else 0
                plain_speed, guessed = statistics.median(speeds[0]), statistics.median(speeds[8])
                with_draft[task, name] = guessed
                same = len(answers[0]) == 1 and answers[0] == answers[8]
                share = f"{kept / drafted:.0%} of {drafted}" if drafted else "none guessed"
                print(f"| {task} | {name} | {plain_speed:.1f} | {guessed:.1f} | {guessed / plain_speed:.2f}× | {share} | {'yes' if same else 'NO'} |")
        print("\n| task | runanywhere / llama-server, both with the draft |\n|---|---|")
        for task in TASKS:
            print(f"| {task} | {with_draft[task, 'runanywhere'] / with_draft[task, 'llama-server']:.2f}× |")
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait()


if __name__ == "__main__":
    with results_file.recorded("draft-model"):
        main()
