#!/usr/bin/env python3
"""The official `anthropic` package, unchanged, against a running `runanywhere serve`'s Messages API.

Run by the CLI tests (`make test`) with the project venv's Python:
    anthropic_client_check.py --base-url http://127.0.0.1:PORT --model MODEL [--check all|auth] [--api-key KEY]
                              [--vision-model VLM]   (image blocks, base64)
With --check all (a server without a key): messages.create whole and streamed (messages.stream's
text_stream and get_final_message, and the raw events of stream=True in Anthropic's order), a system
prompt, stop_sequences, max_tokens, a tool call forced with tool_choice and its result sent back,
count_tokens, and errors as the client's typed exceptions. With --check auth (a server started with
--api-key KEY): the key accepted as x-api-key and as a bearer token, and refused when wrong.
With --check all, every answer the client reads is also checked against the server's OpenAPI
document as the client reads it, streams event by event (openapi_validation.py).
Prints one JSON object of what it saw and exits 1 with the failed checks listed.
"""
import argparse
import base64
import json
import os
import sys
import tempfile
import urllib.error
import urllib.request

import anthropic
import httpx2
from anthropic import Anthropic

from openai_client_check import png
from openapi_validation import Document

failures = []
# The current client has no sampling arguments (temperature, top_p, top_k); older ones and other
# clients send them in the body, and so does this one through extra_body: greedy, for answers that repeat.
GREEDY = {"temperature": 0}



def prompt_tokens(usage):
    """The prompt's tokens as Anthropic counts them: input_tokens are those read now, the cache's apart."""
    return usage.input_tokens + (usage.cache_read_input_tokens or 0) + (usage.cache_creation_input_tokens or 0)

def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def client_for(base_url, **options):
    """A client that reads no credentials or settings of this machine: only what it is given."""
    return Anthropic(base_url=base_url, max_retries=0, timeout=300, **options)


def text_of(message):
    return "".join(block.text for block in message.content if block.type == "text")


