"""Driver for benchmarks/gpu; see that script."""
import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import llama_tools
import results_file
from serve_process import start_server

# A text that keeps a small model writing (no end-of-text for 128 tokens or more), as
# llm-overhead's prompt does.
STORY = ("The history of computing is a story of people who built machines to think faster than they could. "
         "Here is the next chapter of that story, told at length:\n\n")
# A text that repeats itself, so that prompt lookup has something to find, whatever the weights.
SPECULATION_TEXT = "\n\n".join([STORY + "The first machines filled rooms and were programmed by hand."] * 3)


def run_tool(command, env):
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"gpu: {os.path.basename(command[0])} failed ({result.returncode}): {result.stderr[-2000:]}")
    return result.stdout


def no_op_offload(args):
    """With no layer on a GPU the SDK keeps prompts on the CPU too (it turns llama.cpp's
    op_offload off); the tools are told to as well, or they copy a prompt's work to the GPU."""
    return ["--no-op-offload"] if args.gpu_layers_tools == 0 else []


def llama_bench(bench, model, args, depth, env, threads=None):
    """pp<prompt> tokens/sec from an empty context, and tg<tokens> after `depth` tokens already
    in the context (where the SDK's decode starts: attention over a longer context costs more),
    from llama-bench (averages over its repetitions), on args.threads CPU threads or `threads`."""
    depths = "0" if depth == 0 else f"0,{depth}"
    out = run_tool([bench, "-m", model, "-p", str(args.prompt), "-n", str(args.tokens), "-d", depths, "-ngl", str(args.gpu_layers_tools),
                    *(["-nopo", "1"] if args.gpu_layers_tools == 0 else []), "-t", str(threads or args.threads), "-b", str(args.prompt), "-ub", str(args.prompt), "-r", str(args.reps), "-o", "json"], env)
    rows = json.loads(out[out.index("["):])
    prompt = next(r["avg_ts"] for r in rows if r["n_prompt"] == args.prompt and r["n_gen"] == 0 and r["n_depth"] == 0)
    decode = next(r["avg_ts"] for r in rows if r["n_gen"] == args.tokens and r["n_prompt"] == 0 and r["n_depth"] == depth)
    return prompt, decode


def batched_bench(batched, model, args, prompt_tokens, env):
    """Tokens/sec, prompts and generated together, over `streams` sequences at once
    (llama-batched-bench's S: every prompt read, then args.stream_tokens generated for each)."""
    context = llama_tools.batched_context(args.streams, prompt_tokens + args.stream_tokens)
    return llama_tools.batched_bench_row([batched, "-m", model, "-c", str(context), "-b", "2048", "-ub", "512", "-ngl", str(args.gpu_layers_tools), *no_op_offload(args),
                                          "-t", str(args.threads), "-npp", str(prompt_tokens), "-ntg", str(args.stream_tokens)],
                                         args.streams, env, "gpu")["speed"]


