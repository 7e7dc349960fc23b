#!/usr/bin/env python3
"""The official `ollama` package, unchanged, against a running `runanywhere serve`'s ollama API.

Run by the CLI tests (`make test`) with the project venv's Python:
    ollama_client_check.py --base-url http://127.0.0.1:PORT --model MODEL --embedding-model ID
                           [--vision-model VLM]   (images, base64)
Checks, through `ollama.Client(host=…)`: version, list, show and ps; chat whole and streamed
(greedy: the same text both ways), a system prompt, options (num_predict, stop, seed), format as
JSON and as a JSON schema, a tool call the model makes after a history of calls without ids (with
`tool_name` results) and its result sent back, generate whole, streamed and raw, load and unload
(keep_alive 0), embed and embeddings, pull of an installed model, and errors as `ResponseError`
with the status; then each route's raw answer (whole, as lines, errors) against the server's
OpenAPI document (openapi_validation.py), as is every answer the client itself reads.
Prints one JSON object of what it saw and exits 1 with the failed checks listed.
"""
import argparse
import importlib.metadata
import json
import sys
import urllib.error
import urllib.request

import ollama

from openai_client_check import png
from openapi_validation import Document

failures = []
GREEDY = {"temperature": 0, "num_thread": 1}


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def get_weather(city: str) -> str:
    """Get the current weather in a city.

    Args:
      city: The city name
    """
    return "Sunny, 24 degrees."