def check_all(client, model):
    seen = {}
    system = "You answer in one short sentence."
    question = [{"role": "user", "content": "What colour is the sky on a clear day?"}]

    # Whole and streamed, greedy: the same text both ways.
    whole = client.messages.create(model=model, max_tokens=12, extra_body=GREEDY, system=system, messages=question)
    seen["whole"] = text_of(whole)
    check(whole.type == "message" and whole.role == "assistant", f"type/role {whole.type}/{whole.role}")
    check(whole.id.startswith("msg_"), f"id {whole.id}")
    check(whole.model == model, f"model {whole.model}")
    check(bool(seen["whole"].strip()), "the answer is empty")
    check(whole.stop_reason in ("end_turn", "max_tokens"), f"stop_reason {whole.stop_reason}")
    check(1 <= whole.usage.output_tokens <= 12, f"output_tokens {whole.usage.output_tokens}")
    check(prompt_tokens(whole.usage) > 10, f"prompt tokens {whole.usage}")

    with client.messages.stream(model=model, max_tokens=12, extra_body=GREEDY, system=system, messages=question) as stream:
        streamed = "".join(stream.text_stream)
        final = stream.get_final_message()
    seen["stream"] = streamed
    check(streamed == seen["whole"], f"streamed {streamed!r} != whole {seen['whole']!r}")
    check(text_of(final) == streamed, "get_final_message's text is not the streamed text")
    check(final.stop_reason == whole.stop_reason, f"streamed stop_reason {final.stop_reason}")
    check(final.usage.output_tokens == whole.usage.output_tokens, f"streamed output_tokens {final.usage.output_tokens}")
    check(prompt_tokens(final.usage) == prompt_tokens(whole.usage), f"streamed usage {final.usage}, whole {whole.usage}")

    # The raw events, in Anthropic's order (the client drops the ping after message_start; the
    # names on the wire are checked below).
    events = list(client.messages.create(model=model, max_tokens=12, extra_body=GREEDY, system=system, messages=question, stream=True))
    kinds = [event.type for event in events]
    seen["events"] = kinds
    check(kinds[:1] == ["message_start"], f"the stream starts {kinds[:1]}")
    check(kinds[-2:] == ["message_delta", "message_stop"], f"the stream ends {kinds[-2:]}")
    blocks = kinds[1:-2]
    check(blocks[:1] == ["content_block_start"] and blocks[-1:] == ["content_block_stop"]
          and set(blocks[1:-1]) <= {"content_block_delta"}, f"the text block's events: {blocks}")
    deltas = [event.delta.text for event in events if event.type == "content_block_delta"]
    check("".join(deltas) == seen["whole"], "the text deltas do not make the answer")
    with client.messages.with_streaming_response.create(model=model, max_tokens=12, extra_body=GREEDY, system=system,
                                                        messages=question, stream=True) as response:
        names = [line.removeprefix("event:").strip() for line in response.iter_lines() if line.startswith("event:")]
    check(names == kinds[:1] + ["ping"] + kinds[1:], f"the events' names on the wire: {names}")
    start, delta = events[0], events[-2]
    check(start.message.content == [] and start.message.stop_reason is None, "message_start carries content or a stop reason")
    check(delta.delta.stop_reason == whole.stop_reason, f"message_delta stop_reason {delta.delta.stop_reason}")
    check(delta.usage.output_tokens == whole.usage.output_tokens, f"message_delta output_tokens {delta.usage.output_tokens}")

    # max_tokens reached.
    short = client.messages.create(model=model, max_tokens=2, extra_body=GREEDY, messages=[{"role": "user", "content": "Tell me a long story about a dragon."}])
    check(short.stop_reason == "max_tokens", f"max_tokens=2 stop_reason {short.stop_reason}")
    check(short.usage.output_tokens == 2, f"max_tokens=2 output_tokens {short.usage.output_tokens}")

    # A stop sequence: the greedy answer's second word ends it, named in stop_sequence.
    words = seen["whole"].split()
    if check(len(words) >= 2, f"too few words to test stop_sequences: {seen['whole']!r}"):
        stop = " " + words[1]
        stopped = client.messages.create(model=model, max_tokens=12, extra_body=GREEDY, system=system, messages=question, stop_sequences=[stop])
        seen["stopped"] = text_of(stopped)
        check(stopped.stop_reason == "stop_sequence", f"stop_sequences stop_reason {stopped.stop_reason}")
        check(stopped.stop_sequence == stop, f"stop_sequence {stopped.stop_sequence!r}")
        check(stop not in text_of(stopped) and seen["whole"].startswith(text_of(stopped)), f"text with a stop sequence: {text_of(stopped)!r}")

    # A tool call forced by tool_choice, then its result sent back.
    tools = [{
        "name": "get_weather", "description": "The current weather in a city.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }]
    ask = [{"role": "user", "content": "What is the weather in Paris?"}]
    called = client.messages.create(model=model, max_tokens=60, extra_body=GREEDY, messages=ask, tools=tools,
                                    tool_choice={"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True})
    uses = [block for block in called.content if block.type == "tool_use"]
    seen["tool_use"] = [block.model_dump() for block in uses]
    if check(called.stop_reason == "tool_use" and len(uses) == 1, f"tool call: {called.stop_reason}, {called.content}"):
        use = uses[0]
        check(use.name == "get_weather" and bool(use.id), f"tool_use block {use}")
        check(isinstance(use.input, dict) and isinstance(use.input.get("city"), str), f"tool_use input {use.input}")
        with client.messages.stream(model=model, max_tokens=60, extra_body=GREEDY, messages=ask, tools=tools,
                                    tool_choice={"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True}) as stream:
            streamed_call = stream.get_final_message()
        streamed_uses = [block for block in streamed_call.content if block.type == "tool_use"]
        check(streamed_call.stop_reason == "tool_use" and [b.input for b in streamed_uses] == [use.input],
              f"streamed tool call: {streamed_call.stop_reason}, {streamed_call.content}")
        answer = client.messages.create(model=model, max_tokens=12, extra_body=GREEDY, tools=tools, messages=ask + [
            {"role": "assistant", "content": called.content},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "Sunny, 24 degrees."}]},
        ])
        seen["tool_answer"] = text_of(answer)
        check(answer.stop_reason in ("end_turn", "max_tokens", "tool_use"), f"answer after the tool result: {answer.stop_reason}")
        check(prompt_tokens(answer.usage) > prompt_tokens(called.usage), "the tool result did not reach the prompt")

    # A forced tool with parallel use allowed: a small model tends to repeat its call; what comes
    # back are the complete calls, each once, and no text block holds the server's call markup.
    for streamed in (False, True):
        kwargs = dict(model=model, max_tokens=60, extra_body=GREEDY, messages=ask, tools=tools, tool_choice={"type": "tool", "name": "get_weather"})
        if streamed:
            with client.messages.stream(**kwargs) as stream:
                parallel = stream.get_final_message()
        else:
            parallel = client.messages.create(**kwargs)
        inputs = [json.dumps(b.input, sort_keys=True) for b in parallel.content if b.type == "tool_use"]
        texts = [b.text for b in parallel.content if b.type == "text"]
        check(parallel.stop_reason in ("tool_use", "max_tokens") and inputs and len(set(inputs)) == len(inputs)
              and not any("tool_calls" in t or "{" in t for t in texts), f"parallel tool use (streamed: {streamed}): {parallel}")

    # The models, as Anthropic's client reads them (the same path serves OpenAI's): its required fields, one page.
    listed = list(client.models.list())
    ours = [m for m in listed if m.id == model]
    check(len(ours) == 1 and ours[0].type == "model" and ours[0].display_name and ours[0].created_at.year >= 2024
          and sorted(listed, key=lambda m: m.created_at), f"models.list: {listed}")
    check(client.models.retrieve(model).display_name == ours[0].display_name if ours else False, "models.retrieve")
    seen["models"] = len(listed)

    # count_tokens: the prompt as the model reads it, the same count the answer reports.
    counted = client.messages.count_tokens(model=model, system=system, messages=question)
    seen["count_tokens"] = counted.input_tokens
    check(counted.input_tokens == prompt_tokens(whole.usage), f"count_tokens {counted.input_tokens} != the prompt's {whole.usage}")
    # Asked again, the prompt comes from the cache: Anthropic's input_tokens are only what was read now.
    again = client.messages.create(model=model, max_tokens=2, extra_body=GREEDY, system=system, messages=question)
    check(again.usage.cache_read_input_tokens > 0 and again.usage.input_tokens < counted.input_tokens
          and prompt_tokens(again.usage) == counted.input_tokens, f"the same prompt again: {again.usage}, count_tokens {counted.input_tokens}")
    with_tools = client.messages.count_tokens(model=model, messages=ask, tools=tools, tool_choice={"type": "tool", "name": "get_weather"})
    check(with_tools.input_tokens == prompt_tokens(called.usage), f"count_tokens with tools {with_tools.input_tokens} != {called.usage}")

    # Errors, as the client's typed exceptions with Anthropic's error types.
    try:
        client.messages.create(model="no-such-model", max_tokens=4, messages=question)
        check(False, "an unknown model was accepted")
    except anthropic.NotFoundError as error:
        check(error.body["type"] == "error" and error.body["error"]["type"] == "not_found_error", f"404 body {error.body}")
    for bad, why in [({"max_tokens": 0}, "max_tokens 0"), ({"messages": [{"role": "assistant", "content": "Hi"}]}, "a prefilled answer"),
                     ({"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "http://x/y.png"}}]}]}, "an image URL")]:
        arguments = {"model": model, "max_tokens": 4, "messages": question, **bad}
        try:
            client.messages.create(**arguments)
            check(False, f"{why} was accepted")
        except anthropic.BadRequestError as error:
            check(error.body["error"]["type"] == "invalid_request_error" and bool(error.body["error"]["message"]), f"{why}: 400 body {error.body}")
    return seen


def check_vision(client, vision_model, text_model):
    """A vision-language model reads an image block (base64), whole and streamed; count_tokens counts
    the image; a text model and an image URL are BadRequestErrors."""
    red = base64.b64encode(png(96, 64, (255, 0, 0))).decode()
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": red}}
    with_image = [{"role": "user", "content": [image, {"type": "text", "text": "What colour is this?"}]}]
    plain = [{"role": "user", "content": "What colour is this?"}]
    whole = client.messages.create(model=vision_model, max_tokens=6, extra_body=GREEDY, messages=with_image)
    without = client.messages.create(model=vision_model, max_tokens=6, extra_body=GREEDY, messages=plain)
    check(whole.usage.output_tokens > 0, "no answer about the image")
    check(prompt_tokens(whole.usage) > prompt_tokens(without.usage), f"the image added no tokens: {whole.usage} vs {without.usage}")
    with client.messages.stream(model=vision_model, max_tokens=6, extra_body=GREEDY, messages=with_image) as stream:
        streamed = "".join(stream.text_stream)
    check(streamed == text_of(whole), f"streamed {streamed!r}, whole {text_of(whole)!r}")
    counted = client.messages.count_tokens(model=vision_model, messages=with_image).input_tokens
    check(counted > client.messages.count_tokens(model=vision_model, messages=plain).input_tokens, f"count_tokens did not count the image: {counted}")
    try:
        client.messages.create(model=text_model, max_tokens=4, messages=with_image)
        check(False, "a text model accepted an image")
    except anthropic.BadRequestError as error:
        check(error.body["error"]["type"] == "invalid_request_error", f"a text model given an image: {error.body}")
    return {"vision": {"answer": text_of(whole), "input_tokens": prompt_tokens(whole.usage), "count_tokens": counted}}


def check_auth(base_url, model, key):
    seen = {}
    question = [{"role": "user", "content": "Say hi."}]

    def by_header(value):
        """A client sending the key as x-api-key only (its own Authorization header left out)."""
        return client_for(base_url, api_key="unused", default_headers={"x-api-key": value, "Authorization": anthropic.omit})

    seen["x-api-key"] = by_header(key).messages.count_tokens(model=model, messages=question).input_tokens
    seen["bearer"] = client_for(base_url, api_key=key).messages.count_tokens(model=model, messages=question).input_tokens
    check(seen["x-api-key"] == seen["bearer"] > 0, f"counts with the key: {seen}")
    for name, client in [("a wrong x-api-key", by_header(key + "x")), ("a wrong bearer key", client_for(base_url, api_key=key + "x"))]:
        try:
            client.messages.create(model=model, max_tokens=4, messages=question)
            check(False, f"{name} was accepted")
        except anthropic.AuthenticationError as error:
            check(error.body["type"] == "error" and error.body["error"]["type"] == "authentication_error", f"{name}: 401 body {error.body}")
    # No key at all (the client refuses to send a request without one, so a bare one).
    request = urllib.request.Request(f"{base_url}/v1/messages", data=b"{}", headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=30)
        check(False, "a request without a key was accepted")
    except urllib.error.HTTPError as error:
        body = json.load(error)
        check(error.code == 401 and body["error"]["type"] == "authentication_error", f"without a key: {error.code} {body}")
    return seen


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True, help="the server's root, e.g. http://127.0.0.1:8080")
    parser.add_argument("--model", required=True)
    parser.add_argument("--check", choices=["all", "auth"], default="all")
    parser.add_argument("--api-key")
    parser.add_argument("--vision-model", help="a vision-language model, for image blocks")
    arguments = parser.parse_args()
    # Only what this script passes: no key, profile or base URL of this machine's environment.
    for name in [name for name in os.environ if name.startswith("ANTHROPIC_")]:
        del os.environ[name]
    base_url = arguments.base_url.rstrip("/").removesuffix("/v1")
    with tempfile.TemporaryDirectory(prefix="anthropic-config-") as config:
        os.environ["ANTHROPIC_CONFIG_DIR"] = config
        if arguments.check == "auth":
            seen = check_auth(base_url, arguments.model, arguments.api_key)
        else:
            transport = Document(base_url).checked_transport(httpx2)  # every answer also checked against the OpenAPI document
            client = client_for(base_url, api_key="unused", http_client=httpx2.Client(transport=transport))
            seen = check_all(client, arguments.model)
            if arguments.vision_model:
                seen.update(check_vision(client, arguments.vision_model, arguments.model))
            seen.update(transport.report(check))
    print(json.dumps({"anthropic": anthropic.__version__, "seen": seen, "failures": failures}, indent=2, default=str))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
