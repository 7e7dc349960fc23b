"""Driver for benchmarks/serve-leaks; see that script."""
import argparse
import base64
import json
import os
import subprocess
import struct
import tempfile
import time
import urllib.error
import urllib.request
import zlib

import results_file
from serve_process import start_server

MODEL = "smollm2-135m-instruct-q4_1"


VOICE = "piper-en_US-joe-medium"
STT = "whisper-tiny.en"
VISION = "smolvlm-fixture"
DIFFUSION = "sd-fixture"


def private_home(binary, folder):
    """A RUNANYWHERE_HOME whose engines and built-in models are links to the installed ones, with
    second ids for the Whisper file and the diffusion fixture (so that alternating the two loads
    one and unloads the other) in its own registry."""
    cache = os.environ.get("RUNANYWHERE_HOME") or os.path.expanduser("~/.cache/runanywhere")
    os.makedirs(os.path.join(folder, "models"))
    os.symlink(os.path.join(cache, "engines"), os.path.join(folder, "engines"))
    for name in os.listdir(os.path.join(cache, "models")):
        if os.path.isdir(os.path.join(cache, "models", name)):
            os.makedirs(os.path.join(folder, "models", name))
            for file in os.listdir(os.path.join(cache, "models", name)):
                os.symlink(os.path.join(cache, "models", name, file), os.path.join(folder, "models", name, file))
    whisper = os.path.join(cache, "models", STT, "ggml-tiny.en.bin")
    env = dict(os.environ, RUNANYWHERE_HOME=folder, RUNANYWHERE_DATA=os.path.join(folder, "data"))
    subprocess.run([binary, "models", "add", "file://" + whisper, "--category", "speech-recognition", "--id", "whisper-copy"],
                   env=env, check=True, capture_output=True)
    subprocess.run([binary, "models", "import", os.path.join(cache, "models", DIFFUSION, DIFFUSION + ".gguf"), "--id", "diffusion-copy"],
                   env=env, check=True, capture_output=True)
    return folder


