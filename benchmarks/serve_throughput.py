"""Driver for benchmarks/serve-throughput; see that script. Starts `runanywhere serve` on a free
loopback port with as many slots as the largest concurrency, then for each concurrency N sends
N streaming chat requests at once, each with its own question, and measures from the moment
they are sent: each stream's time to first token, and the aggregate decode rate (all completion
tokens over the time until the last stream ends). The reference is `runanywhere generate` on the
same model and options, in the same run, and, when its server extras are installed, one stream
at a time through llama-cpp-python's own OpenAI server on the same model file."""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

from openai import OpenAI

import results_file
from serve_process import free_port, start_server

QUESTIONS = [
    "Write a short story about a lighthouse keeper.", "Explain how rain forms.", "Describe a busy market in the morning.",
    "Tell me about the history of bicycles.", "Write a letter to a friend about a trip to the mountains.",
    "Explain why the sky is blue.", "Describe your favourite meal and how to cook it.", "Write a poem about autumn leaves.",
]


def stream(client, model, question, args, sent):
    options = {"temperature": args.temperature, "max_tokens": args.tokens}
    if args.seed is not None:
        options["seed"] = args.seed
    first = last = None
    tokens = 0
    for chunk in client.chat.completions.create(model=model, stream=True, stream_options={"include_usage": True},
                                                messages=[{"role": "user", "content": question}], **options):
        now = time.perf_counter()
        if chunk.usage is not None:
            tokens = chunk.usage.completion_tokens
        elif chunk.choices and chunk.choices[0].delta.content:
            first = first or now
            last = now
    return {"ttft": (first - sent) if first else None, "end": last or time.perf_counter(), "tokens": tokens,
            "decode": (tokens - 1) / (last - first) if first and last and last > first and tokens > 1 else None}


def python_server_reference(binary, model, args):
    """One stream at a time through `python -m llama_cpp.server` on the same GGUF file: median
    decode tok/s and time to first token, or None when its server extras are not installed."""
    if importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("fastapi") is None:
        return None
    info = json.loads(subprocess.run([binary, "models", "info", model, "--json"], check=True, capture_output=True, text=True).stdout)
    path = info["model"]["localPath"].removeprefix("file://")
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", path, "--model_alias", model, "--host", "127.0.0.1",
                                "--port", str(port), "--n_threads", str(args.threads), "--n_threads_batch", str(args.threads),
                                "--n_ctx", "2048"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="unused", max_retries=0, timeout=600)
        deadline = time.monotonic() + 120
        while True:
            try:
                client.models.list()
                break
            except Exception:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("llama-cpp-python's server did not start")
                time.sleep(0.2)
        stream(client, model, QUESTIONS[0], args, time.perf_counter())  # warms it up as ours is
        results = []
        for question in QUESTIONS[:args.rounds * 2]:
            results.append(stream(client, model, question, args, time.perf_counter()))
        return {"decode": statistics.median(r["decode"] for r in results if r["decode"]),
                "ttft": statistics.median(r["ttft"] for r in results if r["ttft"] is not None)}
    finally:
        process.terminate()
        process.wait()


def reference(binary, model, args):
    rates = []
    for question in QUESTIONS[:args.rounds * 2]:
        command = [binary, "generate", "--json", "--model", model, "--threads", str(args.threads), "--max-tokens", str(args.tokens),
                   "--temperature", str(args.temperature)] + (["--seed", str(args.seed)] if args.seed is not None else []) + [question]
        result = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        rates.append(result["decodeTokensPerSecond"])
    return statistics.median(rates)


