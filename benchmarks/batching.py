"""Driver for benchmarks/batching; see that script. Starts llama.cpp's own llama-server and
`runanywhere serve` (default and --reproducible) on the same model file and threads, each with
4 slots and again with 8, all at once, then each round measures every server in turn (the order
rotating from round to round): 1 and 4 greedy streams (4 slots), 8 mixed streams (8 slots: 4
greedy, 4 sampled) and a 5-turn chat greedy and sampled (4 slots), every request streamed through
the official openai client. A round's aggregate is all completion tokens over the time from
sending to the last stream's end; its first token is the slowest stream's."""
import argparse
import concurrent.futures
import os
import signal
import statistics
import sys
import tempfile
import time

from openai import OpenAI

import llama_tools
import results_file
from chat_turn import TURNS
from serve_process import start_server
from serve_throughput import QUESTIONS

CHAT_TURNS = TURNS[:5]
SAMPLED = 0.8


def stream(client, model, messages, tokens, temperature, seed=None, sent=None):
    """One streamed chat completion: time to first token and end (from `sent`), completion
    tokens and the text."""
    options = {"temperature": temperature, "max_tokens": tokens}
    if seed is not None and temperature > 0:
        options["seed"] = seed
    sent = sent or time.perf_counter()
    first = None
    count, text = 0, []
    for chunk in client.chat.completions.create(model=model, messages=messages, stream=True,
                                                stream_options={"include_usage": True}, **options):
        if chunk.usage is not None:
            count = chunk.usage.completion_tokens
        elif chunk.choices and chunk.choices[0].delta.content:
            first = first or time.perf_counter()
            text.append(chunk.choices[0].delta.content)
    end = time.perf_counter()
    return {"ttft": (first or end) - sent, "end": end - sent, "tokens": count, "text": "".join(text)}


def streams(client, model, temperatures, tokens, seed, tag):
    """len(temperatures) requests at once, each with its own question: aggregate completion
    tokens/s, the slowest first token, and the fewest tokens a stream wrote."""
    def one(i):
        question = f"Request {tag}.{i}. {QUESTIONS[i % len(QUESTIONS)]}"
        return stream(client, model, [{"role": "user", "content": question}], tokens, temperatures[i], seed, sent)
    with concurrent.futures.ThreadPoolExecutor(len(temperatures)) as pool:
        sent = time.perf_counter()
        results = list(pool.map(one, range(len(temperatures))))
    return {"rate": sum(r["tokens"] for r in results) / max(r["end"] for r in results),
            "ttft": max(r["ttft"] for r in results), "fewest": min(r["tokens"] for r in results)}


def chat(client, model, tokens, temperature, seed, tag):
    """A 5-turn chat (each turn the history plus a new question): mean time to first token of
    turns 2-5."""
    messages = [{"role": "system", "content": f"You are a helpful gardening assistant (conversation {tag})."}]
    ttfts = []
    for question in CHAT_TURNS:
        messages.append({"role": "user", "content": question})
        answer = stream(client, model, messages, tokens, temperature, seed)
        messages.append({"role": "assistant", "content": answer["text"]})
        ttfts.append(answer["ttft"])
    return statistics.mean(ttfts[1:])


def llama_server(program, model_path, model, threads, parallel, context):
    """llama.cpp's server with `parallel` slots of `context` tokens each, otherwise its defaults."""
    return llama_tools.start_llama_server(program, model_path, model, threads, parallel, context, "batching")


def busy():
    """The share of the machine's CPU time that went to work (anyone's) over one second."""
    def sample():
        with open("/proc/stat") as stat:
            fields = [int(f) for f in stat.readline().split()[1:]]
        return sum(fields), fields[3] + fields[4]  # all, idle + iowait
    total, idle = sample()
    time.sleep(1)
    total2, idle2 = sample()
    return 1 - (idle2 - idle) / max(1, total2 - total)


