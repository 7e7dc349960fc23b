"""Driver for benchmarks/replicas; see that script."""
import argparse
import concurrent.futures
import json
import os
import signal
import tempfile
import threading
import time
import urllib.error
import urllib.request

import results_file
from postgres_cluster import Postgres
from serve_process import start_server

QUESTIONS = ["Name a colour.", "Name a fruit.", "Name a planet.", "Name a river.", "Name a tree.", "Name a bird."]


def ask(base, model, question, tokens):
    body = {"model": model, "messages": [{"role": "user", "content": question}], "max_tokens": tokens, "temperature": 0}
    request = urllib.request.Request(base + "/v1/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=120) as response:
        json.loads(response.read())


def load(bases, args, kill=None):
    """Clients sending requests for args.seconds, each to the next replica in turn; a request that
    fails goes to the next replica (a load balancer's retry). Returns done, lost and retried."""
    counter = {"next": 0, "done": 0, "lost": 0, "retried": 0}
    lock = threading.Lock()
    deadline = time.monotonic() + args.seconds

    def client(number):
        while time.monotonic() < deadline:
            with lock:
                first = counter["next"]
                counter["next"] += 1
            for attempt in range(len(bases)):
                try:
                    ask(bases[(first + attempt) % len(bases)], args.model, QUESTIONS[first % len(QUESTIONS)], args.tokens)
                    with lock:
                        counter["done"] += 1
                        counter["retried"] += attempt > 0
                    break
                except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                    continue
            else:
                with lock:
                    counter["lost"] += 1

    if kill:
        threading.Timer(args.seconds / 2, kill).start()
    with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
        list(pool.map(client, range(args.clients)))
    return counter


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--tokens", type=int, default=16)
    parser.add_argument("--model", default="smollm2-135m-instruct-q4_1")
    args = parser.parse_args()
    database = Postgres()
    servers = []
    try:
        def replica():
            env = dict(os.environ, RUNANYWHERE_DATA=tempfile.mkdtemp(prefix="replica-data-"))
            process, base = start_server(args.binary, ["--threads", str(args.threads), "--parallel", "1", "--queue", "64",
                                                       "--keep-alive=-1", "--database", database.url], env)
            servers.append(process)
            ask(base, args.model, "Hi.", 2)  # loads the model
            return process, base

        with results_file.recorded("replicas"):
            print(f"{args.model}, greedy, {args.tokens} tokens at most, {args.clients} clients for {args.seconds:.0f} s, each "
                  f"replica --threads {args.threads} --parallel 1, on one PostgreSQL; clients take the replicas in turn\n")
            one = replica()
            single = load([one[1]], args)
            two = replica()
            double = load([one[1], two[1]], args)
            three = replica()
            killed = load([two[1], three[1]], args, kill=lambda: os.kill(three[0].pid, signal.SIGKILL))
            rate = lambda c: c["done"] / args.seconds
            print("| replicas | requests | requests/s | lost | sent again |\n|---|---|---|---|---|")
            print(f"| one | {single['done']} | {rate(single):.2f} | {single['lost']} | {single['retried']} |")
            print(f"| two | {double['done']} | {rate(double):.2f} | {double['lost']} | {double['retried']} |")
            print(f"| two, one killed halfway | {killed['done']} | {rate(killed):.2f} | {killed['lost']} | {killed['retried']} |")
            ratio = rate(double) / rate(single)
            print(f"\ntwo replicas / one: {ratio:.2f}x (target >= 1.8x with the cores for both: "
                  f"{'met' if ratio >= 1.8 else 'not met'}); requests lost when one was killed: {killed['lost']}")
    finally:
        for process in servers:
            if process.poll() is None:
                process.terminate()
                process.wait()
        database.stop()


if __name__ == "__main__":
    main()
