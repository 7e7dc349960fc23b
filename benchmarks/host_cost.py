"""Driver for benchmarks/host-cost; see that script."""
import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import numpy as np
import gguf

import llama_tools
import results_file
from serve_process import cpu_seconds, start_server

MODEL_ID = "host-cost-random"
# The default model's vocabulary (SmolLM2: 49,152 tokens), since the per-token host work (a logit
# row to sample, a piece to detokenize) grows with it; the rest as small as llama.cpp allows, so
# that the engine's own work per token is a small part of what is measured.
SHAPE = dict(vocab=49152, d=32, layers=1, ffn=64, heads=2, kv=1, ctx=8192)

# What --api posts to.
ENDPOINTS = {"openai": "/v1/completions", "ollama": "/api/generate", "responses": "/v1/responses"}


def write_model(path):
    """A random-weight F16 GGUF of llama architecture and SHAPE, with a dummy vocabulary: its
    output means nothing; what it costs per token is all this benchmark reads."""
    s, rng = SHAPE, np.random.default_rng(0)

    def weights(*shape):
        return (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float16)
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("random host-cost model")
    writer.add_context_length(s["ctx"])
    writer.add_embedding_length(s["d"])
    writer.add_block_count(s["layers"])
    writer.add_feed_forward_length(s["ffn"])
    writer.add_head_count(s["heads"])
    writer.add_head_count_kv(s["kv"])
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_freq_base(10000.0)
    writer.add_rope_dimension_count(s["d"] // s["heads"])
    writer.add_vocab_size(s["vocab"])
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{i:02X}>" for i in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256
    tokens += [f"▁w{i}" for i in range(len(tokens), s["vocab"])]
    types += [gguf.TokenType.NORMAL] * (s["vocab"] - len(types))
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores([0.0] * s["vocab"])
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    head = s["d"] // s["heads"]
    writer.add_tensor("token_embd.weight", weights(s["vocab"], s["d"]))
    for i in range(s["layers"]):
        p = f"blk.{i}."
        writer.add_tensor(p + "attn_norm.weight", np.ones(s["d"], dtype=np.float32))
        writer.add_tensor(p + "attn_q.weight", weights(s["heads"] * head, s["d"]))
        writer.add_tensor(p + "attn_k.weight", weights(s["kv"] * head, s["d"]))
        writer.add_tensor(p + "attn_v.weight", weights(s["kv"] * head, s["d"]))
        writer.add_tensor(p + "attn_output.weight", weights(s["d"], s["heads"] * head))
        writer.add_tensor(p + "ffn_norm.weight", np.ones(s["d"], dtype=np.float32))
        writer.add_tensor(p + "ffn_gate.weight", weights(s["ffn"], s["d"]))
        writer.add_tensor(p + "ffn_up.weight", weights(s["ffn"], s["d"]))
        writer.add_tensor(p + "ffn_down.weight", weights(s["d"], s["ffn"]))
    writer.add_tensor("output_norm.weight", np.ones(s["d"], dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def engine_floor(batched, model, args, env):
    """llama-batched-bench's generation speed (tokens/s) for args.streams sequences of
    args.tokens tokens after prompts of args.prompt: the engine's decode and nothing else (it
    samples nothing and detokenizes nothing)."""
    context = llama_tools.batched_context(args.streams, args.prompt + args.tokens)
    return llama_tools.batched_bench_row([batched, "-m", model, "-c", str(context), "-b", "2048", "-ub", "512", "-ngl", "0", "-t", str(args.threads),
                                          "-npp", str(args.prompt), "-ntg", str(args.tokens)], args.streams, env, "host-cost")["speed_tg"]


def complete(base, index, args, temperature):
    """One completion of args.tokens tokens (the end-of-text token ignored where the server
    offers it) through args.api, whole or, with --stream, streamed (a chunk a token, as a chat
    client reads it: server-sent events, or ollama's lines); returns the tokens generated."""
    prompt = f"{index} " + " ".join(f"w{300 + (index * 7 + k) % 900}" for k in range(args.prompt - 2))
    if args.api == "ollama":
        path, body, last = ENDPOINTS["ollama"], {"model": MODEL_ID, "prompt": prompt, "raw": True, "stream": args.stream,
                                             "options": {"num_predict": args.tokens, "temperature": temperature}}, b'"done":true'
    elif args.api == "responses":
        path, body, last = ENDPOINTS["responses"], {"model": MODEL_ID, "input": prompt, "max_output_tokens": args.tokens,
                                             "temperature": temperature, "stream": args.stream}, b'"usage":{'
    else:
        path, body, last = ENDPOINTS["openai"], {"model": MODEL_ID, "prompt": prompt, "max_tokens": args.tokens, "n_predict": args.tokens,
                                               "temperature": temperature, "ignore_eos": True, "stream": args.stream}, b'"usage"'
        if args.stream:
            body["stream_options"] = {"include_usage": True}
    if args.logprobs is not None:
        # Each token's log-probability with N alternatives: runanywhere reads each API's own field, llama-server its n_probs.
        body.update({"ollama": {"logprobs": True, "top_logprobs": args.logprobs}, "responses": {"top_logprobs": args.logprobs},
                     "openai": {"logprobs": args.logprobs, "n_probs": args.logprobs}}[args.api])
    request = urllib.request.Request(base + path, json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=900) as response:
        if not args.stream:
            return generated(args.api, json.load(response))
        answer = None
        for line in response:
            if last in line:  # parsing only the last chunk keeps the client's work off the servers' cores
                answer = json.loads(line[6:] if line.startswith(b"data: ") else line)
        if not answer:
            raise SystemExit(f"host-cost: {base}'s stream ended without its usage")
        return generated(args.api, answer)


def generated(api, answer):
    """The tokens generated, as the answer (or its stream's last chunk) of `api` counts them."""
    if api == "ollama":
        return answer["eval_count"]
    if api == "responses":
        return (answer.get("response") or answer)["usage"]["output_tokens"]
    return answer["usage"]["completion_tokens"]


def load(base, args, temperature, pids):
    """args.streams completions at once: generated tokens/s from the first sent to the last done,
    and the CPU µs per generated token that the server's processes `pids` used meanwhile."""
    with concurrent.futures.ThreadPoolExecutor(args.streams) as pool:
        cpu = cpu_seconds(pids)
        started = time.perf_counter()
        generated = sum(pool.map(lambda i: complete(base, i, args, temperature), range(args.streams)))
        elapsed = time.perf_counter() - started
        return generated / elapsed, (cpu_seconds(pids) - cpu) * 1e6 / generated


def start(server, args, model, env):
    """Starts one of the servers under test; returns (process, base URL)."""
    if server["kind"] == "llama-server":
        return llama_tools.start_llama_server(server["path"], model, MODEL_ID, args.threads, args.streams, args.prompt + args.tokens + 16,
                                              "host-cost", env=env)
    flags = ["--threads", str(args.threads), "--parallel", str(args.streams), "--queue", "0", "--gpu-layers", "0",
             "--context-length", str(args.prompt + args.tokens + 16)] + server["flags"]
    return start_server(server["path"], flags, env)


def main():
    parser = argparse.ArgumentParser(description="Per-token host cost of serving many streams, against llama.cpp on the same engine")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--baseline", help="another runanywhere binary (e.g. an earlier commit's) measured beside this one")
    parser.add_argument("--streams", type=int, default=32)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--prompt", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stream", action="store_true", help="stream each completion (a chunk a token)")
    parser.add_argument("--api", choices=["openai", "ollama", "responses"], default="openai",
                        help="the API asked: " + ", ".join(f"{k} {v}" for k, v in ENDPOINTS.items()) +
                             " (llama-server is measured with openai only: it serves neither of the others)")
    parser.add_argument("--logprobs", type=int, metavar="N",
                        help="ask for each token's log-probability and its N likeliest alternatives (llama-server: n_probs)")
    parser.add_argument("--results", default=os.path.join(llama_tools.ROOT, "benchmarks", "results"))
    args = parser.parse_args()
    home = os.environ.get("RUNANYWHERE_HOME") or os.path.expanduser("~/.cache/runanywhere")
    work_folder = tempfile.TemporaryDirectory(prefix="host-cost-")  # removed when the script ends
    work = work_folder.name
    # A home of its own for the model (its engines those of the real home), so the user's models stay as they are.
    os.makedirs(os.path.join(work, "home"))
    os.symlink(os.path.join(home, "engines"), os.path.join(work, "home", "engines"))
    env = dict(os.environ, RUNANYWHERE_HOME=os.path.join(work, "home"), RUNANYWHERE_DATA=os.path.join(work, "data"))
    model = os.path.join(work, "random.gguf")
    write_model(model)
    subprocess.run([args.binary, "models", "import", model, "--id", MODEL_ID], env=env, check=True, capture_output=True)
    library, _ = llama_tools.engine_library(args.binary, env, "host-cost")
    tools = llama_tools.build(library, home, ["llama-batched-bench", "llama-server"], os.cpu_count() or 1, "host-cost")
    servers = [{"name": "runanywhere serve", "kind": "sdk", "path": args.binary, "flags": []},
               {"name": "runanywhere serve --in-process-engines", "kind": "sdk", "path": args.binary, "flags": ["--in-process-engines"]}]
    if args.baseline:
        servers += [{"name": "baseline serve", "kind": "sdk", "path": args.baseline, "flags": []},
                    {"name": "baseline serve --in-process-engines", "kind": "sdk", "path": args.baseline, "flags": ["--in-process-engines"]}]
    if args.api == "openai":
        servers.append({"name": "llama-server", "kind": "llama-server", "path": tools["llama-server"], "flags": []})
    # Each round measures the floor again: on a shared machine it moves as much as the servers do.
    measured = {(s["name"], t): [] for s in servers for t in (0.8, 0.0)}
    floors = []
    for round_index in range(args.rounds):
        floor = engine_floor(tools["llama-batched-bench"], model, args, env)
        floors.append(floor)
        print(f"round {round_index + 1} llama-batched-bench: {floor:.0f} generated tok/s ({args.streams} streams, {args.threads} threads)", flush=True)
        for server in servers[round_index % len(servers):] + servers[:round_index % len(servers)]:
            process, base = start(server, args, model, env)
            try:
                complete(base, 0, args, 0.8)  # loads the model (in an engine worker: a child process)
                pids = [process.pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True,
                                                                         text=True).stdout.split()]
                for temperature in (0.8, 0.0):
                    # Each load twice: a load is short, and CPU time is counted in clock ticks.
                    (speed, cpu), (speed2, cpu2) = load(base, args, temperature, pids), load(base, args, temperature, pids)
                    speed, cpu = (speed + speed2) / 2, (cpu + cpu2) / 2
                    measured[(server["name"], temperature)].append((speed, 1e6 / speed - 1e6 / floor, cpu, cpu - 1e6 / floor))
                    print(f"round {round_index + 1} {server['name']:<40} temperature {temperature}: {speed:8.0f} tok/s", flush=True)
            finally:
                process.terminate()
                process.wait(timeout=60)
    lines = [f"# Per-token host cost, {args.streams} streams of {args.tokens} tokens{', streamed' if args.stream else ''}, "
             f"{ENDPOINTS[args.api]}{f', log-probabilities with {args.logprobs} alternatives' if args.logprobs is not None else ''}",
             "", f"Machine: {platform.processor() or platform.machine()}, {llama_tools.cpu_model()}, {os.cpu_count()} cores; "
             f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"Command: `benchmarks/host-cost {' '.join(sys.argv[1:])}`",
             f"Model: random weights, vocabulary {SHAPE['vocab']}, width {SHAPE['d']}, {SHAPE['layers']} layer (F16); "
             f"{args.threads} engine thread(s); prompts of about {args.prompt} tokens; medians of {args.rounds} rounds.",
             f"Engine floor: llama-batched-bench generates {statistics.median(floors):.0f} tok/s (median; "
             f"{min(floors):.0f}–{max(floors):.0f}) = {1e6 / statistics.median(floors):.1f} µs per token (no sampling, no text).",
             "", "Host cost per token, two ways, each against the same round's floor:",
             "- by time: 1/served tokens/s − 1/floor tokens/s: what a server adds to each token's wall time beyond the engine's "
             "decode (it also holds the steps that decode fewer streams while a round's requests arrive one by one and leave "
             "one by one, and whatever else the machine runs meanwhile);",
             "- by CPU: the CPU time the server's processes (server and engine worker) use per generated token, less the floor's "
             "(its engine thread is busy all through: 1/floor tokens/s): the work a server adds to each token, wherever it runs.",
             "", "| server | temperature | generated tok/s | host µs per token (time) | CPU µs per token | host CPU µs per token |",
             "|---|---|---|---|---|---|"]
    for (name, temperature), rounds in measured.items():
        medians = [statistics.median(r[i] for r in rounds) for i in range(4)]
        lines.append(f"| {name} | {temperature} | {medians[0]:.0f} | {medians[1]:.1f} | {medians[2]:.1f} | {medians[3]:.1f} |")
    report = "\n".join(lines) + "\n"
    print("\n" + report)
    results_file.write(args.results, "host-cost", report)



if __name__ == "__main__":
    main()
