#!/usr/bin/env python3
"""OpenAI's Responses API through the official `openai` package, unchanged, against a running
`runanywhere serve` (started with --reproducible, so that greedy answers repeat).

Run by the CLI tests with the project venv's Python:
    responses_client_check.py --base-url http://127.0.0.1:PORT/v1 --model MODEL [--retrieve RESPONSE_ID]
Checks: text and item input (the same prompt), instructions, the semantic stream events in
order with consecutive sequence numbers (and the `responses.stream` helper), max_output_tokens
ending incomplete, a forced function call and its function_call_output round trip (as items and
through previous_response_id), text.format json_schema (and `responses.parse`), a conversation
continued by previous_response_id, retrieve, input_items, delete, store false, 404s, the
Conversations API (a conversation continued by responses, its items, metadata and deletion), and background
mode: polled to its end, cancelled in flight (twice), and its stream read again after a dropped
connection (`retrieve(stream=True, starting_after=N)`).
Every answer the client reads is also checked against the server's OpenAPI document as the
client reads it, streams event by event (openapi_validation.py).
Prints one JSON object of what it saw and exits 1 with the failed checks listed.
"""
import argparse
import json
import sys
import time

import httpx
import jsonschema
import openai
import pydantic
from openai import OpenAI

from openapi_validation import Document, server_root

failures = []

INSTRUCTIONS = "You answer in one short sentence."
WEATHER = {
    "type": "function", "name": "get_weather", "description": "Get the current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                   "required": ["city", "unit"], "additionalProperties": False},
}


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def check_whole(response, question):
    """The shape of a finished response: completed, or cut by max_output_tokens (whether a short
    limit finishes a greedy answer depends on the CPU's arithmetic: AVX-512 and AVX2 differ)."""
    check(response.object == "response" and response.id.startswith("resp_"), f"{question}: id {response.id}, object {response.object}")
    cut = response.status == "incomplete" and response.incomplete_details is not None and response.incomplete_details.reason == "max_output_tokens"
    check((response.status == "completed" and response.incomplete_details is None or cut) and response.error is None,
          f"{question}: status {response.status}, {response.incomplete_details}")
    messages = [item for item in response.output if item.type == "message"]
    check(len(messages) == 1 and messages[0].role == "assistant" and messages[0].status == response.status
          and [part.type for part in messages[0].content] == ["output_text"], f"{question}: output {response.output}")
    check(response.output_text.strip() != "", f"{question}: no output_text")
    usage = response.usage
    check(usage.input_tokens > 0 and usage.output_tokens > 0 and usage.total_tokens == usage.input_tokens + usage.output_tokens,
          f"{question}: usage {usage}")


def check_inputs(client, model):
    """Text input and the same message as items give the same greedy answer from the same
    number of tokens; instructions are read (more input tokens) and echoed."""
    question = "Name a primary color."
    text = client.responses.create(model=model, input=question, instructions=INSTRUCTIONS, max_output_tokens=24, temperature=0)
    check_whole(text, "text input")
    check(text.instructions == INSTRUCTIONS and text.max_output_tokens == 24 and text.temperature == 0, f"settings echoed: {text}")
    easy = client.responses.create(model=model, input=[{"role": "user", "content": question}], instructions=INSTRUCTIONS,
                                   max_output_tokens=24, temperature=0)
    parts = client.responses.create(model=model, input=[{"type": "message", "role": "user", "content": [{"type": "input_text", "text": question}]}],
                                    instructions=INSTRUCTIONS, max_output_tokens=24, temperature=0)
    for name, other in (("role/content item", easy), ("input_text parts", parts)):
        check(other.output_text == text.output_text and other.usage.input_tokens == text.usage.input_tokens,
              f"{name}: {other.output_text!r} from {other.usage.input_tokens} tokens, text input: {text.output_text!r} from {text.usage.input_tokens}")
    bare = client.responses.create(model=model, input=question, max_output_tokens=24, temperature=0)
    check(bare.usage.input_tokens < text.usage.input_tokens, f"instructions add no input tokens: {bare.usage.input_tokens} vs {text.usage.input_tokens}")
    return {"text": text.output_text, "usage": text.usage.model_dump()}, text


