"""Driver for benchmarks/engine-workers; see that script."""
import argparse
import json
import os
import statistics
import time
import urllib.request
import uuid

import results_file
from serve_process import start_server

SENTENCES = [f"Sentence {i}: the {w} crossed the {p} before the storm reached the valley." for i, (w, p) in enumerate(
    [(w, p) for w in ("fox", "train", "river", "cyclist", "choir", "heron", "tractor", "kite") for p in ("bridge", "field", "square", "border")])]


def post(url, body, content_type="application/json"):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": content_type}, method="POST")
    with urllib.request.urlopen(request, timeout=600) as response:
        return response.read()


def multipart(fields, file_name, file_bytes):
    boundary = uuid.uuid4().hex
    parts = [f"--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n".encode() for k, v in fields.items()]
    parts.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\n"
                 "Content-Type: audio/wav\r\n\r\n".encode() + file_bytes + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def requests(base, installed, args, speech):
    """The requests measured, by name: each a function of the server's base URL."""
    kinds = {}
    if args.embedding_model in installed:
        kinds[f"embeddings ({len(SENTENCES)} sentences)"] = lambda: post(base + "/v1/embeddings", {"model": args.embedding_model, "input": SENTENCES})
    if args.voice in installed:
        kinds["speech (one sentence)"] = lambda: post(base + "/v1/audio/speech", {
            "model": args.voice, "input": "The quick brown fox jumps over the lazy dog.", "response_format": "wav"})
    if args.speech_model in installed and speech:
        body, content_type = multipart({"model": args.speech_model}, "speech.wav", speech)
        kinds["transcription (one sentence)"] = lambda: post(base + "/v1/audio/transcriptions", body, content_type)
    if args.image_model in installed:
        kinds["image (64×64, 2 steps)"] = lambda: post(base + "/v1/images/generations", {
            "model": args.image_model, "prompt": "A lighthouse at dusk", "size": "64x64", "steps": 2, "seed": 7, "guidance_scale": 1,
            "sampler": "euler"})
    return kinds


def measure(args, placement, speech):
    """Median seconds of each request kind on one server, after one request of each (the loads)."""
    extra = ["--in-process-engines"] if placement == "in-process" else []
    process, base = start_server(args.binary, ["--threads", str(args.threads), *extra])
    try:
        with urllib.request.urlopen(base + "/v1/models", timeout=60) as response:
            installed = {m["id"] for m in json.load(response)["data"]}
        medians = {}
        for name, send in requests(base, installed, args, speech).items():
            send()
            times = []
            for _ in range(args.repetitions):
                started = time.perf_counter()
                send()
                times.append(time.perf_counter() - started)
            medians[name] = statistics.median(times)
        return medians
    finally:
        process.terminate()
        process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--embedding-model", default="all-minilm-l6-v2")
    parser.add_argument("--voice", default="piper-en_US-joe-medium")
    parser.add_argument("--speech-model", default="whisper-tiny.en")
    parser.add_argument("--image-model", default="sd-fixture")
    parser.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"),
                        help="folder of the dated results file this run writes")
    args = parser.parse_args()

    # The transcription's input: the voice's own speech, made once by a server of either kind.
    process, base = start_server(args.binary, ["--threads", str(args.threads)])
    try:
        speech = post(base + "/v1/audio/speech", {"model": args.voice, "input": "Turn off the lights when you leave the kitchen.",
                                                   "response_format": "wav"})
    except Exception:  # no voice installed: no transcription either
        speech = None
    finally:
        process.terminate()
        process.wait()

    rounds = {"workers": [], "in-process": []}
    for number in range(args.rounds):
        for placement in (("workers", "in-process") if number % 2 == 0 else ("in-process", "workers")):
            rounds[placement].append(measure(args, placement, speech))
    names = list(rounds["workers"][0])
    if not names:
        raise SystemExit("engine-workers: none of the models it measures is installed; run scripts/setup --tests")
    lines = [f"runanywhere serve, {args.threads} threads, median of {args.rounds} rounds (each the median of "
             f"{args.repetitions} requests after one that loads the model), engine workers against engines in the server",
             "", "| request | workers | in process | workers × |", "|---|---|---|---|"]
    for name in names:
        workers = statistics.median(r[name] for r in rounds["workers"])
        inside = statistics.median(r[name] for r in rounds["in-process"])
        lines.append(f"| {name} | {workers * 1000:.1f} ms | {inside * 1000:.1f} ms | {workers / inside:.3f} |")
    report = "\n".join(lines)
    print(report)
    results_file.write(args.results, "engine-workers", f"# engine-workers\n\n{results_file.machine_and_command('engine-workers')}\n{report}\n")


if __name__ == "__main__":
    main()
