"""Driver for benchmarks/fuzz-models; see that script."""
import argparse
import collections
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time

import results_file

VOICE = "piper-en_US-joe-medium"

# What each kind mutates, and the commands that register and use a mutated copy (MODEL is its id,
# FILE its path, AUDIO a short recording made with the bundled voice).
KINDS = {
    "gguf": ("smollm2-135m-instruct-q4_1/SmolLM2-135M-Instruct.Q4_1.gguf", ".gguf",
             [["models", "import", "FILE", "--id", "MODEL"],
              ["generate", "--model", "MODEL", "--max-tokens", "2", "--threads", "1", "Hi"]]),
    "whisper": ("whisper-tiny.en/ggml-tiny.en.bin", ".bin",
                [["models", "add", "file://FILE", "--category", "speech-recognition", "--id", "MODEL"],
                 ["transcribe", "AUDIO", "--model", "MODEL", "--threads", "1"]]),
    "diffusion": ("sd-fixture/sd-fixture.gguf", ".gguf",
                  [["models", "import", "FILE", "--id", "MODEL"],
                   ["imagine", "a red circle", "--model", "MODEL", "--steps", "1", "--width", "64", "--height", "64",
                    "--seed", "1", "--threads", "1", "--output", "IMAGE"]]),
    # The bundled Piper voice's network, damaged in place (its other files are links to the real ones).
    "onnx": (f"{VOICE}/en_US-joe-medium.onnx", ".onnx",
             [["speak", "Hello there.", "--voice", VOICE, "--output", "AUDIO", "--threads", "1"]]),
}


def mutate(original, rng):
    data = bytearray(original)
    for _ in range(rng.randint(1, 4)):
        span = 4096 if rng.random() < 0.5 else min(1 << 20, len(original))
        data[rng.randrange(span)] = rng.choice([0x00, 0xFF, rng.randrange(256)])
    return bytes(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--kind", choices=sorted(KINDS), default="gguf")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cache = os.environ.get("RUNANYWHERE_HOME") or os.path.expanduser("~/.cache/runanywhere")
    source, suffix, steps = KINDS[args.kind]
    original = open(os.path.join(cache, "models", source), "rb").read()
    home = tempfile.mkdtemp(prefix="runanywhere-fuzz-")
    os.symlink(os.path.join(cache, "engines"), os.path.join(home, "engines"))
    env = dict(os.environ, RUNANYWHERE_HOME=home, RUNANYWHERE_DATA=os.path.join(home, "data"))
    audio = os.path.join(home, "hello.wav")
    if args.kind == "whisper":
        subprocess.run([args.binary, "speak", "Hello there, this is a test.", "--output", audio],
                       env=dict(env, RUNANYWHERE_HOME=cache), check=True, capture_output=True)
    if args.kind == "onnx":
        voice = os.path.join(home, "models", VOICE)
        os.makedirs(voice)
        for name in os.listdir(os.path.join(cache, "models", VOICE)):
            if not name.endswith(".onnx"):
                os.symlink(os.path.join(cache, "models", VOICE, name), os.path.join(voice, name))
    rng = random.Random(args.seed)
    outcomes, signals, contained, started = collections.Counter(), [], [], time.monotonic()
    try:
        for case in range(args.cases):
            path = os.path.join(home, "models", source) if args.kind == "onnx" else os.path.join(home, f"case-{case}{suffix}")
            with open(path, "wb") as file:
                file.write(mutate(original, rng))
            model = f"case-{case}"
            for step, command in enumerate(steps):
                command = [path if a == "FILE" else model if a == "MODEL" else audio if a == "AUDIO"
                           else os.path.join(home, "image.png") if a == "IMAGE"
                           else a.replace("FILE", path) for a in command]
                result = subprocess.run([args.binary] + command, env=env, capture_output=True, text=True, errors="replace", timeout=600)
                if result.returncode < 0:
                    signals.append((case, command[0], signal.Signals(-result.returncode).name, result.stderr[-300:]))
                    outcomes["SIGNAL"] += 1
                    break
                if result.returncode != 0:
                    outcome = "refused when added" if step < len(steps) - 1 else "contained by the check" if "crashed" in result.stderr else "refused at load"
                    outcomes[outcome] += 1
                    if outcome == "contained by the check":
                        contained.append((case, result.stderr.strip()[-300:]))
                    break
            else:
                outcomes["answered"] += 1
            if args.kind != "onnx":
                os.unlink(path)
                subprocess.run([args.binary, "models", "rm", "--yes", model], env=env, capture_output=True)
            if (case + 1) % 50 == 0:
                print(f"{case + 1} cases, {time.monotonic() - started:.0f} s: {dict(outcomes)}", flush=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"{args.cases} mutations of {source} (seed {args.seed}): {dict(outcomes)}")
    for case, stderr in contained[:10]:
        print(f"  case {case}, contained: {stderr}")
    for case, command, name, stderr in signals:
        print(f"  case {case}: {command} died of {name}: {stderr}")
    raise SystemExit(1 if signals else 0)


if __name__ == "__main__":
    with results_file.recorded("fuzz-models"):
        main()