def check_stream(client, model, whole):
    """The stream's events in order, numbered from 0, building the same answer as the whole
    response; the `responses.stream` helper's final response agrees."""
    events = list(client.responses.create(model=model, input="Name a primary color.", instructions=INSTRUCTIONS, max_output_tokens=24,
                                          temperature=0, stream=True))
    types = [event.type for event in events]
    check([event.sequence_number for event in events] == list(range(len(events))), f"sequence numbers {[e.sequence_number for e in events]}")
    deltas = [event for event in events if event.type == "response.output_text.delta"]
    # The stream ends as the whole response with the same settings did (completed, or cut: see check_whole).
    terminal = "response.completed" if whole.status == "completed" else "response.incomplete"
    expected = (["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]
                + ["response.output_text.delta"] * len(deltas)
                + ["response.output_text.done", "response.content_part.done", "response.output_item.done", terminal])
    check(types == expected and len(deltas) > 0, f"event order: {types}")
    streamed = "".join(event.delta for event in deltas)
    done = next((event for event in events if event.type == "response.output_text.done"), None)
    final = events[-1].response if events else None
    check(streamed == whole.output_text and done is not None and done.text == streamed, f"streamed {streamed!r}, whole {whole.output_text!r}")
    check(final is not None and final.status == whole.status and final.output_text == streamed and final.id == events[0].response.id
          and final.usage.output_tokens == whole.usage.output_tokens, f"{terminal}: {final}")
    check(events[0].response.status == "in_progress" and events[0].response.output == [], f"response.created: {events[0]}")
    item_ids = {getattr(event, "item_id", None) for event in events if hasattr(event, "item_id")}
    check(len(item_ids) == 1 and item_ids == {final.output[0].id}, f"item ids {item_ids}")
    seen = {"stream_events": len(events)}
    if hasattr(client.responses, "stream"):
        with client.responses.stream(model=model, input="Name a primary color.", instructions=INSTRUCTIONS, max_output_tokens=24,
                                     temperature=0) as stream:
            helper_events = list(stream)
            helper_text = "".join(event.delta for event in helper_events if event.type == "response.output_text.delta")
            # get_final_response() is for a completed response; an incomplete one ends with its own event.
            helper = stream.get_final_response() if whole.status == "completed" else helper_events[-1].response
        check(helper_text == whole.output_text and helper.output_text == whole.output_text, f"responses.stream gave {helper_text!r}, {helper.output_text!r}")
        seen["stream_helper"] = True
    return seen


def check_incomplete(client, model):
    """max_output_tokens stops the answer: status incomplete, reason max_output_tokens, whole and streamed."""
    cut = client.responses.create(model=model, input="Tell me a long story about a dragon.", max_output_tokens=3, temperature=0)
    check(cut.status == "incomplete" and cut.incomplete_details is not None and cut.incomplete_details.reason == "max_output_tokens"
          and cut.usage.output_tokens == 3, f"max_output_tokens 3 gave {cut.status}, {cut.incomplete_details}, {cut.usage}")
    check(cut.output and cut.output[0].type == "message" and cut.output[0].status == "incomplete", f"incomplete output {cut.output}")
    events = list(client.responses.create(model=model, input="Tell me a long story about a dragon.", max_output_tokens=3, temperature=0, stream=True))
    check(events and events[-1].type == "response.incomplete" and events[-1].response.incomplete_details.reason == "max_output_tokens"
          and events[-1].response.output_text == cut.output_text, f"streamed incomplete ends with {events[-1] if events else None}")
    return {"incomplete": cut.output_text}


def check_logprobs(client, model):
    """include message.output_text.logprobs and top_logprobs: the output_text's tokens are its text, the
    likeliest alternative of each greedy token is itself; streamed, each delta carries its own tokens."""
    whole = client.responses.create(model=model, input="Name three colours.", max_output_tokens=8, temperature=0,
                                    include=["message.output_text.logprobs"], top_logprobs=2)
    part = whole.output[-1].content[0]
    tokens = part.logprobs or []
    check(b"".join(bytes(token.bytes) for token in tokens) == part.text.encode(), f"output_text logprobs {tokens} for {part.text!r}")
    check(all(len(token.top_logprobs) == 2 and token.top_logprobs[0].token == token.token for token in tokens), f"top_logprobs {tokens}")
    plain = client.responses.create(model=model, input="Name three colours.", max_output_tokens=2, temperature=0)
    check(not plain.output[-1].content[0].logprobs, f"logprobs not asked for: {plain.output[-1].content[0].logprobs}")
    events = list(client.responses.create(model=model, input="Name three colours.", max_output_tokens=8, temperature=0, top_logprobs=1,
                                          stream=True))
    deltas = [event for event in events if event.type == "response.output_text.delta"]
    check(all(bytes(b for token in event.logprobs for b in token.bytes) == event.delta.encode() for event in deltas if event.delta.isascii()),
          f"a delta's logprobs are not its text: {deltas}")
    done = [event for event in events if event.type == "response.output_text.done"]
    check(len(done) == 1 and len(done[0].logprobs) == sum(len(event.logprobs) for event in deltas), f"output_text.done logprobs {done}")
    return {"logprobs": [[token.token, round(token.logprob, 4)] for token in tokens]}


def check_tools(client, model):
    """A forced function call: a function_call item with valid arguments, streamed as argument
    events; its output sent back as items and through previous_response_id gives the same answer."""
    question = [{"role": "user", "content": "What is the weather in Paris?"}]
    forced = {"type": "function", "name": "get_weather"}
    first = client.responses.create(model=model, input=question, tools=[WEATHER], tool_choice=forced, max_output_tokens=60, temperature=0)
    calls = [item for item in first.output if item.type == "function_call"]
    check(first.status == "completed" and len(calls) == 1 and calls[0].name == "get_weather" and calls[0].call_id
          and calls[0].status == "completed", f"a forced call gave {first.output}")
    check([tool.name for tool in first.tools] == ["get_weather"] and first.tool_choice.name == "get_weather", f"tools echoed: {first.tools}, {first.tool_choice}")
    if not calls:
        return {}
    arguments = json.loads(calls[0].arguments)
    try:
        jsonschema.validate(arguments, WEATHER["parameters"])
    except jsonschema.ValidationError as error:
        check(False, f"arguments {arguments} are not valid: {error}")
    events = list(client.responses.create(model=model, input=question, tools=[WEATHER], tool_choice=forced, max_output_tokens=60,
                                          temperature=0, stream=True))
    added = [event.item for event in events if event.type == "response.output_item.added" and event.item.type == "function_call"]
    deltas = "".join(event.delta for event in events if event.type == "response.function_call_arguments.delta")
    done = [event for event in events if event.type == "response.function_call_arguments.done"]
    check(len(added) == 1 and added[0].name == "get_weather" and json.loads(deltas) == arguments and len(done) == 1
          and done[0].arguments == deltas and events[-1].type == "response.completed", f"streamed call: {[e.type for e in events]}, {deltas!r}")
    result = {"type": "function_call_output", "call_id": calls[0].call_id, "output": "18 degrees Celsius and sunny"}
    answer = client.responses.create(model=model, input=question + [item.model_dump(exclude_none=True) for item in first.output] + [result],
                                     tools=[WEATHER], tool_choice="none", max_output_tokens=60, temperature=0)
    check_whole(answer, "after the function's output")
    check("18" in answer.output_text or "sunny" in answer.output_text, f"the answer does not use the function's output: {answer.output_text!r}")
    continued = client.responses.create(model=model, previous_response_id=first.id, input=[result], tools=[WEATHER], tool_choice="none",
                                        max_output_tokens=60, temperature=0)
    check(continued.output_text == answer.output_text and continued.usage.input_tokens == answer.usage.input_tokens,
          f"previous_response_id round trip: {continued.output_text!r} vs {answer.output_text!r}")
    return {"function_call": arguments, "function_answer": answer.output_text}


def check_structured(client, model):
    """text.format json_schema: JSON valid for the schema with its properties in order, and `responses.parse` with a pydantic model."""
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 30}, "age": {"type": "integer", "minimum": 0, "maximum": 120}},
              "required": ["name", "age"], "additionalProperties": False}
    response = client.responses.create(model=model, input="Invent a person.", max_output_tokens=60, temperature=0,
                                       text={"format": {"type": "json_schema", "name": "person", "schema": schema, "strict": True}})
    person = None
    try:
        person = json.loads(response.output_text)
        jsonschema.validate(person, schema)
        check(list(person) == ["name", "age"], f"properties out of order: {person}")
    except (ValueError, jsonschema.ValidationError) as error:
        check(False, f"json_schema output {response.output_text!r} is not valid: {error}")
    check(response.text.format.type == "json_schema" and response.text.format.name == "person", f"text.format echoed: {response.text}")
    seen = {"person": person}
    if hasattr(client.responses, "parse"):
        class Pet(pydantic.BaseModel):
            kind: str
            legs: int

        parsed = client.responses.parse(model=model, input="Describe a pet.", text_format=Pet, max_output_tokens=60, temperature=0)
        check(isinstance(parsed.output_parsed, Pet), f"responses.parse gave {parsed.output_text!r}")
        seen["parsed"] = parsed.output_parsed.model_dump() if isinstance(parsed.output_parsed, Pet) else None
    try:
        client.responses.create(model=model, input="Hi", max_output_tokens=5,
                                text={"format": {"type": "json_schema", "name": "x", "schema": {"type": "string", "format": "email"}}})
        check(False, "an unsupported schema was accepted")
    except openai.BadRequestError as error:
        body = error.body if isinstance(error.body, dict) else {}
        check(body.get("param") == "text.format.schema", f"unsupported schema: {error.body}")
    return seen