def measure(args, levels, placements):
    """{placement: rows (streams, median aggregate tok/s, TTFTs, median per-stream decode tok/s)}
    of one server per placement of its model: `workers` (the default: an engine process per
    model) or `in-process` (--in-process-engines). The servers run side by side and take turns,
    round by round, so that what else the machine does falls on each alike."""
    servers, clients = {}, {}
    try:
        for engines in placements:
            extra = ["--in-process-engines"] if engines == "in-process" else []
            servers[engines], base = start_server(args.binary, ["--parallel", str(max(levels)), "--queue", "0", "--threads", str(args.threads), *extra])
            clients[engines] = OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0, timeout=600)
            stream(clients[engines], args.model, QUESTIONS[0], args, time.perf_counter())  # loads the model
        rows = {engines: [] for engines in placements}
        for n in levels:
            seen = {engines: ([], [], []) for engines in placements}
            for round_ in range(args.rounds):
                questions = [QUESTIONS[(round_ + i) % len(QUESTIONS)] for i in range(n)]
                for engines in placements:
                    ttfts, aggregates, decodes = seen[engines]
                    with concurrent.futures.ThreadPoolExecutor(n) as pool:
                        sent = time.perf_counter()
                        results = list(pool.map(lambda q: stream(clients[engines], args.model, q, args, sent), questions))
                    ttfts += [r["ttft"] for r in results if r["ttft"] is not None]
                    aggregates.append(sum(r["tokens"] for r in results) / (max(r["end"] for r in results) - sent))
                    decodes += [r["decode"] for r in results if r["decode"]]
            for engines, (ttfts, aggregates, decodes) in seen.items():
                rows[engines].append((n, statistics.median(aggregates), ttfts, statistics.median(decodes)))
        return rows
    finally:
        for process in servers.values():
            process.terminate()
            process.wait()


def table(rows):
    one = rows[0][1] if rows and rows[0][0] == 1 else None
    lines = ["| streams | aggregate tok/s | × one stream | per-stream decode tok/s | TTFT p50 | TTFT p95 | TTFT max |", "|---|---|---|---|---|---|---|"]
    for n, aggregate, ttfts, decode in rows:
        q = statistics.quantiles(ttfts, n=20, method="inclusive") if len(ttfts) > 1 else ttfts * 19
        lines.append(f"| {n} | {aggregate:.1f} | {aggregate / one:.2f} | {decode:.1f} | {statistics.median(ttfts) * 1000:.0f} ms | "
                     f"{q[18] * 1000:.0f} ms | {max(ttfts) * 1000:.0f} ms |" if one else f"| {n} | {aggregate:.1f} |")
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", default="1,2,4,8")
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--seed", type=int, help="seeded requests are decoded one by one (reproducible), not batched")
    parser.add_argument("--engines", default="workers,in-process",
                        help="where the server runs the model, each measured in turn: workers (an engine process per model, "
                             "the default) and in-process (--in-process-engines)")
    parser.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"),
                        help="folder of the dated results file this run writes")
    args = parser.parse_args()
    levels = [int(n) for n in args.concurrency.split(",")]
    placements = [e.strip() for e in args.engines.split(",") if e.strip()]
    if not placements or any(e not in ("workers", "in-process") for e in placements):
        raise SystemExit("--engines takes workers, in-process or both, separated by a comma")

    generate_rate = reference(args.binary, args.model, args)
    python_server = python_server_reference(args.binary, args.model, args)
    measured = measure(args, levels, placements)

    out = [f"runanywhere serve, {args.model}, {args.threads} threads, {args.tokens} tokens a request, "
           f"temperature {args.temperature}{'' if args.seed is None else f', seed {args.seed}'}, median of {args.rounds} rounds",
           f"reference: runanywhere generate decodes {generate_rate:.1f} tok/s"]
    for engines, rows in measured.items():
        out += ["", f"engines: {engines}", ""] + table(rows)
        if rows and rows[0][0] == 1:
            out.append(f"\none stream through the server ({engines}) decodes at {rows[0][3] / generate_rate:.2f}× `runanywhere generate`")
            if python_server:
                out.append(f"llama-cpp-python's server, one stream: decode {python_server['decode']:.1f} tok/s, first token in "
                           f"{python_server['ttft'] * 1000:.0f} ms; ours ({engines}) decodes at {rows[0][3] / python_server['decode']:.2f}× that")
    if len(measured) == 2:
        out += ["", "engine workers against engines in the server, same run:", "",
                "| streams | aggregate tok/s × | TTFT p50 × |", "|---|---|---|"]
        for (n, aggregate, ttfts, _), (_, inside, inside_ttfts, _) in zip(measured["workers"], measured["in-process"]):
            out.append(f"| {n} | {aggregate / inside:.2f} | {statistics.median(ttfts) / statistics.median(inside_ttfts):.2f} |")
    if not python_server:
        out.append("\n(llama-cpp-python's server was not measured: install its extras into the venv with "
                   "pip install uvicorn fastapi pydantic-settings sse-starlette 'starlette-context<0.4')")
    report = "\n".join(out)
    print(report)
    results_file.write(args.results, "serve-throughput", f"# serve-throughput\n\n{results_file.machine_and_command('serve-throughput')}\n{report}\n")


if __name__ == "__main__":
    main()
