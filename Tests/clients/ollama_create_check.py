#!/usr/bin/env python3
"""The official `ollama` package, unchanged, making models on a running `runanywhere serve`.

Run by the CLI tests (`make test`) with the project venv's Python, against a server whose models
folder is the test's own:
    ollama_create_check.py --base-url http://127.0.0.1:PORT --gguf FILE
Checks, through `ollama.Client(host=…)`: a GGUF file uploaded with `create_blob` and made into a
model with `create(files=…)`, whole and streamed; the model listed, shown and answering; `copy`,
and the copy still answering once the original is deleted; `create(from_=…)`, and with what a
Modelfile adds (`system`, `parameters`, `messages`, `license`), shown by `show` and applied to a
generation that sets nothing; `create(quantize=…)` of the F16 upload, shown as Q8_0 and answering,
streamed with its progress, and a quantized model refused as a source (a status, streamed or not); with `--adapter`, a LoRA adapter uploaded and kept by a model made
from `--adapter-base` (`create(adapters=…)`), named by its shown Modelfile and changing its greedy
answer, and refused for a model it does not fit; and as `ResponseError`s with their status: an
upload whose bytes are not its digest, a file never uploaded, what a model here cannot keep
(`template`), a name taken, a copy of a model that does not exist.
Every answer the client reads is also checked against the server's OpenAPI document.
Prints one JSON object of what it saw and exits 1 with the failed checks listed.
"""
import argparse
import importlib.metadata
import json
import shutil
import sys
import tempfile

import ollama

from openapi_validation import Document