def check_stored(client, model):
    """previous_response_id continues a conversation (the earlier turn counts in the input
    tokens); stored responses are retrieved, listed and deleted; store false keeps nothing."""
    first = client.responses.create(model=model, input="My name is Ada.", max_output_tokens=16, temperature=0)
    second = client.responses.create(model=model, input="What is my name?", previous_response_id=first.id, max_output_tokens=16, temperature=0)
    alone = client.responses.create(model=model, input="What is my name?", max_output_tokens=16, temperature=0, store=False)
    # The earlier turn's words ("My name is Ada." and the answer) are read before the question.
    check(second.previous_response_id == first.id and second.usage.input_tokens >= alone.usage.input_tokens + first.usage.output_tokens + 3,
          f"continued turn read {second.usage.input_tokens} tokens; alone {alone.usage.input_tokens}, first answer {first.usage.output_tokens}")
    again = client.responses.retrieve(first.id)
    check(again.id == first.id and again.output_text == first.output_text and again.usage.input_tokens == first.usage.input_tokens,
          f"retrieve gave {again}")
    items = client.responses.input_items.list(second.id, order="asc")
    check([item.type for item in items.data] == ["message", "message", "message"] and items.data[-1].content[0].text == "What is my name?"
          and items.data[1].id == first.output[0].id, f"input_items of the continued turn: {items.data}")
    newest = client.responses.input_items.list(second.id)
    check([item.id for item in newest.data] == [item.id for item in reversed(items.data)], "input_items are newest first by default")
    page = client.responses.input_items.list(second.id, order="asc", limit=2)
    check(len(page.data) == 2 and page.has_more, f"a page of 2: {page}")
    check([item.id for item in client.responses.input_items.list(second.id, order="asc", after=page.last_id).data] == [items.data[-1].id],
          "the page after the first two")
    check(len([item for item in client.responses.input_items.list(second.id, order="asc", limit=1)]) == 3, "the client's auto-paging reads every item")
    client.responses.delete(first.id)
    seen = {"continued": second.output_text, "kept": second.id}
    for name, call in (("deleted", lambda: client.responses.retrieve(first.id)), ("store false", lambda: client.responses.retrieve(alone.id)),
                       ("deleted again", lambda: client.responses.delete(first.id)),
                       ("previous of a deleted one", lambda: client.responses.create(model=model, input="Hi", previous_response_id=first.id))):
        try:
            call()
            check(False, f"{name}: no 404")
        except openai.NotFoundError as error:
            body = error.body if isinstance(error.body, dict) else {}
            check(body.get("type") == "not_found_error" and body.get("code") == "response_not_found", f"{name}: {error.body}")
    check(client.responses.retrieve(second.id).previous_response_id == first.id, "the later turn outlives the deleted one")
    try:
        client.responses.create(model=model, input=[{"role": "assistant", "content": "Hello"}], max_output_tokens=5)
        check(False, "an input ending with the assistant's message was accepted")
    except openai.BadRequestError as error:
        check("input" in str(error), f"refusal of an assistant-ending input: {error}")
    return seen


