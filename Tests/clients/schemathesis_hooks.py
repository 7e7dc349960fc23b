"""schemathesis hooks for `schemathesis_check.py` (loaded through SCHEMATHESIS_HOOKS).

Answers as documented, field by field (`answers_as_documented`): every answer is also checked by
openapi_validation.py against the document closed to fields it does not name, newline-delimited
JSON line by line, server-sent events event by event with each event's data against its
`contentSchema`, so a field the server writes that the document leaves out fails the run as a
missing or malformed one does.

Newline-delimited JSON (`application/x-ndjson`, ollama's streams): schemathesis has no reader for
it; this one hands schemathesis's own response-schema check the last line (or, for a line that is
not JSON, its text); every line is checked by `answers_as_documented`.

Valid requests accepted (`valid_requests_accepted`): a request generated as valid by the document
must not be refused as malformed (400, 422), unless for a rule listed below that JSON Schema
cannot state; every other constraint a route enforces belongs in the document.
"""
import json
import os
import re
import sys

import schemathesis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openapi_validation import Document  # noqa: E402


@schemathesis.deserializer("application/x-ndjson")
def ndjson_lines(ctx, response):
    lines = [text for text in response.content.decode("utf-8", errors="replace").splitlines() if text.strip()]
    if not lines:
        return None
    try:
        return json.loads(lines[-1])
    except ValueError:
        return lines[-1]  # not JSON: a string, which no line schema allows