def png(width=32, height=32, rgb=(200, 40, 40)):
    """A solid-colour PNG."""
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def chat(base, keep_alive, tokens, model=MODEL, image=None):
    content = "Say hello."
    if image is not None:
        content = [{"type": "text", "text": "What colour is this?"},
                   {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(image).decode()}}]
    body = {"model": model, "messages": [{"role": "user", "content": content}], "max_tokens": tokens, "temperature": 0}
    if keep_alive is not None:
        body["keep_alive"] = keep_alive
    request = urllib.request.Request(f"{base}/v1/chat/completions", data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        json.load(response)


def post(base, path, body, content_type):
    request = urllib.request.Request(f"{base}{path}", data=body, headers={"content-type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            return response.read()
    except urllib.error.HTTPError as error:
        raise SystemExit(f"{path} answered {error.code}: {error.read().decode(errors='replace')}")


def speak(base, model):
    body = {"model": model, "input": "Hello there.", "response_format": "wav"}
    return post(base, "/v1/audio/speech", json.dumps(body).encode(), "application/json")


def transcribe(base, model, wav):
    boundary = "runanywhere-leaks"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n{model}\r\n'.encode(),
             f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n'.encode(),
             wav, f"\r\n--{boundary}--\r\n".encode()]
    return post(base, "/v1/audio/transcriptions", b"".join(parts), f"multipart/form-data; boundary={boundary}")


def draw(base, model):
    body = {"model": model, "prompt": "a red circle", "size": "64x64", "steps": 1, "seed": 1}
    return post(base, "/v1/images/generations", json.dumps(body).encode(), "application/json")


def loaded(base):
    with urllib.request.urlopen(f"{base}/api/models/loaded", timeout=30) as response:
        return [m["modelId"] for m in json.load(response).get("models", [])]


def rss_mb(pid, field="VmRSS"):
    """Resident memory in MB of `pid` and every process under it (the server's engine workers,
    where its models live): all of it (VmRSS), or the heap alone (RssAnon, without the model
    files' mapped pages). A process that ends while it is read counts for nothing."""
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                total += next((int(line.split()[1]) / 1024 for line in status if line.startswith(field + ":")), 0.0)
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    pending += [int(child) for child in children.read().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def phase(name, process, count, warmup, every, step, settle=0.0):
    """Runs `step` `warmup` times, then `count` times, sampling memory every `every` steps
    (`settle` seconds after the step, so that an unload has finished freeing)."""
    for _ in range(warmup):
        step()
    time.sleep(settle)
    start, heap = rss_mb(process.pid), rss_mb(process.pid, "RssAnon")
    curve, heaps = [round(start, 1)], [round(heap, 1)]
    for index in range(1, count + 1):
        step()
        if index % every == 0:
            time.sleep(settle)
            curve.append(round(rss_mb(process.pid), 1))
            heaps.append(round(rss_mb(process.pid, "RssAnon"), 1))
    print(f"{name}: every {every} after warm-up")
    print(f"  RSS  (MB) {curve}")
    print(f"  heap (MB) {heaps}")
    ceiling, floor = band_growth(curve)
    verdict = "ok" if floor < TARGET_MB else "OVER"
    print(f"  first to last {curve[-1] - start:+.1f} MB resident, {heaps[-1] - heap:+.1f} MB heap over {count}; "
          f"trend {trend(curve) * (len(curve) - 1):+.1f} MB")
    print(f"  band {min(curve):.1f}-{max(curve):.1f} MB; from its first third to its last, bottom {floor:+.1f} MB: "
          f"{verdict} (target < {TARGET_MB} MB; top {ceiling:+.1f} MB)")


TARGET_MB = 5


def band_growth(samples):
    """How far the band the curve moves in rose from its first third to its last: its top (the
    highest sample) and its bottom (the lowest). glibc's allocator keeps freed memory in
    per-thread arenas and hands it back when it pleases, and an engine's compute buffers may be
    alive when a sample is taken, so the resident size of a server that frees everything still
    swings by 10-60 MB from sample to sample, and a first-to-last difference reads a swing as
    growth or shrinkage. A leak lifts the bottom, the memory that stays; the verdict is on it."""
    third = max(1, len(samples) // 3)
    first, last = samples[:third], samples[-third:]
    return max(last) - max(first), min(last) - min(first)


def trend(samples):
    """The least-squares slope of `samples` per sample: a leak grows steadily, while an
    allocator that keeps and reuses freed memory makes the curve step and oscillate."""
    n = len(samples)
    mean_x, mean_y = (n - 1) / 2, sum(samples) / n
    spread = sum((x - mean_x) ** 2 for x in range(n))
    return sum((x - mean_x) * (y - mean_y) for x, y in enumerate(samples)) / spread if spread else 0.0


def language_phases(args, process, base):
    def cycle(model=MODEL, image=None):
        chat(base, 0, 2, model, image)
        for _ in range(100):  # the unload follows the answer
            if model not in loaded(base):
                return
            time.sleep(0.02)
        raise SystemExit("keep_alive 0 left the model loaded after its answer")
    phase("load/unload cycles (keep_alive 0)", process, args.cycles, 10, 10, cycle, settle=1.0)
    picture = png()
    phase("vision-language load/unload cycles (the fixture and its projector, an image each, keep_alive 0)", process,
          args.cycles, 10, 10, lambda: cycle(VISION, picture), settle=1.0)
    phase("short generations (model kept loaded)", process, args.generations, 20, 100, lambda: chat(base, None, 1))


def alternate(base, pair, call):
    """A step that asks for the other model of `pair` each time and then unloads the one it left
    (`DELETE /api/models/{id}/load`; the memory budget would keep both loaded), so each loads one
    and unloads the other."""
    turn = [0]

    def step():
        turn[0] += 1
        call(pair[turn[0] % 2])
        request = urllib.request.Request(f"{base}/api/models/{pair[(turn[0] + 1) % 2]}/load", method="DELETE")
        with urllib.request.urlopen(request, timeout=300):
            pass
    return step


def speech_recognition_phase(args, process, base, wav):
    phase("speech recognition: Whisper loaded and unloaded (two ids, alternating)", process, args.speech_cycles, 10, 10,
          alternate(base, [STT, "whisper-copy"], lambda model: transcribe(base, model, wav)), settle=0.5)


def speech_synthesis_phase(args, process, base):
    phase("speech synthesis: the Piper voice loaded and unloaded (alternating with eSpeak NG)", process, args.speech_cycles, 10, 10,
          alternate(base, [VOICE, "espeak-ng-en-us"], lambda model: speak(base, model)), settle=0.5)


def diffusion_phase(args, process, base):
    phase("image generation: the diffusion fixture loaded and unloaded (two ids, alternating, one 64x64 step)", process,
          args.speech_cycles, 10, 10, alternate(base, [DIFFUSION, "diffusion-copy"], lambda model: draw(base, model)), settle=0.5)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--generations", type=int, default=1000)
    parser.add_argument("--speech-cycles", type=int, default=100)
    parser.add_argument("--only", choices=["language", "stt", "tts", "diffusion"], action="append",
                        help="run only these modalities (repeatable)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as folder:
        home = private_home(args.binary, os.path.join(folder, "home"))
        env = dict(os.environ, RUNANYWHERE_DATA=data, RUNANYWHERE_HOME=home)
        wav = os.path.join(folder, "hello.wav")
        subprocess.run([args.binary, "speak", "Hello there.", "--voice", VOICE, "--output", wav], env=env, check=True, capture_output=True)
        with open(wav, "rb") as file:
            audio = file.read()
        modalities = {"language": lambda process, base: language_phases(args, process, base),
                      "stt": lambda process, base: speech_recognition_phase(args, process, base, audio),
                      "tts": lambda process, base: speech_synthesis_phase(args, process, base),
                      "diffusion": lambda process, base: diffusion_phase(args, process, base)}
        # Each modality gets a server of its own, so that one engine's freed memory (which the
        # allocator may keep for the next) does not blur another's curve.
        for name, run in modalities.items():
            if args.only and name not in args.only:
                continue
            process, base = start_server(args.binary, ["--threads", "1"], env)
            try:
                run(process, base)
            finally:
                process.terminate()
                process.wait(timeout=30)


if __name__ == "__main__":
    with results_file.recorded("serve-leaks"):
        main()