def check_conversations(client, model):
    """The Conversations API: a conversation made with an item and metadata, continued by two
    responses (the second streamed), each adding its input and output; items listed (and
    auto-paged), added, retrieved and deleted; metadata updated; the conversation deleted."""
    conversation = client.conversations.create(items=[{"type": "message", "role": "user", "content": "My name is Ada."}],
                                               metadata={"topic": "names"})
    check(conversation.id.startswith("conv_") and conversation.object == "conversation" and conversation.metadata == {"topic": "names"},
          f"created {conversation}")
    first = client.responses.create(model=model, input="What is my name?", conversation=conversation.id, max_output_tokens=16, temperature=0)
    alone = client.responses.create(model=model, input="What is my name?", max_output_tokens=16, temperature=0, store=False)
    check(first.conversation is not None and first.conversation.id == conversation.id
          and first.usage.input_tokens >= alone.usage.input_tokens + 3, f"the conversation's item is read first: {first.usage} vs {alone.usage}")
    # Streamed; a turn cut by max_output_tokens (response.incomplete) is added too.
    events = list(client.responses.create(model=model, input="Say it again.", conversation={"id": conversation.id}, max_output_tokens=8,
                                          temperature=0, stream=True))
    check(events[-1].type in ("response.completed", "response.incomplete"), f"the stream ended with {events[-1].type}")
    second = events[-1].response
    items = client.conversations.items.list(conversation.id, order="asc")
    check([(item.type, item.role) for item in items.data] == [("message", role) for role in ("user", "user", "assistant", "user", "assistant")]
          and items.data[2].id == first.output[0].id and items.data[4].id == second.output[0].id, f"the turns in order: {items.data}")
    check(len(list(client.conversations.items.list(conversation.id, limit=2))) == 5, "the client's auto-paging reads every item")
    added = client.conversations.items.create(conversation.id, items=[{"type": "message", "role": "user", "content": "Thanks."}])
    check(len(added.data) == 1 and added.data[0].id.startswith("msg_"), f"added {added}")
    got = client.conversations.items.retrieve(added.data[0].id, conversation_id=conversation.id)
    check(got.id == added.data[0].id and got.content[0].text == "Thanks.", f"retrieved {got}")
    after = client.conversations.items.delete(added.data[0].id, conversation_id=conversation.id)
    check(after.id == conversation.id, f"deleting an item answers the conversation: {after}")
    updated = client.conversations.update(conversation.id, metadata={"topic": "done"})
    check(updated.metadata == {"topic": "done"} and client.conversations.retrieve(conversation.id).metadata == {"topic": "done"},
          f"updated {updated}")
    deleted = client.conversations.delete(conversation.id)
    check(deleted.deleted and deleted.id == conversation.id and deleted.object == "conversation.deleted", f"deleted {deleted}")
    for name, call in (("retrieve", lambda: client.conversations.retrieve(conversation.id)),
                       ("a response", lambda: client.responses.create(model=model, input="Hi", conversation=conversation.id))):
        try:
            call()
            check(False, f"{name} of a deleted conversation: no 404")
        except openai.NotFoundError as error:
            body = error.body if isinstance(error.body, dict) else {}
            check(body.get("code") == "conversation_not_found", f"{name}: {error.body}")
    return {"conversation": second.output_text}