def post(base, path, body):
    request = urllib.request.Request(base + path, json.dumps(body).encode(), {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=900) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        raise SystemExit(f"gpu: {path} answered {error.code}: {error.read().decode(errors='replace')[:500]}") from None


def complete(base, model, prompt, tokens, temperature=0.0, **extra):
    return post(base, "/v1/completions", {"model": model, "prompt": prompt, "max_tokens": tokens, "temperature": temperature, **extra})


def tokens_of(binary, model, text, env):
    """How many tokens `text` is as a prompt of `model` (`runanywhere tokenize`)."""
    result = subprocess.run([binary, "tokenize", "--json", "--model", model, text], env=env, capture_output=True, text=True, check=True)
    return len(json.loads(result.stdout)["tokens"])


def speculation(base, model, args):
    """Decode tokens/s of greedy completions of a text that repeats itself (so that prompt lookup
    has something to find, whatever the weights), with `speculative.n_max` 8 and without, each
    the mean of args.reps on the same server, and whether the texts were the same."""
    text = SPECULATION_TEXT
    speeds, texts = {0: [], 8: []}, {0: set(), 8: set()}
    for _ in range(args.reps):
        for draft in (0, 8):
            answer = complete(base, model, text, args.tokens, **{"speculative.n_max": draft})
            speeds[draft].append(answer["timings"]["predicted_per_second"])
            texts[draft].add(answer["choices"][0]["text"])
    return sum(speeds[8]) / args.reps, sum(speeds[0]) / args.reps, texts[0] == texts[8]


def sdk(binary, model, args, env):
    """The SDK through `runanywhere serve`, warmed up like llama-bench: prompt tokens/sec over a
    prompt of args.prompt tokens (a fresh one each time: the prompt cache must not help), decode
    tokens/sec over args.tokens after a short text (llama-bench's tg is measured after as many
    tokens), each the mean of args.reps; then args.streams requests at once
    (a second server with as many sequences) and their tokens/sec together, prompts and
    generated, from the first request sent to the last answer received."""
    # The context holds the prompt or speculation's text, whichever is longer.
    context = max(args.prompt, tokens_of(binary, model, SPECULATION_TEXT, env)) + args.tokens + 64
    flags = ["--threads", str(args.threads), "--batch-size", str(args.prompt), "--context-length", str(context), *args.serve_args]
    if args.gpu_layers is not None:
        flags += ["--gpu-layers", str(args.gpu_layers)]
    process, base = start_server(binary, flags + ["--parallel", "1"], env)
    try:
        complete(base, model, "Hello", 4)  # loads the model and warms the device up
        words = args.prompt
        for _ in range(3):  # one token per word here; find the count that gives the prompt size
            used = complete(base, model, "0" + " the" * words, 1)["usage"]["prompt_tokens"]
            if used == args.prompt:
                break
            words += args.prompt - used
        prompts, decodes, generated, depths = [], [], [], []
        for rep in range(args.reps):
            answer = complete(base, model, f"{rep + 1}" + " the" * words, 1)
            prompts.append(answer["timings"]["prompt_per_second"])
            answer = complete(base, model, f"{rep + 1}. {STORY}", args.tokens)
            decodes.append(answer["timings"]["predicted_per_second"])
            generated.append(answer["usage"]["completion_tokens"])
            depths.append(answer["usage"]["prompt_tokens"])
        prompt_tokens = answer["usage"]["prompt_tokens"]
        guessed, plain, same = (0, 0, False) if args.decode_only else speculation(base, model, args)
    finally:
        process.terminate()
        process.wait(timeout=60)
    ours = {"prompt": sum(prompts) / len(prompts), "decode": sum(decodes) / len(decodes), "generated": min(generated),
            "decodePrompt": round(sum(depths) / len(depths)), "streamPrompt": prompt_tokens, "speculation": (guessed, plain, same)}
    if args.decode_only:
        return ours
    # The streams: short prompts, args.stream_tokens each, all at once.
    stream_flags = ["--threads", str(args.threads), "--context-length", str(prompt_tokens + args.stream_tokens + 64),
                    "--parallel", str(args.streams), "--queue", "0", *args.serve_args]
    if args.gpu_layers is not None:
        stream_flags += ["--gpu-layers", str(args.gpu_layers)]
    process, base = start_server(binary, stream_flags, env)
    try:
        streams = concurrent_streams(base, model, args)
    finally:
        process.terminate()
        process.wait(timeout=60)
    return ours | {"streams": streams}


def concurrent_streams(base, model, args):
    """args.streams completions of args.stream_tokens at once, after a round of them to warm up:
    prompt and generated tokens/s together, from the first request sent to the last answer received.
    Sampled, unseeded, as chat traffic is (the scheduler decodes such requests together; greedy
    and seeded ones promise reproducible numbers, so each gets decode calls of its own)."""
    def round_of_streams():
        with ThreadPoolExecutor(args.streams) as pool:
            started = time.perf_counter()
            answers = list(pool.map(lambda i: complete(base, model, f"{i + 1}. {STORY}", args.stream_tokens, 0.8), range(args.streams)))
            return sum(a["usage"]["prompt_tokens"] + a["usage"]["completion_tokens"] for a in answers) / (time.perf_counter() - started)
    # A first round warms the device up for every batch size the streams go through (a GPU
    # backend prepares its kernels and graphs per shape), as llama-batched-bench warms up.
    round_of_streams()
    return round_of_streams()


def llama_server(server, model_path, model, args, prompt_tokens, env):
    """The same streams against llama-server from the same build, with as many slots."""
    process, base = llama_tools.start_llama_server(server, model_path, model, args.threads, args.streams, prompt_tokens + args.stream_tokens + 64,
                                                   "gpu", gpu_layers=args.gpu_layers_tools, env=env, extra=no_op_offload(args))
    try:
        return concurrent_streams(base, model, args)
    finally:
        process.terminate()
        process.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser(description="The SDK against llama.cpp's own tools on the same device and model")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--prompt", type=int, default=512)
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--streams", type=int, default=64)
    parser.add_argument("--stream-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--gpu-layers", type=int, help="the SDK's --gpu-layers (default: its own choice); the tools get 99, or 0 with 0")
    parser.add_argument("--serve-args", type=shlex.split, default=[],
                        help="more arguments for `runanywhere serve`, as one string (e.g. '--in-process-engines')")
    parser.add_argument("--decode-only", action="store_true",
                        help="measure only pp and tg against llama-bench (no speculation, streams or llama-server)")
    parser.add_argument("--results", default=os.path.join(llama_tools.ROOT, "benchmarks", "results"),
                        help="folder of the dated results file this run writes")
    args = parser.parse_args()
    home = os.environ.get("RUNANYWHERE_HOME") or os.path.expanduser("~/.cache/runanywhere")
    env = dict(os.environ)
    library, backends = llama_tools.engine_library(args.binary, env, "gpu")
    on_cpu = args.gpu_layers == 0 or backends == "CPU"
    args.gpu_layers_tools = 0 if on_cpu else 99
    tools = llama_tools.build(library, home, ["llama-bench", "llama-batched-bench", "llama-server"], args.threads, "gpu")
    bench, batched = tools["llama-bench"], tools["llama-batched-bench"]
    model_path = llama_tools.model_file(args.binary, args.model, env, "gpu")
    where = [args.binary, "generate", "--json", "--max-tokens", "1", "--threads", str(args.threads), "--model", args.model, "Hi"]
    if args.gpu_layers is not None:
        where[2:2] = ["--gpu-layers", str(args.gpu_layers)]
    # Its exit status is reported, not relied on: the figures are taken either way.
    generated = subprocess.run(where, env=env, capture_output=True, text=True)
    backend = json.loads(generated.stdout[generated.stdout.index("{"):])["backend"] if "{" in generated.stdout else "unknown"
    if generated.returncode != 0:
        print(f"gpu: `runanywhere generate` exited with status {generated.returncode}: {generated.stderr[-500:]}", flush=True)
    print(f"engine: {library} (backends: {backends}); the SDK runs the model on: {backend}", flush=True)
    print(f"model: {model_path}; threads: {args.threads}", flush=True)
    ours = sdk(args.binary, args.model, args, env)
    depth = ours["decodePrompt"]
    prompt, decode = llama_bench(bench, model_path, args, depth, env)
    rows = [(f"prompt tok/s (pp{args.prompt}) vs llama-bench", ours["prompt"], prompt, 0.95),
            (f"decode tok/s (tg{args.tokens} after a prompt of {depth}; the SDK wrote {ours['generated']}+) vs llama-bench tg{args.tokens} @ d{depth}",
             ours["decode"], decode, 0.95)]
    if not on_cpu and args.threads != 1:
        # The SDK computes a model wholly on a GPU on one CPU thread (all the CPU does is look up
        # the tokens): llama-bench so too, beside its figure with args.threads.
        _, alone = llama_bench(bench, model_path, args, depth, env, threads=1)
        rows.append((f"decode tok/s vs llama-bench tg{args.tokens} @ d{depth} on 1 CPU thread", ours["decode"], alone, 0.95))
    if not args.decode_only:
        streams = batched_bench(batched, model_path, args, ours["streamPrompt"], env)
        served = llama_server(tools["llama-server"], model_path, args.model, args, ours["streamPrompt"], env)
        rows += [(f"{args.streams} streams, prompt+generated tok/s vs llama-batched-bench", ours["streams"], streams, 0.6),
                 (f"{args.streams} streams, the same client vs llama-server", ours["streams"], served, 1.0)]
    lines = [f"# benchmarks/gpu, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC", "",
             f"machine: {gpu_name()}; {llama_tools.cpu_model()}, {os.cpu_count()} cores; {platform.platform()}",
             f"command: benchmarks/gpu {' '.join(sys.argv[1:])}",
             f"engine: {library} (backends: {backends}); the SDK runs the model on: {backend}; `generate` exit status {generated.returncode}",
             f"model: {model_path}; threads: {args.threads}", "",
             "| measure | SDK | llama.cpp | ratio | target |", "|---|---|---|---|---|"]
    for name, mine, theirs, target in rows:
        ratio = mine / theirs if theirs else 0
        lines.append(f"| {name} | {mine:.1f} | {theirs:.1f} | {ratio:.2f} | >= {target} {'ok' if ratio >= target else 'BELOW'} |")
    lines += ["", "llama.cpp: llama-bench (pp, tg), llama-batched-bench (S) and llama-server built from the same source against the same ggml"]
    guessed, plain, same = ours["speculation"]
    lines += [] if args.decode_only else ["", "| speculative decoding (prompt lookup, a repeating text, the same server) | n_max 8 | n_max 0 | ratio | target |",
              "|---|---|---|---|---|",
              f"| decode tok/s (tg{args.tokens}); the same text both ways: {'yes' if same else 'NO'} | {guessed:.1f} | {plain:.1f} | "
              f"{guessed / plain if plain else 0:.2f} | >= 1.5 {'ok' if plain and guessed / plain >= 1.5 else 'BELOW'} |"]
    report = "\n".join(lines) + "\n"
    print("\n" + report, flush=True)
    results_file.write(args.results, "gpu", report)


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip() or "no NVIDIA GPU"
    except (OSError, subprocess.TimeoutExpired):
        return "no NVIDIA GPU"


if __name__ == "__main__":
    main()