def check_chat(client, model):
    seen = {}
    question = [{"role": "system", "content": "You answer in one short sentence."},
                {"role": "user", "content": "What colour is the sky on a clear day?"}]
    whole = client.chat(model=model, messages=question, options=dict(GREEDY, num_predict=12), stream=False)
    seen["whole"] = whole.message.content
    check(whole.done and whole.done_reason in ("stop", "length"), f"done {whole.done} {whole.done_reason}")
    check(whole.message.role == "assistant" and bool(whole.message.content.strip()), f"message {whole.message}")
    check(whole.eval_count and whole.eval_count <= 12 and whole.prompt_eval_count > 10, f"counts {whole.eval_count} {whole.prompt_eval_count}")
    check(whole.total_duration >= whole.eval_duration > 0, f"durations {whole.total_duration} {whole.eval_duration}")
    parts = list(client.chat(model=model, messages=question, options=dict(GREEDY, num_predict=12), stream=True))
    streamed = "".join(part.message.content for part in parts)
    check(len(parts) > 2 and all(not part.done for part in parts[:-1]) and parts[-1].done, f"{len(parts)} parts, the last done")
    check(streamed == whole.message.content, f"streamed {streamed!r}, whole {whole.message.content!r}")
    check(parts[-1].eval_count == whole.eval_count, f"streamed eval_count {parts[-1].eval_count}")

    cut = client.chat(model=model, messages=question, options=dict(GREEDY, num_predict=3))
    check(cut.done_reason == "length" and cut.eval_count == 3, f"num_predict 3: {cut.done_reason} {cut.eval_count}")
    # Seeded sampling repeats itself.
    seeded = [client.chat(model=model, messages=question, options={"num_predict": 8, "seed": 42, "temperature": 1.0, "num_thread": 1}).message.content for _ in range(2)]
    check(seeded[0] == seeded[1], f"seeded answers differ: {seeded}")

    schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]}
    person = client.chat(model=model, messages=[{"role": "user", "content": "Invent a person: name and age."}], format=schema, options=dict(GREEDY, num_predict=40))
    try:
        value = json.loads(person.message.content)
        check(isinstance(value.get("name"), str) and isinstance(value.get("age"), int), f"format schema: {value}")
    except ValueError:
        check(False, f"format schema gave no JSON: {person.message.content!r}")
    seen["format"] = person.message.content
    anything = client.chat(model=model, messages=[{"role": "user", "content": 'Reply with only {"name": "<a cat name>"}.'}], format="json", options=dict(GREEDY, num_predict=60))
    try:
        check(isinstance(json.loads(anything.message.content), dict), "format json is no object")
    except ValueError:
        check(False, f"format json gave no JSON: {anything.message.content!r}")

    # Two earlier turns in which the model called the tool (ollama's clients send calls without ids and
    # results naming the tool): the small model calls it again, greedily.
    history = []
    for city, weather in [("Oslo", "Rain, 8 degrees."), ("Rome", "Sunny, 24 degrees.")]:
        history += [{"role": "user", "content": f"What is the weather in {city}?"},
                    {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": city}}}]},
                    {"role": "tool", "tool_name": "get_weather", "content": weather},
                    {"role": "assistant", "content": f"In {city}: {weather}"}]
    ask = history + [{"role": "user", "content": "What is the weather in Paris?"}]
    called = client.chat(model=model, messages=ask, tools=[get_weather], options=dict(GREEDY, num_predict=48))
    calls = called.message.tool_calls or []
    seen["tool_calls"] = [call.model_dump() for call in calls]
    if check(len(calls) == 1 and calls[0].function.name == "get_weather", f"tool call: {called.message}"):
        check(isinstance(calls[0].function.arguments, dict) and isinstance(calls[0].function.arguments.get("city"), str), f"arguments {calls[0].function.arguments}")
        streamed_calls = [call for part in client.chat(model=model, messages=ask, tools=[get_weather], options=dict(GREEDY, num_predict=48), stream=True)
                          for call in (part.message.tool_calls or [])]
        check([c.function.arguments for c in streamed_calls] == [calls[0].function.arguments], f"streamed calls {streamed_calls}")
        answer = client.chat(model=model, tools=[get_weather], options=dict(GREEDY, num_predict=12), messages=ask + [
            called.message, {"role": "tool", "tool_name": "get_weather", "content": get_weather(**calls[0].function.arguments)}])
        seen["tool_answer"] = answer.message.content
        check(answer.prompt_eval_count > called.prompt_eval_count, "the tool result did not reach the prompt")
    return seen


def check_generate(client, model):
    seen = {}
    whole = client.generate(model=model, prompt="The capital of France is", options=dict(GREEDY, num_predict=8))
    seen["generate"] = whole.response
    check(whole.done and bool(whole.response.strip()), f"generate {whole}")
    streamed = "".join(part.response for part in client.generate(model=model, prompt="The capital of France is", options=dict(GREEDY, num_predict=8), stream=True))
    check(streamed == whole.response, f"streamed {streamed!r}, whole {whole.response!r}")
    raw = client.generate(model=model, prompt="The capital of France is", raw=True, options=dict(GREEDY, num_predict=8))
    seen["raw"] = raw.response
    check(raw.prompt_eval_count < whole.prompt_eval_count, f"raw read the chat template: {raw.prompt_eval_count} vs {whole.prompt_eval_count}")
    stopped = client.generate(model=model, prompt="Count: one, two, three, four,", raw=True, options=dict(GREEDY, num_predict=12, stop=["six"]))
    check("six" not in stopped.response, f"stop: {stopped.response!r}")
    # min_p 1 leaves only the most likely token, so a hot unseeded draw writes the greedy answer; a
    # presence penalty past any logit keeps the prompt's repeated word out of the answer.
    hot = client.generate(model=model, prompt="The capital of France is", options={"num_predict": 8, "temperature": 1.8, "top_k": 0, "min_p": 1.0, "num_thread": 1})
    check(hot.response == whole.response, f"min_p 1 at temperature 1.8: {hot.response!r}, greedy {whole.response!r}")
    echo = client.generate(model=model, prompt="the the the the the the the the", raw=True, options=dict(GREEDY, num_predict=6))
    penalized = client.generate(model=model, prompt="the the the the the the the the", raw=True, options=dict(GREEDY, num_predict=6, presence_penalty=100))
    check("the" in echo.response and penalized.response != echo.response, f"presence_penalty: {echo.response!r} / {penalized.response!r}")
    # logprobs and top_logprobs, the client's own parameters: each answer token's, whole and line by line, the greedy token the likeliest.
    scored = client.generate(model=model, prompt="The capital of France is", options=dict(GREEDY, num_predict=6), logprobs=True, top_logprobs=2)
    tokens = scored.logprobs or []
    check("".join(token.token for token in tokens) == scored.response, f"logprobs {tokens} for {scored.response!r}")
    check(all(len(token.top_logprobs) == 2 and token.top_logprobs[0].token == token.token and token.logprob <= 0 for token in tokens),
          f"top_logprobs {tokens}")
    lines = list(client.chat(model=model, messages=[{"role": "user", "content": "Name three colours."}], options=dict(GREEDY, num_predict=6),
                             logprobs=True, stream=True))
    check(all(bool(line.logprobs) for line in lines if line.message.content), f"a streamed piece without its logprobs: {lines}")
    check("".join(token.token for line in lines for token in line.logprobs or []) == "".join(line.message.content for line in lines),
          "the streamed logprobs' tokens are not the streamed text")
    seen["logprobs"] = [[token.token, round(token.logprob, 4)] for token in tokens]

    loaded = client.generate(model=model, prompt="", keep_alive="2m")
    check(loaded.done_reason == "load", f"empty prompt: {loaded.done_reason}")
    check(any(entry.model == f"{model}:latest" for entry in client.ps().models), "not in ps after the load")
    unloaded = client.generate(model=model, keep_alive=0)
    check(unloaded.done_reason == "unload", f"keep_alive 0: {unloaded.done_reason}")
    check(all(entry.model != f"{model}:latest" for entry in client.ps().models), "still in ps after the unload")
    return seen


def check_infill(client, base_url, infill_model, model):
    """suffix: the gap between prompt and suffix filled in by a code model (the fill-in-the-middle fixture, random weights: its
    text is noise), as ollama's suffix does, whole and streamed alike, raw or not; its prompt the prefix's and the suffix's tokens
    and the three marks; refused for a model with no fill-in-the-middle tokens. show names the code model's "insert" capability,
    as editors look for it, and not the other's."""
    prefix, suffix = "def area(r):\n    return ", "\n\nprint(area(2))\n"
    capabilities = client.show(infill_model).capabilities or []
    check("insert" in capabilities and "completion" in capabilities, f"the code model's capabilities {capabilities}")
    check("insert" not in (client.show(model).capabilities or []), "a model without fill-in-the-middle tokens shows insert")

    def count(text):
        body = json.dumps({"content": text, "add_special": False, "parse_special": False, "model": infill_model}).encode()
        request = urllib.request.Request(f"{base_url}/tokenize", body, {"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return len(json.load(response)["tokens"])

    whole = client.generate(model=infill_model, prompt=prefix, suffix=suffix, options=dict(GREEDY, num_predict=4))
    check(whole.done and whole.prompt_eval_count == count(prefix) + count(suffix) + 3, f"infill {whole}")
    streamed = "".join(part.response for part in client.generate(model=infill_model, prompt=prefix, suffix=suffix, options=dict(GREEDY, num_predict=4), stream=True))
    check(streamed == whole.response, f"streamed infill {streamed!r}, whole {whole.response!r}")
    raw = client.generate(model=infill_model, prompt=prefix, suffix=suffix, raw=True, options=dict(GREEDY, num_predict=4))
    check(raw.prompt_eval_count == whole.prompt_eval_count, f"raw infill read {raw.prompt_eval_count} tokens")
    try:
        client.generate(model=model, prompt=prefix, suffix=suffix, options=dict(GREEDY, num_predict=4))
        check(False, "a model without fill-in-the-middle tokens took a suffix")
    except ollama.ResponseError as error:
        check(error.status_code == 400 and "fill in the middle" in error.error, f"suffix refused with {error.status_code} {error.error}")
    return {"infill": whole.response}


def check_models(client, base_url, model, embedding_model):
    with urllib.request.urlopen(f"{base_url}/api/version", timeout=30) as response:  # the client has no call for it
        seen = {"version": json.load(response)["version"]}
    # Clients compare it with their minimum ollama release (0.6.5 is one such), so it is ollama's.
    check(tuple(int(part) for part in seen["version"].split(".")) >= (0, 6, 5), f"version {seen['version']}")
    names = [entry.model for entry in client.list().models]
    seen["list"] = names
    check(f"{model}:latest" in names and f"{embedding_model}:latest" in names, f"list {names}")
    entry = next((entry for entry in client.list().models if entry.model == f"{model}:latest"), None)
    if check(entry is not None, "the model is not listed"):
        check(entry.size > 0 and len(entry.digest) == 64 and entry.details.format == "gguf" and entry.details.family, f"entry {entry}")
    shown = client.show(model)
    check("completion" in (shown.capabilities or []) and shown.details.quantization_level, f"show {shown.capabilities} {shown.details}")
    check(bool(shown.template) and "general.architecture" in (shown.modelinfo or {}), "show: template or model_info missing")
    check("embedding" in (client.show(embedding_model).capabilities or []), "the embedding model's capabilities")
    progress = [part.status for part in client.pull(model, stream=True)]
    check(progress[:1] == ["pulling manifest"] and progress[-1:] == ["success"], f"pull of an installed model: {progress}")
    check(client.pull(model).status == "success", "pull without stream")
    for call, name in [(lambda: client.show("no-such-model"), "show"), (lambda: client.chat(model="no-such-model", messages=[{"role": "user", "content": "x"}]), "chat"),
                       (lambda: client.pull("no-such-model"), "pull"), (lambda: client.delete("no-such-model"), "delete")]:
        try:
            call()
            check(False, f"{name} of an unknown model succeeded")
        except ollama.ResponseError as error:
            check(error.status_code == 404 and "no-such-model" in error.error, f"{name}: {error.status_code} {error.error}")
    try:
        client.chat(model=model, messages=[{"role": "user", "content": "x"}], options={"num_predict": 0})
        check(False, "num_predict 0 accepted")
    except ollama.ResponseError as error:
        check(error.status_code == 400 and "num_predict" in error.error, f"num_predict 0: {error.status_code} {error.error}")
    return seen


def check_embeddings(client, model):
    texts = ["The cat sat on the mat.", "A feline rested on the rug.", "Stock prices fell sharply."]
    embedded = client.embed(model=model, input=texts)
    vectors = embedded.embeddings
    check(len(vectors) == 3 and all(len(vector) == 384 for vector in vectors), f"embed shape {len(vectors)}")
    check(embedded.prompt_eval_count > 10, f"prompt_eval_count {embedded.prompt_eval_count}")
    dot = lambda a, b: sum(x * y for x, y in zip(a, b))
    check(abs(dot(vectors[0], vectors[0]) - 1) < 1e-3, "vectors are not normalized")
    check(dot(vectors[0], vectors[1]) > dot(vectors[0], vectors[2]), "the paraphrase is not nearer than the unrelated sentence")
    one = client.embed(model=model, input=texts[0]).embeddings
    check(len(one) == 1 and max(abs(x - y) for x, y in zip(one[0], vectors[0])) < 1e-4, "one text embeds as in a batch")
    legacy = client.embeddings(model=model, prompt=texts[0]).embedding
    check(len(legacy) == 384 and max(abs(x - y) for x, y in zip(legacy, vectors[0])) < 1e-4, "/api/embeddings gives the same vector")
    long_text = "word " * 2000
    check(len(client.embed(model=model, input=long_text).embeddings) == 1, "a long text is cut by default")
    try:
        client.embed(model=model, input=long_text, truncate=False)
        check(False, "truncate=False accepted a text longer than the model reads")
    except ollama.ResponseError as error:
        check(error.status_code == 400, f"truncate=False: {error.status_code} {error.error}")
    return {"embed": {"count": len(vectors), "dimensions": len(vectors[0]) if vectors else 0}}


def check_documented(document, base_url, model, embedding_model):
    """Each ollama route's raw answer, whole and as lines, and its errors, as the server's OpenAPI `document` describes them."""
    chat = {"model": model, "messages": [{"role": "user", "content": "Hi"}], "options": dict(GREEDY, num_predict=4)}
    requests = [
        ("POST", "/api/chat", dict(chat, stream=False)), ("POST", "/api/chat", chat),
        ("POST", "/api/generate", {"model": model, "prompt": "Hi", "options": dict(GREEDY, num_predict=4)}),
        ("POST", "/api/generate", {"model": model, "prompt": "Hi", "stream": False, "options": dict(GREEDY, num_predict=4)}),
        ("POST", "/api/chat", {"model": model, "messages": []}),
        ("POST", "/api/embed", {"model": embedding_model, "input": ["a", "b"]}), ("POST", "/api/embeddings", {"model": embedding_model, "prompt": "a"}),
        ("GET", "/api/tags", None), ("GET", "/api/ps", None), ("POST", "/api/show", {"model": model}), ("GET", "/api/version", None),
        ("POST", "/api/pull", {"model": model}), ("POST", "/api/pull", {"model": model, "stream": False}),
        ("POST", "/api/chat", {"model": "no-such-model", "messages": [{"role": "user", "content": "x"}]}),
        ("POST", "/api/chat", {"model": model, "messages": [{"role": "user", "content": "x"}], "options": {"num_predict": 0}}),
        ("POST", "/api/show", {}), ("DELETE", "/api/delete", {"model": "no-such-model"}),
    ]
    checked = 0
    for method, path, body in requests:
        request = urllib.request.Request(f"{base_url}{path}", method=method, data=None if body is None else json.dumps(body).encode(),
                                         headers={} if body is None else {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                status, content_type, data = response.status, response.headers["Content-Type"], response.read()
        except urllib.error.HTTPError as error:
            status, content_type, data = error.code, error.headers["Content-Type"], error.read()
        for problem in document.check(method, path, status, content_type or "", data):
            check(False, problem)
        checked += 1
    return {"documented": checked}


def check_vision(client, vision_model, text_model):
    red = png(96, 64, (255, 0, 0))
    with_image = [{"role": "user", "content": "What colour is this?", "images": [red]}]
    whole = client.chat(model=vision_model, messages=with_image, options=dict(GREEDY, num_predict=6))
    without = client.chat(model=vision_model, messages=[{"role": "user", "content": "What colour is this?"}], options=dict(GREEDY, num_predict=6))
    check(whole.prompt_eval_count > without.prompt_eval_count, f"the image added no tokens: {whole.prompt_eval_count} vs {without.prompt_eval_count}")
    described = client.generate(model=vision_model, prompt="Describe this.", images=[red], options=dict(GREEDY, num_predict=6))
    check(described.eval_count > 0, "no description from generate with an image")
    try:
        client.chat(model=text_model, messages=with_image, options=dict(GREEDY, num_predict=4))
        check(False, "a text model accepted an image")
    except ollama.ResponseError as error:
        check(error.status_code == 400, f"a text model given an image: {error.status_code} {error.error}")
    return {"vision": {"prompt_eval_count": whole.prompt_eval_count}}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True, help="the server's root, e.g. http://127.0.0.1:8080")
    parser.add_argument("--model", required=True)
    parser.add_argument("--embedding-model", required=True)
    parser.add_argument("--vision-model", help="a vision-language model, for images")
    parser.add_argument("--infill-model", help="a code model, for fill-in-the-middle (suffix)")
    arguments = parser.parse_args()
    document = Document(arguments.base_url.rstrip("/"))
    transport = document.checked_transport()  # every answer the client reads also checked against the document
    client = ollama.Client(host=arguments.base_url.rstrip("/"), timeout=300, transport=transport)
    seen = {}
    seen.update(check_models(client, arguments.base_url.rstrip("/"), arguments.model, arguments.embedding_model))
    seen.update(check_chat(client, arguments.model))
    seen.update(check_generate(client, arguments.model))
    seen.update(check_embeddings(client, arguments.embedding_model))
    seen.update(check_documented(document, arguments.base_url.rstrip("/"), arguments.model, arguments.embedding_model))
    if arguments.vision_model:
        seen.update(check_vision(client, arguments.vision_model, arguments.model))
    if arguments.infill_model:
        seen.update(check_infill(client, arguments.base_url.rstrip("/"), arguments.infill_model, arguments.model))
    seen.update(transport.report(check))
    print(json.dumps({"ollama": importlib.metadata.version("ollama"), "seen": seen, "failures": failures}, indent=2, default=str))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
