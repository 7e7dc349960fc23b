"""Driver for benchmarks/telemetry-throughput; see that script."""
import argparse
import datetime
import http.client
import json
import os
import subprocess
import tempfile
import threading
import time
import uuid

import results_file
from postgres_cluster import Postgres


def payload(run_id):
    stamp = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return json.dumps({"platform": "linux", "metrics": {
        "model_id": "GradientIdentity", "run_id": run_id, "timestamp": stamp, "frames_processed": 1800, "warmup_frames": 45,
        "fps_avg": 29.8, "fps_min": 28.1, "fps_max": 31.4, "latency_p50_ms": 34.2, "latency_p95_ms": 38.5, "cold_start_ms": 215.7,
        "model_file_mb": 0.0, "thermal_state": "nominal", "device_model": "bench", "os_version": "Debian GNU/Linux 12 (bookworm)",
        "backend": "onnxruntime", "telemetry_post_url": "http://127.0.0.1/telemetry"}}).encode()


def send(port, bodies, statuses):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for body in bodies:
        connection.request("POST", "/telemetry", body, {"content-type": "application/json"})
        response = connection.getresponse()
        response.read()
        statuses.append(response.status)
    connection.close()


def measure(binary, store, payloads, senders, data):
    cluster = Postgres() if store == "postgres" else None
    arguments = ["--database", cluster.url] if cluster else []
    env = dict(os.environ, RUNANYWHERE_DATA=data)
    process = subprocess.Popen([binary, "telemetry", "serve", "--port", "0", *arguments], stderr=subprocess.PIPE, text=True, env=env)
    try:
        port = None
        for line in process.stderr:
            if "http://127.0.0.1:" in line:
                port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
                break
        if port is None:
            raise SystemExit("telemetry serve did not start")
        threading.Thread(target=lambda: [None for _ in process.stderr], daemon=True).start()
        bodies = [payload(str(uuid.uuid4())) for _ in range(payloads)]
        statuses = []
        threads = [threading.Thread(target=send, args=(port, bodies[index::senders], statuses)) for index in range(senders)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", "/telemetry/runs?limit=1")
        total = json.loads(connection.getresponse().read())["total"]
        connection.close()
        created = statuses.count(201)
        print(f"{store:10} {payloads} payloads, {senders} senders: {payloads / elapsed:7.0f} accepted/s "
              f"({elapsed:.2f} s; {created} stored, {total} in the store)")
        if created != payloads or total != payloads:
            raise SystemExit("not every payload was stored exactly once")
    finally:
        process.terminate()
        process.wait(timeout=30)
        if cluster:
            cluster.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--payloads", type=int, default=4000)
    parser.add_argument("--senders", type=int, default=16)
    parser.add_argument("--store", choices=["sqlite", "postgres"], action="append")
    args = parser.parse_args()
    for store in args.store or ["sqlite", "postgres"]:
        with tempfile.TemporaryDirectory() as data:
            measure(args.binary, store, args.payloads, args.senders, data)


if __name__ == "__main__":
    with results_file.recorded("telemetry-throughput"):
        main()