def pick(values, best, higher_is_better):
    if best:
        return max(values) if higher_is_better else min(values)
    return statistics.median(values)


def stale(binary):
    """Whether a source file is newer than `binary`."""
    built = os.path.getmtime(binary)
    for directory, _, files in os.walk(os.path.join(llama_tools.ROOT, "Sources")):
        if any(os.path.getmtime(os.path.join(directory, name)) > built for name in files):
            return True
    return False


def main():
    parser = argparse.ArgumentParser(description="runanywhere serve's batching against llama-server, side by side")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=96, help="completion tokens a stream")
    parser.add_argument("--chat-tokens", type=int, default=48, help="tokens an answer in the chat")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--best", action="store_true", help="the best round of each measure, not the median")
    parser.add_argument("--seed", type=int, help="seed the sampled requests (default: unseeded)")
    parser.add_argument("--context", type=int, default=1024, help="context tokens a slot, on every server")
    parser.add_argument("--modes", default="default,reproducible")
    args = parser.parse_args()
    modes = args.modes.split(",")
    if any(mode not in ("default", "reproducible") for mode in modes):
        raise SystemExit("batching: --modes takes default and/or reproducible")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("batching: terminated"))  # the servers go too (finally below)
    home = os.environ.get("RUNANYWHERE_HOME") or os.path.expanduser("~/.cache/runanywhere")
    env = dict(os.environ)
    library, backends = llama_tools.engine_library(args.binary, env, "batching")
    program = llama_tools.build(library, home, ["llama-server"], args.threads, "batching")["llama-server"]
    model_path = llama_tools.model_file(args.binary, args.model, env, "batching")

    sides = ["llama-server"] + modes
    servers = {}
    data = tempfile.TemporaryDirectory()  # our servers' settings, conversations and telemetry: none from before
    env["RUNANYWHERE_DATA"] = data.name
    try:
        for parallel in (4, 8):
            servers["llama-server", parallel] = llama_server(program, model_path, args.model, args.threads, parallel, args.context)
            for mode in modes:
                flags = ["--threads", str(args.threads), "--parallel", str(parallel), "--context-length", str(args.context),
                         "--keep-alive=-1"] + (["--reproducible"] if mode == "reproducible" else [])
                servers[mode, parallel] = start_server(args.binary, flags, env)
        clients = {key: OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0, timeout=600)
                   for key, (_, base) in servers.items()}
        for client in clients.values():  # loads the model, warms the server up
            stream(client, args.model, [{"role": "user", "content": "Hello"}], 4, 0.0)
        results = {side: {"one": [], "four": [], "eight": [], "greedyChat": [], "sampledChat": []} for side in sides}
        load = []
        for round_ in range(args.rounds):
            load.append(busy())  # every server idle: what else the machine is doing
            print(f"round {round_ + 1} of {args.rounds}", file=sys.stderr, flush=True)
            order = sides[round_ % len(sides):] + sides[:round_ % len(sides)]
            for side in order:
                four, eight, tag = clients[side, 4], clients[side, 8], f"{round_}{side[0]}"
                measured = results[side]
                measured["one"].append(streams(four, args.model, [0.0], args.tokens, args.seed, tag + "a"))
                measured["four"].append(streams(four, args.model, [0.0] * 4, args.tokens, args.seed, tag + "b"))
                measured["eight"].append(streams(eight, args.model, [0.0] * 4 + [SAMPLED] * 4, args.tokens, args.seed, tag + "c"))
                chats = [("greedyChat", 0.0), ("sampledChat", SAMPLED)]
                for name, temperature in (chats if round_ % 2 == 0 else reversed(chats)):
                    measured[name].append(chat(four, args.model, args.chat_tokens, temperature, args.seed, f"{tag}{name[0]}"))
    finally:
        for process, _ in servers.values():
            process.terminate()
        for process, _ in servers.values():
            process.wait(timeout=60)
        data.cleanup()

    def rate(side, name):
        return pick([r["rate"] for r in results[side][name]], args.best, True)

    def ttft(side, name):
        return pick([r["ttft"] for r in results[side][name]], args.best, False) * 1000

    def fewest(side, name):
        return min(r["fewest"] for r in results[side][name])

    def chat_ttft(side, name):
        return pick(results[side][name], args.best, False) * 1000

    stat = "best" if args.best else "median"
    print(f"\n{args.model} ({model_path}); engine {library} (backends: {backends}); {args.threads} threads, "
          f"{args.tokens} tokens a stream, {args.context}-token slots, {stat} of {args.rounds} rounds"
          f"{'' if args.seed is None else f', sampled requests seeded {args.seed}'}")
    if max(load) > 0.1:
        print(f"WARNING: other work took up to {max(load):.0%} of the CPU between rounds: figures are noisy")
    if stale(args.binary):
        print(f"WARNING: {args.binary} is older than Sources/: not for figures (rebuild the release binary)")
    print(f"llama-server (same llama.cpp source and ggml): 1 stream {rate('llama-server', 'one'):.1f} tok/s, "
          f"4 greedy {rate('llama-server', 'four'):.1f} tok/s (slowest first token {ttft('llama-server', 'four'):.0f} ms), "
          f"8 mixed {rate('llama-server', 'eight'):.1f} tok/s ({ttft('llama-server', 'eight'):.0f} ms); chat turns 2-5 "
          f"first token greedy {chat_ttft('llama-server', 'greedyChat'):.0f} ms, sampled {chat_ttft('llama-server', 'sampledChat'):.0f} ms")
    failed = False
    for mode in modes:
        print(f"\nserve{' --reproducible' if mode == 'reproducible' else ''}")
        print(f"{'measure':<56} {'ours':>9} {'reference':>10} {'ratio/Δ':>9}  target")
        rows = []
        for name, label in (("four", "4 greedy streams"), ("eight", "8 mixed streams")):
            ours, theirs = rate(mode, name), rate("llama-server", name)
            rows.append((f"{label}: aggregate tok/s, vs llama-server", f"{ours:.1f}", f"{theirs:.1f}", f"{ours / theirs:.2f}",
                         ">= 0.95x", ours / theirs >= 0.95))
            ours, theirs = ttft(mode, name), ttft("llama-server", name)
            rows.append((f"{label}: slowest first token ms, vs llama-server", f"{ours:.0f}", f"{theirs:.0f}", f"{ours - theirs:+.0f} ms",
                         "<= +50 ms", ours - theirs <= 50))
        four, one = rate(mode, "four"), rate(mode, "one")
        rows.append(("ours: 4 greedy streams' aggregate tok/s, vs 1 stream", f"{four:.1f}", f"{one:.1f}", f"{four / one:.2f}",
                     ">= 1.25x", four / one >= 1.25))
        greedy, sampled = chat_ttft(mode, "greedyChat"), chat_ttft(mode, "sampledChat")
        rows.append(("ours: chat turns 2-5 first token ms, greedy vs sampled", f"{greedy:.0f}", f"{sampled:.0f}",
                     f"{greedy / sampled:.2f}", "<= 1.3x", greedy / sampled <= 1.3))
        for label, ours, theirs, ratio, target, passed in rows:
            print(f"{label:<56} {ours:>9} {theirs:>10} {ratio:>9}  {target:<9} {'PASS' if passed else 'FAIL'}")
            failed = failed or not passed
        print(f"fewest tokens a stream wrote: ours {min(fewest(mode, n) for n in ('one', 'four', 'eight'))}, "
              f"llama-server {min(fewest('llama-server', n) for n in ('one', 'four', 'eight'))} (of {args.tokens})")
    print("\nall targets met" if not failed else "\nsome targets not met")


if __name__ == "__main__":
    with results_file.recorded("batching"):
        main()
