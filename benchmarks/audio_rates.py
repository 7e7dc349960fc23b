"""Driver for benchmarks/audio-rates; see that script."""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import results_file

TEXT = ("The harbour was quiet in the early morning, and the fishing boats came home one by one across the "
        "grey water. On the quay the market opened its stalls, and the smell of bread and coffee drifted "
        "between the houses. ")
RATES = [16_000, 22_050, 24_000, 44_100, 48_000, 44_101]
TARGET = 1.15


def speech(binary, seconds, folder, env):
    """A WAV of about `seconds` of Piper's speech at its own rate."""
    path = os.path.join(folder, "speech.wav")
    text = TEXT * max(1, round(seconds / 12))
    subprocess.run([binary, "speak", text, "--output", path], env=env, check=True, capture_output=True)
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=int, default=60, help="about how long the speech is")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, RUNANYWHERE_DATA=os.path.join(folder, "data"))
        source = speech(args.binary, args.seconds, folder, env)
        files = {}
        for rate in RATES:
            files[rate] = os.path.join(folder, f"speech-{rate}.wav")
            subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", source, "-ar", str(rate), "-ac", "1", files[rate]],
                           check=True)
        duration = os.path.getsize(files[16_000]) / 2 / 16_000
        walls = {rate: [] for rate in RATES}
        texts = {}
        for round_ in range(args.rounds):
            for rate in (RATES if round_ % 2 == 0 else list(reversed(RATES))):
                started = time.monotonic()
                out = subprocess.run([args.binary, "transcribe", files[rate], "--threads", str(args.threads)], env=env,
                                     check=True, capture_output=True, text=True)
                walls[rate].append(time.monotonic() - started)
                texts[rate] = out.stdout.strip()
    print(f"{duration:.1f} s of speech transcribed by whisper-tiny.en, {args.threads} thread(s), "
          f"median wall time of {args.rounds} fresh processes per rate")
    reference = statistics.median(walls[16_000])
    print(f"{'rate':>8}  {'wall s':>7}  {'vs 16 kHz':>9}  target")
    met = True
    for rate in RATES:
        wall = statistics.median(walls[rate])
        ratio = wall / reference
        verdict = "reference" if rate == 16_000 else ("PASS" if ratio <= TARGET else "FAIL")
        met = met and verdict != "FAIL"
        print(f"{rate:>8}  {wall:>7.2f}  {ratio:>8.2f}x  {'' if rate == 16_000 else f'<= {TARGET}x '}{verdict}")
    same = sum(texts[rate] == texts[16_000] for rate in RATES) - 1
    print(f"transcripts equal to 16 kHz's: {same} of {len(RATES) - 1}")
    print("all targets met" if met else "some targets not met")


if __name__ == "__main__":
    with results_file.recorded("audio-rates"):
        main()
