"""Driver for benchmarks/speculation; see that script."""
import argparse
import concurrent.futures
import json
import os
import statistics
import urllib.request

import results_file
from serve_process import start_server

PARAGRAPH = ("Teh lighthouse stood at the end of the long stone pier, and every evening the keeper climbed its hundred "
             "and twelve steps to light the lamp. Ships passing in the nigth could see its beam from twenty miles away, "
             "and the fishermen of the village said that it had never once failed them in forty years of storms.")
TASKS = {
    "repeats its input (spelling fix)": [f"Correct the spelling mistakes in this paragraph and write it out again in full:\n\n{PARAGRAPH}"],
    "does not repeat (a story)": ["Write a short story about a fox who learns to play the violin."],
    "4 copy tasks at once": [f"Copy this paragraph exactly, then stop:\n\n{PARAGRAPH.replace('Teh', 'The')} ({n})" for n in range(4)],
}


def chat(base, args, prompt, draft):
    body = {"model": args.model, "messages": [{"role": "user", "content": prompt}], "max_tokens": args.tokens, "temperature": 0,
            "speculative.n_max": draft}
    request = urllib.request.Request(base + "/v1/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=600) as response:
        answer = json.loads(response.read())
    return answer["choices"][0]["message"]["content"], answer["timings"]


def measure(base, args, prompts, draft):
    """The requests of a task at once: their answers, mean decode tokens/s, and guesses made and kept."""
    with concurrent.futures.ThreadPoolExecutor(len(prompts)) as pool:
        results = list(pool.map(lambda p: chat(base, args, p, draft), prompts))
    speed = statistics.mean(t["predicted_per_second"] for _, t in results)
    return [a for a, _ in results], speed, sum(t.get("draft_n", 0) for _, t in results), sum(t.get("draft_n_accepted", 0) for _, t in results)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    parser.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args()
    process, base = start_server(args.binary, ["--threads", str(args.threads), "--parallel", "4", "--keep-alive=-1"])
    try:
        chat(base, args, "Hello", 0)  # loads the model
        lines = [f"runanywhere serve, {args.threads} threads, {args.model}, greedy, {args.tokens} tokens at most, median of "
                 f"{args.rounds} rounds, speculative.n_max 8 against 0", "",
                 "| task | decode tok/s without | with | ratio | guesses kept | same answers |", "|---|---|---|---|---|---|"]
        for name, prompts in TASKS.items():
            speeds = {0: [], 8: []}
            answers = {0: None, 8: None}
            same = True
            drafted = kept = 0
            for number in range(args.rounds):
                for draft in ((0, 8) if number % 2 == 0 else (8, 0)):
                    texts, speed, made, accepted = measure(base, args, prompts, draft)
                    speeds[draft].append(speed)
                    answers[draft] = answers[draft] or texts
                    same = same and texts == answers[draft]
                    if draft:
                        drafted, kept = drafted + made, kept + accepted
            same = same and answers[0] == answers[8]
            plain, guessed = statistics.median(speeds[0]), statistics.median(speeds[8])
            share = f"{kept / drafted:.0%} of {drafted}" if drafted else "none guessed"
            lines.append(f"| {name} | {plain:.1f} | {guessed:.1f} | {guessed / plain:.2f}× | {share} | {'yes' if same else 'NO'} |")
            print(lines[-1], flush=True)
    finally:
        process.terminate()
        process.wait()
    report = "\n".join(lines)
    print(report)
    results_file.write(args.results, "speculation", f"# speculation\n\n{results_file.machine_and_command('speculation')}\n{report}\n")


if __name__ == "__main__":
    main()
