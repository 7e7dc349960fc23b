"""Driver for benchmarks/serve-leaks; see that script."""
import argparse
import json
import os
import subprocess
import tempfile
import threading
import time
import urllib.request

MODEL = "smollm2-135m-instruct-q4_1"


def start_server(binary, data):
    process = subprocess.Popen([binary, "serve", "--port", "0", "--threads", "1"], stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, RUNANYWHERE_DATA=data))
    for line in process.stderr:
        if "http://127.0.0.1:" in line:
            port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
            threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()  # keep draining the log
            return process, f"http://127.0.0.1:{port}"
    raise SystemExit("runanywhere serve did not start")


def chat(base, keep_alive, tokens):
    body = {"model": MODEL, "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": tokens, "temperature": 0}
    if keep_alive is not None:
        body["keep_alive"] = keep_alive
    request = urllib.request.Request(f"{base}/v1/chat/completions", data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as response:
        json.load(response)


def loaded(base):
    with urllib.request.urlopen(f"{base}/api/ps", timeout=30) as response:
        return [m["modelId"] for m in json.load(response).get("models", [])]


def rss_mb(pid, field="VmRSS"):
    """Resident memory of `pid` in MB: all of it (VmRSS), or its heap alone (RssAnon, without
    the model file's mapped pages)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


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
    print(f"  growth {curve[-1] - start:+.1f} MB resident, {heaps[-1] - heap:+.1f} MB heap over {count}   (target < 5 MB)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--generations", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        process, base = start_server(args.binary, data)
        try:
            def cycle():
                chat(base, 0, 2)
                for _ in range(100):  # the unload follows the answer
                    if MODEL not in loaded(base):
                        return
                    time.sleep(0.02)
                raise SystemExit("keep_alive 0 left the model loaded after its answer")
            phase("load/unload cycles (keep_alive 0)", process, args.cycles, 10, 10, cycle, settle=1.0)
            phase("short generations (model kept loaded)", process, args.generations, 20, 100, lambda: chat(base, None, 1))
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