def check_background(client, model, whole):
    """background=True: queued at once and polled with retrieve to the answer the foreground gave;
    cancel stops one in flight (and answers the same when asked again); a background stream the
    client dropped is read on from the last event it had, to the end."""
    question = "Name a primary color."
    queued = client.responses.create(model=model, input=question, instructions=INSTRUCTIONS, max_output_tokens=24, temperature=0,
                                     background=True)
    check(queued.status == "queued" and queued.background is True and queued.output == [], f"background create: {queued}")
    polled = queued
    while polled.status in ("queued", "in_progress"):
        time.sleep(0.05)
        polled = client.responses.retrieve(queued.id)
    check_whole(polled, "background")
    check(polled.output_text == whole.output_text, f"background answer {polled.output_text!r}, foreground {whole.output_text!r}")

    counting = client.responses.create(model=model, input="Count from 1 to 500, separated by commas.", max_output_tokens=600,
                                       temperature=0, background=True)
    cancelled = client.responses.cancel(counting.id)
    check(cancelled.status == "cancelled" and client.responses.retrieve(counting.id).status == "cancelled", f"cancel: {cancelled.status}")
    check(client.responses.cancel(counting.id).status == "cancelled", "cancelling twice answers the same")
    try:
        client.responses.cancel(whole.id)
        check(False, "a foreground response was cancelled")
    except openai.BadRequestError:
        pass

    stream = client.responses.create(model=model, input=question, instructions=INSTRUCTIONS, max_output_tokens=24, temperature=0,
                                     background=True, stream=True)
    read = []
    for event in stream:
        read.append(event)
        if event.type == "response.output_text.delta":
            break
    stream.close()  # the connection drops; the response is made on
    rest = list(client.responses.retrieve(read[0].response.id, stream=True, starting_after=read[-1].sequence_number))
    events = read + rest
    check([event.sequence_number for event in events] == list(range(len(events))), "the events read again follow on")
    check([event.type for event in read[:3]] == ["response.created", "response.queued", "response.in_progress"]
          and rest[-1].type in ("response.completed", "response.incomplete"), f"background stream: {[event.type for event in events]}")
    text = "".join(event.delta for event in events if event.type == "response.output_text.delta")
    check(text == rest[-1].response.output_text == whole.output_text, f"the stream read in two parts gave {text!r}")
    return {"background": polled.output_text, "background_events": len(events), "read_again_after": read[-1].sequence_number}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--retrieve", help="only check that this stored response of a continued turn is retrieved (after a restart)")
    args = parser.parse_args()
    transport = Document(server_root(args.base_url)).checked_transport()  # every answer also checked against the OpenAPI document
    client = OpenAI(base_url=args.base_url, api_key="not-needed", max_retries=0, timeout=300, http_client=httpx.Client(transport=transport))
    if args.retrieve:
        kept = client.responses.retrieve(args.retrieve)
        items = client.responses.input_items.list(args.retrieve)
        check(kept.id == args.retrieve and kept.status in ("completed", "incomplete") and kept.output_text and len(items.data) == 3,
              f"after a restart: {kept}, input items {items.data}")
        transport.report(check)
        print(json.dumps({"retrieved": kept.output_text, "failures": failures}, indent=2))
        return 1 if failures else 0
    seen, whole = check_inputs(client, args.model)
    seen.update(check_stream(client, args.model, whole))
    seen.update(check_incomplete(client, args.model))
    seen.update(check_logprobs(client, args.model))
    seen.update(check_tools(client, args.model))
    seen.update(check_structured(client, args.model))
    seen.update(check_stored(client, args.model))
    seen.update(check_conversations(client, args.model))
    seen.update(check_background(client, args.model, whole))
    seen.update(transport.report(check))
    print(json.dumps({"openai": openai.__version__, "seen": seen, "failures": failures}, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
