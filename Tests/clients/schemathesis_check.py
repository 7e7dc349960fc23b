#!/usr/bin/env python3
"""Property-based test of a running `runanywhere serve` against its own OpenAPI document.

schemathesis (installed by scripts/setup into the venv this runs with) reads `GET /openapi.json`
and sends generated requests, valid and invalid (`--mode all`), to every operation below that
neither downloads nor runs long jobs, checking each answer: no 5xx (`not_a_server_error`), a
status the document lists for the operation, a Content-Type it lists, and a body that matches its
schema (newline-delimited JSON line by line, through schemathesis_hooks.py) and names no field the
document leaves out (`answers_as_documented`, also there), and that a request
generated as valid is not refused as malformed unless for a rule the document cannot state
(`valid_requests_accepted`, also in schemathesis_hooks.py). Then `GET /health`
must still answer 200. The run is bounded (examples per operation,
one worker) and seeded, so a failure can be reproduced by running this script again with the same
`--seed` against a server started the same way.

Exit status: 0 when schemathesis found nothing and the server still answers; otherwise 1 (the
report above says what failed and how to reproduce it with curl).

Usage: schemathesis_check.py --base-url http://127.0.0.1:PORT [--max-examples N] [--seed N]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

# The operations not tested, each with why. Everything else in the document is.
EXCLUDED = {
    # Registers a model from a URL: the next thing it invites is a download, and entries it adds
    # would land in the models folder set-up shares with the other tests.
    "POST /api/models": "adds a model from a URL",
    # Downloads a model (or fails after DNS time-outs: the test machine has no network).
    "POST /api/models/{id}/pull": "downloads a model",
    # Deletes a model's files; the fuzzer learns real ids from GET /api/models, and the files are
    # set-up's shared ones (the default model every other test uses).
    "DELETE /api/models/{id}": "deletes the shared installed models",
    # ollama's pull and delete: the same download and deletion under ollama's names.
    "POST /api/pull": "downloads a model",
    "DELETE /api/delete": "deletes the shared installed models",
    # ollama's create and copy: new models in the shared models folder (OllamaCreateRouteTests and
    # CLIOllamaServeTests make them in folders of their own).
    "POST /api/create": "adds models to the shared models folder",
    "POST /api/copy": "adds models to the shared models folder",
    # Benchmarks every installed model of the categories: minutes of work.
    "POST /api/benchmarks": "runs a benchmark",
    # Speech synthesis of up to 10,000 characters with the installed Piper voice: minutes.
    "POST /v1/audio/speech": "voice generation",
    # A voice turn: speech recognition, an answer from the language model, then speech.
    "POST /api/voice": "voice generation",
    # Loads the vision-language model and generates a description.
    "POST /api/vision/describe": "vision generation",
    # Diffusion: an image per request (up to 4, 150 steps, 2048x2048).
    "POST /v1/images/generations": "image generation",
    "POST /api/vision/imagine": "image generation",
    # Makes an API key: from then on every request needs one, and the rest of the run would
    # test nothing but 401s (APIKeyRouteTests make and use keys).
    "POST /api/keys": "makes the server require keys",
}

# What each answer is checked for. answers_as_documented (schemathesis_hooks.py) checks each answer
# against the document closed to other fields. valid_requests_accepted (schemathesis_hooks.py) is
# schemathesis's positive_data_acceptance with the refusals JSON Schema cannot state listed: a
# request the document calls valid must not be refused as malformed for anything else. The others
# schemathesis has need more than the document gives (negative_data_rejection: every constraint
# enforced by the route, such as a message list ending with the user's; ignored_auth: a server
# started with an API key).
CHECKS = [
    "not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance", "answers_as_documented",
    "valid_requests_accepted",
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="the server's root, e.g. http://127.0.0.1:8080")
    parser.add_argument("--max-examples", type=int, default=30, help="generated requests per operation and phase")
    parser.add_argument("--seed", type=int, default=38, help="the generation's seed")
    parser.add_argument("--request-timeout", type=float, default=60, help="seconds one request may take")
    arguments = parser.parse_args()
    root = arguments.base_url.rstrip("/")

    command = [
        os.path.join(os.path.dirname(sys.executable), "st"), "--no-color", "run", f"{root}/openapi.json",
        "--url", root,  # the document names port 8080; the server under test listens elsewhere
        "--checks", ",".join(CHECKS),
        "--mode", "all",
        "--phases", "examples,coverage,fuzzing,stateful",
        "--max-examples", str(arguments.max_examples),
        "--seed", str(arguments.seed),
        "--workers", "1",
        "--request-timeout", str(arguments.request_timeout),
        "--generation-database", "none",  # the same requests every run: nothing replayed from earlier ones
        "--suppress-health-check", "too_slow,filter_too_much",
    ]
    for name in EXCLUDED:
        command += ["--exclude-name", name]

    started = time.monotonic()
    print("$ " + " ".join(command), flush=True)
    # NDJSON answers (ollama's streams) checked line by line: schemathesis_hooks.py.
    environment = dict(os.environ, SCHEMATHESIS_HOOKS=os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemathesis_hooks.py"))
    with tempfile.TemporaryDirectory() as scratch:  # anything schemathesis writes stays out of the repo
        status = subprocess.run(command, cwd=scratch, env=environment).returncode
    print(f"schemathesis: exit status {status} after {time.monotonic() - started:.1f} s", flush=True)

    try:
        with urllib.request.urlopen(f"{root}/health", timeout=10) as response:
            healthy = response.status == 200
    except OSError as error:
        print(f"GET /health failed after the run: {error}")
        healthy = False
    if not healthy:
        print("the server no longer answers GET /health with 200")
    return 0 if status == 0 and healthy else 1


if __name__ == "__main__":
    sys.exit(main())