failures = []
GREEDY = {"temperature": 0, "num_thread": 1, "num_predict": 2}


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def refused(call, status, words):
    """Whether `call` raises a ResponseError with `status` whose message has `words`."""
    try:
        call()
    except ollama.ResponseError as error:
        return check(error.status_code == status and words in error.error, f"refused with {error.status_code} {error.error}")
    return check(False, f"not refused: expected {status} ({words})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True, help="the server's root, e.g. http://127.0.0.1:8080")
    parser.add_argument("--gguf", required=True, help="a small GGUF language model to upload")
    parser.add_argument("--adapter", help="a LoRA adapter GGUF made for --adapter-base")
    parser.add_argument("--adapter-base", help="an installed model the adapter fits")
    arguments = parser.parse_args()
    root = arguments.base_url.rstrip("/")
    transport = Document(root).checked_transport()
    client = ollama.Client(host=root, timeout=300, transport=transport)
    seen = {}

    digest = client.create_blob(arguments.gguf)
    made = client.create(model="uploaded", files={"uploaded.gguf": digest})
    check(made.status == "success", f"create: {made}")
    names = [entry.model for entry in client.list().models]
    check("uploaded:latest" in names, f"the new model is listed: {names}")
    shown = client.show("uploaded")
    check("completion" in (shown.capabilities or []) and shown.details.format == "gguf", f"show {shown.capabilities} {shown.details}")
    answer = client.generate(model="uploaded", prompt="Hello", options=GREEDY)
    check(answer.done and answer.eval_count > 0, f"the new model answers: {answer}")
    seen["uploaded"] = {"eval_count": answer.eval_count}

    # The same bytes again, streamed: the steps as lines, ending with success.
    digest_again = client.create_blob(arguments.gguf)
    steps = [part.status for part in client.create(model="streamed", files={"streamed.gguf": digest_again}, stream=True)]
    check(steps[-1:] == ["success"], f"streamed create: {steps}")

    check(client.copy("uploaded", "copied").status == "success", "copy")
    check(client.delete("uploaded").status == "success", "delete the original")
    copy = client.generate(model="copied", prompt="Hello", options=GREEDY)
    check(copy.done and copy.eval_count > 0, f"the copy answers after its original is gone: {copy}")
    check(client.create(model="derived", from_="copied").status == "success", "create from a model")
    briefer = client.create(
        model="briefer", from_="copied", system="Be brief.", parameters={"num_predict": 1, "temperature": 0, "stop": ["\n\n"]},
        messages=[{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}], license="MIT")
    check(briefer.status == "success", f"create with a Modelfile's settings: {briefer}")
    shown = client.show("briefer")
    # This client's ShowResponse has no `system` field: the Modelfile shows it.
    check('SYSTEM """Be brief."""' in (shown.modelfile or "") and shown.license == "MIT", f"show: {shown.modelfile!r} {shown.license!r}")
    check("num_predict 1" in (shown.parameters or ""), f"show parameters: {shown.parameters}")
    brief = client.chat(model="briefer", messages=[{"role": "user", "content": "Tell me a long story."}], options={"num_thread": 1})
    check(brief.eval_count == 1 and brief.done_reason == "length", f"the model's num_predict bounds a chat: {brief}")
    plain = client.chat(model="copied", messages=[{"role": "user", "content": "Tell me a long story."}], options={"num_predict": 1})
    check(brief.prompt_eval_count > plain.prompt_eval_count, f"its system prompt and messages are read: {brief.prompt_eval_count} vs {plain.prompt_eval_count}")
    seen["briefer"] = {"prompt_eval_count": brief.prompt_eval_count, "without": plain.prompt_eval_count}

    small = client.create(model="small", from_="copied", quantize="q8_0")
    check(small.status == "success", f"create with quantize: {small}")
    level = client.show("small").details.quantization_level
    check(level == "Q8_0", f"the quantized model's level: {level}")
    answer = client.generate(model="small", prompt="Hello", options=GREEDY)
    check(answer.done and answer.eval_count > 0, f"the quantized model answers: {answer}")
    seen["small"] = {"quantization_level": level, "eval_count": answer.eval_count}
    refused(lambda: client.create(model="smaller", from_="small", quantize="q4_0"), 400, "quantized already")
    # Streamed (the ollama CLI's way): a refusal is still a status, and the progress comes as lines.
    refused(lambda: list(client.create(model="smaller", from_="small", quantize="q4_0", stream=True)), 400, "quantized already")
    parts = list(client.create(model="smaller", from_="copied", quantize="q4_0", stream=True))
    statuses = [part.status for part in parts]
    counted = [part for part in parts if part.total]
    check(statuses[-1:] == ["success"] and "quantizing F16 model to Q4_0" in statuses, f"streamed quantize: {statuses}")
    check(counted and counted[-1].completed == counted[-1].total, f"its progress reaches the last tensor: {counted[-1:]}")
    seen["smaller"] = {"progress_lines": len(counted), "tensors": counted[-1].total if counted else None}
    refused(lambda: client.create(model="iq", from_="copied", quantize="iq2_xxs"), 400, "Q4_K_M")

    if arguments.adapter:
        adapter = client.create_blob(arguments.adapter)
        # Refused first (the upload stays), for the uploaded model it was not made for; then kept.
        refused(lambda: client.create(model="mistoned", from_="copied", adapters={"tone.gguf": adapter}), 400, "LoRA adapter tone.gguf")
        toned = client.create(model="toned", from_=arguments.adapter_base, adapters={"tone.gguf": adapter})
        check(toned.status == "success", f"create with an adapter: {toned}")
        shown = client.show("toned")
        check("\nADAPTER " in (shown.modelfile or "") and "tone.gguf" in shown.modelfile, f"show: {shown.modelfile!r}")
        colours = {"temperature": 0, "num_thread": 1, "num_predict": 8}
        own = client.generate(model="toned", prompt="Name three colours.", options=colours)
        base = client.generate(model=arguments.adapter_base, prompt="Name three colours.", options=colours)
        check(own.response != base.response, f"the adapter changes the answer: {own.response!r} vs {base.response!r}")
        seen["toned"] = {"answer": own.response, "base": base.response}
        client.delete("toned")

    with tempfile.TemporaryDirectory() as folder:
        changed = f"{folder}/changed.gguf"
        shutil.copyfile(arguments.gguf, changed)
        with open(changed, "r+b") as file:
            file.seek(-1, 2)
            last = file.read(1)
            file.seek(-1, 2)
            file.write(bytes([last[0] ^ 1]))
        refused(lambda: client._request_raw("POST", f"/api/blobs/{digest}", content=open(changed, "rb").read()), 400, "digest mismatch")
    refused(lambda: client.create(model="missing", files={"missing.gguf": "sha256:" + "0" * 64}), 400, "upload the file first")
    refused(lambda: client.create(model="templated", from_="copied", template="{{ .Prompt }}"), 400, "template")
    refused(lambda: client.create(model="copied", from_="derived"), 409, "already exists")
    refused(lambda: client.copy("nothing-here", "x"), 404, "not found")
    for name in ["streamed", "copied", "derived", "briefer", "small", "smaller"]:
        client.delete(name)
    names = [entry.model for entry in client.list().models]
    check(not {"uploaded:latest", "streamed:latest", "copied:latest", "derived:latest", "briefer:latest", "small:latest", "smaller:latest"} & set(names), f"all deleted: {names}")
    seen.update(transport.report(check))
    print(json.dumps({"ollama": importlib.metadata.version("ollama"), "seen": seen, "failures": failures}, indent=2, default=str))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