# What a request the document calls valid may still be refused for (a 400), per operation: rules
# that hold between a request and what the server has (which ids are which kind of model, the
# vocabulary, a conversation's messages, stored credentials) or between a request's fields, which
# JSON Schema cannot state. Each is matched in the error's text; any other refusal of a valid
# request fails the run (valid_requests_accepted).
ANY_OPERATION = [
    # A model of another kind than the route runs (the catalog decides which id is which), as
    # the runtime or the engine the model belongs to says it, or without the capability asked.
    r"Model '[^']*' is (loaded as )?an? [a-z-]+ model", r"does not run language models", r"does not support thinking", r"does not read images",
    r"dimensions \d+ is not available",  # only the embedding model's own dimensions
    r"the model's vocabulary has \d+ tokens",  # a logit_bias naming a token past the model's vocabulary
    # A conversation's rules: a user's message to answer, last (or a tool's result), tool results
    # after the calls they answer, tool calls' arguments a JSON object (inside a string).
    r"has no user message", r"hold no user message to answer", r"The last message must be", r"must end with a user message", r"must follow the assistant's tool_calls", r"answers no tool_use of the assistant's message before it", r"are not a JSON object",
    r"The prompt is empty",  # messages whose contents are all empty
    # Fields that exclude each other or must agree: tool_choice and tools, tools and structured
    # output, grammar and response_format, top_logprobs and logprobs.
    r"tool_choice names", r"tool_choice is required, but there are no tools", r"two tools are named",
    r"(response_format|text\.format|format) and tools exclude each other",
    r"grammar and response_format exclude each other", r"top_logprobs needs logprobs",
    # Inputs checked by the parser that uses them: a GBNF grammar, the subset of JSON Schema that
    # becomes a grammar.
    r"The grammar is not one llama.cpp can use", r"Unsupported JSON Schema",
    # The LoRA adapters a server has (serve --lora), by index: `lora` and POST /lora-adapters name them.
    r"No LoRA adapter with id",
]
SEMANTIC_REFUSALS = {
    # A rule between the number of prompts and n; token ids past the model's vocabulary; a suffix
    # (fill-in-the-middle) with echo or token ids, or for a model not trained to fill in.
    "POST /v1/completions": [
        r"at most 16 completions \(prompts times n\)", r"is not in the model's vocabulary", r"echo cannot be used with suffix",
        r"suffix goes with text prompts", r"was not trained to fill in the middle",
    ],
    # Token ids past the model's vocabulary; a gap for a model not trained to fill in (the default model is not).
    "POST /completion": [r"is not in the model's vocabulary"],
    "POST /infill": [r"was not trained to fill in the middle"],
    # A suffix (fill-in-the-middle) with a system prompt or images, or for a model not trained to fill in.
    "POST /api/generate": [r"which has no place for", r"was not trained to fill in the middle"],
    # The saved maxTokens setting; a toolChoice names one of the server's tools (it has none here).
    "POST /api/conversations/{id}/messages": [r"does not fit the model's context", r"This server has no tools to call"],
    "POST /api/conversations/{id}/retry": [
        r"no message to answer again", r"does not fit the model's context", r"This server has no tools to call",
    ],
    "POST /api/models/{id}/load": [r"would unload the model as soon as it is loaded"],  # keepAlive 0
    # A file's contents, not its form field, decide whether it is a text document.
    "POST /api/rag/collections/{name}/documents": [
        r"is not a text document", r"is empty", r"not UTF-8", r"has no text to ingest", r"could not be read as PDF", r"encrypted with a password",
    ],
    "POST /v1/audio/transcriptions": [r"could not be read as audio", r"file is empty"],
    "POST /v1/audio/translations": [r"could not be read as audio", r"file is empty", r"cannot translate"],
    "GET /v1/responses/{id}/input_items": [r"has no item"],  # an `after` cursor names a stored item
    "GET /v1/conversations/{conversation_id}/items": [r"has no item"],
    # A title is shown on one line: a control or format character, which JSON Schema's pattern cannot list, is refused.
    "PATCH /api/conversations/{id}": [r"is one line of printable characters"],
    "POST /api/conversations": [r"is one line of printable characters"],
    # Items' ids are unique in a request and in a conversation; an image must load; one response at a time in a conversation.
    "POST /v1/conversations": [r"Two items have the same id", r"An input_image cannot be read"],
    "POST /v1/conversations/{conversation_id}/items": [r"Two items have the same id", r"holds an item '.*' already", r"An input_image cannot be read"],
    # An output answers a call made before it; with truncation disabled, the whole input must fit the context.
    "POST /v1/responses": [
        r"Two input items have the same id", r"Another response is being made in conversation",
        r"No tool call found for function call output", r"with none of it left out, but the model's context holds",
    ],
    "POST /detokenize": [r"is not in the model's vocabulary"],
    "POST /tokenize": [r"is not in the model's vocabulary"],  # a token id among the content's strings
    "POST /api/blobs/{digest}": [r"digest mismatch"],  # the bytes must hash to the digest in the path
    "POST /telemetry": [r"must lie between fps_min and fps_max", r"must not be below latency_p50_ms", r"must be an ISO 8601 time"],
    # staging and production need a base URL and key, given now or stored before.
    "PUT /api/environment": [r"is required for the", r"is not an http or https URL with a host"],
}


@schemathesis.check
def valid_requests_accepted(ctx, response, case):
    """A request the document calls valid is not refused as malformed (400, 422), unless for one
    of the rules above that JSON Schema cannot state."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code not in (400, 422):
        return None
    text = response.content.decode("utf-8", errors="replace")
    label = f"{case.operation.method.upper()} {case.operation.path}"
    if any(re.search(pattern, text) for pattern in ANY_OPERATION + SEMANTIC_REFUSALS.get(label, [])):
        return None
    raise AssertionError(f"{label}: a request the document calls valid was refused with {response.status_code}: {text[:400]}")


CLOSED = {}


@schemathesis.check
def answers_as_documented(ctx, response, case):
    """The answer as the document closed to other fields describes it (openapi_validation.py)."""
    method = case.operation.method.upper()
    if (response.request.method or "").upper() != method:
        return None  # another method on the operation's path (TRACE, …): what the document says of none
    raw = case.operation.schema.raw_schema
    document = CLOSED.get(id(raw)) or CLOSED.setdefault(id(raw), Document(document=raw))
    content_type = next((values[0] for name, values in response.headers.items() if name.lower() == "content-type" and values), "")
    problems = document.check(method, case.operation.path, response.status_code, content_type, response.content)
    if problems:
        raise AssertionError("; ".join(dict.fromkeys(problems))[:1500])
    return None
