#!/usr/bin/env python3
"""The official `openai` package, unchanged, against a running `runanywhere serve`.

Run by the CLI tests (`make test`) with the project venv's Python:
    openai_client_check.py --base-url http://127.0.0.1:PORT/v1 --model MODEL [--check all|auth|busy] [--api-key KEY]
                           [--voice-model VOICE]   (speech, and transcription of MP3, Ogg and WebM made by ffmpeg)
                           [--translation-model STT] (a multilingual model: French speech translated, transcribed, its language detected)
                           [--vision-model VLM]    (images in chat, as image_url data URLs)
                           [--image-model MODEL]   (images.generate: b64_json, data URLs, seeds, errors)
With --check all it also checks structured output (response_format, and parse() with a pydantic model)
and tool calling (tools, tool_choice, tool_calls whole and streamed, tool results, pydantic_function_tool).
Every answer the client reads in the checks of --check all is also checked against the server's
OpenAPI document as the client reads it, streams event by event (openapi_validation.py).
Prints one JSON object of what it saw and exits 1 with the failed checks listed.
"""
import argparse
import base64
import concurrent.futures
import json
import math
import re
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

import httpx
import openai
from openai import OpenAI

from openapi_validation import Document, server_root

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def chat_messages(question):
    return [{"role": "system", "content": "You answer in one short sentence."}, {"role": "user", "content": question}]


def stream_chat(client, model, question, **options):
    """Streams a chat completion; returns its text, finish reason, usage and chunk ids."""
    stream = client.chat.completions.create(model=model, messages=chat_messages(question), stream=True,
                                            stream_options={"include_usage": True}, **options)
    text, reasons, ids, usage, roles = "", [], set(), None, []
    for chunk in stream:
        ids.add(chunk.id)
        check(chunk.object == "chat.completion.chunk", f"chunk object is {chunk.object}")
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            if choice.delta.role:
                roles.append(choice.delta.role)
            text += choice.delta.content or ""
            if choice.finish_reason:
                reasons.append(choice.finish_reason)
    check(len(ids) == 1, f"stream chunks carry {len(ids)} ids")
    check(roles == ["assistant"], f"roles in the stream: {roles}")
    check(len(reasons) == 1, f"finish reasons in the stream: {reasons}")
    return text, reasons[0] if reasons else None, usage


def check_all(client, model):
    seen = {}
    models = [m.id for m in client.models.list().data]
    check(model in models, f"{model} not in /v1/models: {models}")
    check(client.models.retrieve(model).id == model, "models.retrieve returns another model")

    # Chat, whole and streamed: greedy, so both must give the same text.
    question = "What colour is the sky on a clear day?"
    whole = client.chat.completions.create(model=model, messages=chat_messages(question), max_tokens=12, temperature=0)
    answer = whole.choices[0].message.content
    seen["chat"] = answer
    check(whole.object == "chat.completion", f"object is {whole.object}")
    check(bool(answer and answer.strip()), "the chat answer is empty")
    check(whole.choices[0].finish_reason in ("stop", "length"), f"finish_reason {whole.choices[0].finish_reason}")
    check(1 <= whole.usage.completion_tokens <= 12, f"completion_tokens {whole.usage.completion_tokens}")
    check(whole.usage.prompt_tokens > 10, f"prompt_tokens {whole.usage.prompt_tokens}")
    check(whole.usage.total_tokens == whole.usage.prompt_tokens + whole.usage.completion_tokens, "total_tokens is not the sum")
    text, reason, usage = stream_chat(client, model, question, max_tokens=12, temperature=0)
    seen["chat_stream"] = text
    check(text == answer, f"greedy streamed chat {text!r} differs from the whole one {answer!r}")
    check(reason == whole.choices[0].finish_reason, f"streamed finish_reason {reason}")
    check(usage is not None and usage.completion_tokens == whole.usage.completion_tokens, f"streamed usage {usage}")
    # A conversation: every earlier turn the client sends is read, not only the last message.
    turns = [{"role": "user", "content": "My name is Zed and I like green."}, {"role": "assistant", "content": "Nice to meet you, Zed."},
             {"role": "user", "content": question}]
    follow_up = client.chat.completions.create(model=model, messages=turns, max_tokens=4, temperature=0)
    check(follow_up.usage.prompt_tokens > whole.usage.prompt_tokens + 10,
          f"the earlier turns are not in the prompt: {follow_up.usage.prompt_tokens} vs {whole.usage.prompt_tokens} tokens")

    # max_tokens cuts the answer short with finish_reason "length"; max_completion_tokens too.
    short = client.chat.completions.create(model=model, messages=chat_messages("Tell me a long story about a dragon."),
                                           max_completion_tokens=3, temperature=0)
    check(short.choices[0].finish_reason == "length", f"finish_reason {short.choices[0].finish_reason} after 3 tokens")
    check(short.usage.completion_tokens == 3, f"completion_tokens {short.usage.completion_tokens} with max 3")

    # A seed makes sampling reproducible.
    seeded = [client.chat.completions.create(model=model, messages=chat_messages("Name an animal."), max_tokens=8,
                                             temperature=0.9, seed=1234).choices[0].message.content for _ in range(2)]
    check(seeded[0] == seeded[1], f"seeded answers differ: {seeded}")

    # Completions: the prompt as it is, whole and streamed.
    prompt = "The capital of France is"
    completion = client.completions.create(model=model, prompt=prompt, max_tokens=6, temperature=0)
    seen["completion"] = completion.choices[0].text
    check(completion.object == "text_completion", f"object is {completion.object}")
    check(bool(completion.choices[0].text), "the completion is empty")
    pieces = list(client.completions.create(model=model, prompt=prompt, max_tokens=6, temperature=0, stream=True))
    streamed = "".join(choice.text for piece in pieces for choice in piece.choices)
    check(streamed == completion.choices[0].text, f"streamed completion {streamed!r} differs from {completion.choices[0].text!r}")

    # Four users at once, each with their own question: each gets the answer it gets alone
    # (greedy answers are promised that on a server started with --reproducible, as this one is).
    questions = ["Name a fruit.", "Name a city.", "Name a planet.", "Name a river."]
    alone = {q: client.chat.completions.create(model=model, messages=chat_messages(q), max_tokens=10, temperature=0)
             .choices[0].message.content for q in questions}
    with concurrent.futures.ThreadPoolExecutor(len(questions)) as pool:
        together = dict(zip(questions, pool.map(lambda q: stream_chat(client, model, q, max_tokens=10, temperature=0)[0], questions)))
    seen["concurrent"] = together
    for q in questions:
        check(together[q] == alone[q], f"{q!r} answered {together[q]!r} among others, {alone[q]!r} alone")

    # Speculative decoding by prompt lookup, asked for with llama-server's field: the same greedy
    # answer, with the guesses counted in its timings (and in /metrics, below).
    copy = 'Copy this sentence exactly: "The little grey cat sat on the warm stone wall and watched the boats come home."'
    plain = client.chat.completions.create(model=model, messages=chat_messages(copy), max_tokens=24, temperature=0)
    guessed = client.chat.completions.create(model=model, messages=chat_messages(copy), max_tokens=24, temperature=0,
                                             extra_body={"speculative.n_max": 8})
    timings = (guessed.model_extra or {}).get("timings") or {}
    seen["speculation"] = {"answer": guessed.choices[0].message.content, "draft_n": timings.get("draft_n"),
                           "draft_n_accepted": timings.get("draft_n_accepted")}
    check(guessed.choices[0].message.content == plain.choices[0].message.content,
          f"speculation changed the answer: {guessed.choices[0].message.content!r} vs {plain.choices[0].message.content!r}")
    # How much it guesses is the server's choice (only what pays on this machine), so only the counts' shape is checked.
    check(0 <= timings.get("draft_n_accepted", -1) <= timings.get("draft_n", -1), f"timings {timings}")
    check("draft_n" not in ((plain.model_extra or {}).get("timings") or {}), "a request without speculation reports guesses")
    # llama-server's cache_prompt: false reads the whole prompt again (and saves nothing to disk).
    long = " ".join([copy] * 4)
    client.chat.completions.create(model=model, messages=chat_messages(long), max_tokens=2, temperature=0)
    reused = client.chat.completions.create(model=model, messages=chat_messages(long), max_tokens=2, temperature=0)
    fresh = client.chat.completions.create(model=model, messages=chat_messages(long), max_tokens=2, temperature=0,
                                           extra_body={"cache_prompt": False})
    cached = [((r.model_extra or {}).get("timings") or {}).get("cache_n") for r in (reused, fresh)]
    check(cached[0] > 0 and cached[1] == 0, f"cache_n {cached[0]} reused, {cached[1]} with cache_prompt false")
    # logit_bias, the client's own parameter, reaches the sampler: with 100 on one token the greedy answer is that token over and over.
    root = str(client.base_url).rstrip("/").rsplit("/v1", 1)[0]

    def post(path, body):
        request = urllib.request.Request(root + path, json.dumps(body).encode(), {"content-type": "application/json"})
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    token = post("/tokenize", {"content": " banana"})["tokens"][0]
    piece = post("/detokenize", {"tokens": [token]})["content"]
    forced = client.chat.completions.create(model=model, messages=chat_messages("Name three colours."), max_tokens=3, temperature=0,
                                            logit_bias={str(token): 100})
    check(forced.choices[0].message.content.strip() == (piece * 3).strip(), f"logit_bias 100 on {piece!r}: {forced.choices[0].message.content!r}")
    try:
        client.chat.completions.create(model=model, messages=chat_messages("hi"), logit_bias={"1000000": 5})
        check(False, "a logit_bias past the vocabulary was accepted")
    except openai.BadRequestError as error:
        check("vocabulary" in json.dumps(error.body), f"logit_bias error body {error.body}")
    try:
        client.chat.completions.create(model=model, messages=chat_messages("hi"), extra_body={"speculative.n_max": 99})
        check(False, "speculative.n_max=99 was accepted")
    except openai.BadRequestError as error:
        check("speculative.n_max" in json.dumps(error.body), f"speculative.n_max error body {error.body}")

    # Errors come back as the client's typed exceptions.
    try:
        client.chat.completions.create(model="no-such-model", messages=chat_messages("hi"))
        check(False, "an unknown model was accepted")
    except openai.NotFoundError as error:
        check(error.status_code == 404, f"unknown model status {error.status_code}")
    try:
        client.chat.completions.create(model=model, messages=chat_messages("hi"), max_tokens=0)
        check(False, "max_tokens=0 was accepted")
    except openai.BadRequestError as error:
        check(error.body is not None and "max_tokens" in json.dumps(error.body), f"max_tokens error body {error.body}")

    # Prometheus metrics saw the generations (read from the event bus, a moment after each answer).
    metrics_url = str(client.base_url).rstrip("/").rsplit("/v1", 1)[0] + "/metrics"
    # Each generation is counted under the backend its model ran on (cpu, cuda, vulkan).
    cut = re.compile(r'runanywhere_generations_total\{model="' + re.escape(model) + r'",backend="(cpu|cuda|vulkan)",stop_reason="length"\}')
    deadline, text = time.monotonic() + 10, ""
    while not (cut.search(text) and "runanywhere_draft_tokens_total" in text) and time.monotonic() < deadline:
        with urllib.request.urlopen(metrics_url) as response:
            text = response.read().decode()
        time.sleep(0.05)
    check(f'runanywhere_completion_tokens_total{{model="{model}"}}' in text, "no completion tokens in /metrics")
    check(cut.search(text) is not None, "no generation cut at its length in /metrics")
    check(f'runanywhere_draft_tokens_accepted_total{{model="{model}"}}' in text, "no speculative guesses in /metrics")
    check('runanywhere_http_requests_total{route="/v1/chat/completions",method="POST",status="404"} 1' in text, "the 404 is not counted")
    return seen


def check_logprob_tokens(tokens, text, top, where):
    """Each answer token's log-probability, with `top` alternatives: the tokens' bytes are the text,
    the alternatives come likeliest first, and the greedy token is the likeliest."""
    joined = b"".join(bytes(token.bytes) for token in tokens)
    check(joined == text.encode(), f"{where}: the tokens' bytes {joined!r} are not the text {text!r}")
    for token in tokens:
        alternatives = token.top_logprobs
        values = [alternative.logprob for alternative in alternatives]
        check(len(alternatives) == top, f"{where}: {len(alternatives)} alternatives for {token.token!r}, asked for {top}")
        check(values == sorted(values, reverse=True) and all(value <= 0 for value in values), f"{where}: alternatives {values}")
        check(sum(math.exp(value) for value in values) <= 1 + 1e-4, f"{where}: the alternatives' probabilities add up past 1: {values}")
        check(alternatives[0].token == token.token and abs(alternatives[0].logprob - token.logprob) < 1e-6,
              f"{where}: the greedy token {token.token!r} ({token.logprob}) is not the likeliest {alternatives[0]}")


def check_logprobs(client, model, model_file):
    """logprobs and top_logprobs through the client's own parameters, whole and streamed, on both
    completion routes; with the model's file, the first token's against llama-cpp-python's own."""
    seen = {}
    messages = chat_messages("Name three colours.")
    whole = client.chat.completions.create(model=model, messages=messages, max_tokens=8, temperature=0, logprobs=True, top_logprobs=3)
    content = whole.choices[0].logprobs.content
    check(len(content) == whole.usage.completion_tokens, f"{len(content)} tokens with logprobs of {whole.usage.completion_tokens}")
    check_logprob_tokens(content, whole.choices[0].message.content, 3, "chat")
    plain = client.chat.completions.create(model=model, messages=messages, max_tokens=2, temperature=0)
    check(plain.choices[0].logprobs is None, f"logprobs not asked for: {plain.choices[0].logprobs}")
    stream = client.chat.completions.create(model=model, messages=messages, max_tokens=8, temperature=0, logprobs=True, top_logprobs=2,
                                            stream=True)
    text, streamed = "", []
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            if choice.logprobs is not None:
                streamed += choice.logprobs.content
            elif choice.delta.content:
                check(False, f"a content delta without its logprobs: {choice.delta.content!r}")
    check_logprob_tokens(streamed, text, 2, "streamed chat")
    completion = client.completions.create(model=model, prompt="The capital of France is", max_tokens=6, temperature=0, logprobs=2)
    legacy = completion.choices[0].logprobs
    check("".join(legacy.tokens) == completion.choices[0].text, f"completion tokens {legacy.tokens} / {completion.choices[0].text!r}")
    check(legacy.text_offset == [sum(len(t) for t in legacy.tokens[:i]) for i in range(len(legacy.tokens))], f"offsets {legacy.text_offset}")
    check(all(len(top) <= 2 and max(top.values()) >= value - 1e-6 for top, value in zip(legacy.top_logprobs, legacy.token_logprobs)),
          f"completion alternatives {legacy.top_logprobs} / {legacy.token_logprobs}")
    try:
        client.chat.completions.create(model=model, messages=messages, logprobs=True, top_logprobs=21)
        check(False, "top_logprobs 21 was accepted")
    except openai.BadRequestError as error:
        check("top_logprobs" in json.dumps(error.body), f"top_logprobs error body {error.body}")
    seen["logprobs"] = {"tokens": len(content), "streamed": len(streamed)}
    if model_file:
        # llama-cpp-python, on the same file, reports the first token's alternatives from the raw logits too. With flash
        # attention, as this server runs the model, the two agree to 1e-4; a server started --reproducible (llama.cpp's
        # batch-invariant configuration) computes the logits in another order, up to about 0.1 apart. Temperature applied,
        # or a row left unnormalized, or another position's row, is further off than that.
        from llama_cpp import Llama
        reference = Llama(model_path=model_file, n_ctx=256, n_threads=1, logits_all=True, flash_attn=True, verbose=False)
        prompt = "The capital of France is"
        theirs = reference.create_completion(prompt, max_tokens=1, temperature=0, logprobs=5)["choices"][0]["logprobs"]["top_logprobs"][0]
        ours = client.completions.create(model=model, prompt=prompt, max_tokens=1, temperature=0, logprobs=5).choices[0].logprobs.top_logprobs[0]
        likeliest = sorted(theirs, key=theirs.get, reverse=True)[:3]
        check(all(token in ours and abs(ours[token] - theirs[token]) < 0.15 for token in likeliest),
              f"first token's alternatives: ours {ours}, llama-cpp-python's {theirs}")
        seen["logprobs"]["llama_cpp_python"] = {token: [round(ours.get(token, float("nan")), 4), round(float(theirs[token]), 4)] for token in likeliest}
    return seen


def check_echo(client, model, model_file):
    """echo with logprobs, as lm-evaluation-harness scores continuations: several prompts in one request, each choice's text
    its prompt and answer, its tokens the whole text (the prompt's first, which nothing predicts, with null), the likelier
    continuation scoring higher; a prompt sent as token ids scores as its text does; streamed, the prompt comes first; with
    the model's file, the prompt's log-probabilities against llama-cpp-python's, read from the logits of every prompt position."""
    context = "The capital of France is"
    prompts = [context + " Paris", context + " London"]
    scored = client.completions.create(model=model, prompt=prompts, max_tokens=1, temperature=0, logprobs=1, echo=True)
    check(sorted(choice.index for choice in scored.choices) == [0, 1], f"echo choices {scored.choices}")
    totals = {}
    for choice in scored.choices:
        prompt, logprobs = prompts[choice.index], choice.logprobs
        check(choice.text.startswith(prompt) and "".join(logprobs.tokens) == choice.text, f"echo tokens {logprobs.tokens} / {choice.text!r}")
        check(logprobs.token_logprobs[0] is None and logprobs.top_logprobs[0] is None, f"echo's first token {logprobs.token_logprobs[:2]}")
        check(logprobs.text_offset == [sum(len(t) for t in logprobs.tokens[:i]) for i in range(len(logprobs.tokens))],
              f"echo offsets {logprobs.text_offset}")
        # The continuation's tokens: from the context's end to the prompt's (the answer's one token after them).
        continuation = [value for offset, value in zip(logprobs.text_offset, logprobs.token_logprobs) if len(context) <= offset < len(prompt)]
        check(len(continuation) >= 1 and all(value is not None and value <= 0 for value in continuation), f"continuation {continuation}")
        totals[prompt] = sum(continuation)
    check(totals[prompts[0]] > totals[prompts[1]], f"' Paris' scored below ' London': {totals}")
    check(scored.usage.prompt_tokens > 2 * len(context.split()), f"usage counts both prompts: {scored.usage}")
    plain = client.completions.create(model=model, prompt=context, max_tokens=2, temperature=0, echo=True)
    check(plain.choices[0].text.startswith(context) and plain.choices[0].logprobs is None, f"echo alone {plain.choices[0]}")
    stream = client.completions.create(model=model, prompt=context, max_tokens=2, temperature=0, logprobs=0, echo=True, stream=True)
    pieces = [(choice.text, choice.logprobs) for chunk in stream for choice in chunk.choices if choice.text]
    check(bool(pieces) and pieces[0][0] == context and pieces[0][1] is not None and pieces[0][1].token_logprobs[0] is None,
          f"streamed echo {pieces[:2]}")
    # The same prompt as token ids (lm-evaluation-harness sends them so), read as they are: the same choice.
    root = str(client.base_url).rstrip("/").rsplit("/v1", 1)[0]
    request = urllib.request.Request(root + "/tokenize", json.dumps({"content": prompts[0]}).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(request) as response:
        ids = json.load(response)["tokens"]
    by_ids = client.completions.create(model=model, prompt=[ids], max_tokens=1, temperature=0, logprobs=1, echo=True).choices[0]
    by_text = next(choice for choice in scored.choices if choice.index == 0)
    check(by_ids.text == by_text.text and by_ids.logprobs.tokens == by_text.logprobs.tokens, f"token ids' echo {by_ids.text!r}")
    check(all((a is None) == (b is None) and (a is None or abs(a - b) < 1e-3) for a, b in zip(by_ids.logprobs.token_logprobs, by_text.logprobs.token_logprobs)),
          f"token ids' logprobs {by_ids.logprobs.token_logprobs} / {by_text.logprobs.token_logprobs}")
    try:
        client.completions.create(model=model, prompt=[10**9], max_tokens=1)
        check(False, "a token id past the vocabulary was accepted")
    except openai.BadRequestError as error:
        check("vocabulary" in json.dumps(error.body), f"token id error body {error.body}")
    seen = {"echo": {prompt: round(total, 4) for prompt, total in totals.items()}}
    if model_file:
        from llama_cpp import Llama
        reference = Llama(model_path=model_file, n_ctx=256, n_threads=1, logits_all=True, flash_attn=True, verbose=False)
        tokens = reference.tokenize(prompts[0].encode(), add_bos=True, special=True)
        reference.eval(tokens)
        rows = Llama.logits_to_logprobs(reference.scores[:len(tokens)])
        theirs = [float(rows[i - 1][token]) for i, token in enumerate(tokens) if i > 0]
        choice = next(choice for choice in scored.choices if choice.index == 0)
        ours = choice.logprobs.token_logprobs[1:len(tokens)]
        check(len(choice.logprobs.tokens) == len(tokens) + 1 and all(abs(a - b) < 0.15 for a, b in zip(ours, theirs)),
              f"prompt logprobs: ours {ours}, llama-cpp-python's {theirs}")
        seen["echo"]["llama_cpp_python"] = [[round(a, 4), round(b, 4)] for a, b in zip(ours, theirs)]
    return seen


def check_infill(client, model, infill_model, infill_file):
    """suffix: the gap between the prompt and the suffix filled in by a code model (the fill-in-the-middle fixture, random
    weights: its text is noise, kept to text tokens by a bias, as its noise favours control tokens, which show nothing), whole and
    streamed alike; its prompt counted and its first answer token scored exactly as llama-cpp-python reads
    <|fim_prefix|>prefix<|fim_suffix|>suffix<|fim_middle|> written with llama.cpp's own tokens; refused for a model with no
    fill-in-the-middle tokens, with echo, and with token ids. llama-server's /infill as llama.vim asks it gives the same."""
    import llama_cpp
    from llama_cpp import Llama
    reference = Llama(model_path=infill_file, n_ctx=256, n_threads=1, logits_all=True, flash_attn=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(reference.model)
    control = {i for i in range(reference.n_vocab()) if llama_cpp.llama_vocab_get_attr(vocab, i) & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL}
    bias = {str(i): -100 for i in sorted(control)}
    prefix, suffix = "def area(r):\n    return ", "\n\nprint(area(2))\n"
    filled = client.completions.create(model=infill_model, prompt=prefix, suffix=suffix, max_tokens=4, temperature=0, logprobs=2,
                                       logit_bias=bias)
    choice = filled.choices[0]
    check(filled.usage.completion_tokens >= 1 and choice.finish_reason in ("stop", "length") and choice.text != "", f"infill {filled}")
    stream = client.completions.create(model=infill_model, prompt=prefix, suffix=suffix, max_tokens=4, temperature=0, logit_bias=bias,
                                       stream=True)
    check("".join(c.text for chunk in stream for c in chunk.choices) == choice.text, "streamed infill differs from the whole one")
    for arguments, param in (({"model": model, "prompt": "a"}, "model"), ({"model": infill_model, "prompt": "a", "echo": True}, "echo"),
                             ({"model": infill_model, "prompt": [1, 2]}, "suffix")):
        try:
            client.completions.create(suffix="b", max_tokens=1, **arguments)
            check(False, f"suffix with {arguments} was accepted")
        except openai.BadRequestError as error:
            check(error.body.get("param") == param, f"suffix with {arguments}: {error.body}")

    marks = [f(vocab) for f in (llama_cpp.llama_vocab_fim_pre, llama_cpp.llama_vocab_fim_suf, llama_cpp.llama_vocab_fim_mid)]
    tokens = ([marks[0]] + reference.tokenize(prefix.encode(), add_bos=False, special=False) + [marks[1]]
              + reference.tokenize(suffix.encode(), add_bos=False, special=False) + [marks[2]])
    reference.eval(tokens)
    row = Llama.logits_to_logprobs(reference.scores[len(tokens) - 1])
    theirs = float(max(value for i, value in enumerate(row) if i not in control))  # the raw softmax: the bias is not in it
    ours = choice.logprobs.token_logprobs[0]
    check(filled.usage.prompt_tokens == len(tokens) and abs(ours - theirs) < 0.15,
          f"infill prompt: ours {filled.usage.prompt_tokens} tokens, first answer token {ours}; llama-cpp-python's {len(tokens)}, {theirs}")

    # llama-server's /infill as llama.vim asks it (its fields, the current line as prompt, response_fields), greedy here: the same
    # gap and prompt as suffix gives; a file of input_extra lengthens the prompt; streamed, the same text and the whole answer last.
    root = str(client.base_url).rstrip("/").rsplit("/v1", 1)[0]

    def infill(**fields):
        body = {"model": infill_model, "input_prefix": "def area(r):\n", "prompt": "    return ", "input_suffix": suffix, "input_extra": [],
                "n_predict": 4, "temperature": 0, "top_k": 40, "top_p": 0.9, "samplers": ["top_k", "top_p", "infill"], "n_indent": 4,
                "cache_prompt": True, "t_max_prompt_ms": 500, "t_max_predict_ms": 1000, "logit_bias": bias, **fields}
        request = urllib.request.Request(root + "/infill", json.dumps(body).encode(), {"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=300) as response:
            return response.read().decode()

    vim = json.loads(infill(response_fields=["content", "timings/prompt_n", "timings/predicted_n", "tokens_cached", "truncated"]))
    check(set(vim) == {"content", "timings/prompt_n", "timings/predicted_n", "tokens_cached", "truncated"} and vim["content"] == choice.text
          and vim["truncated"] is False,
          f"/infill as llama.vim asks: {vim}, suffix's {choice.text!r}")
    whole = json.loads(infill())
    extra = json.loads(infill(input_extra=[{"filename": "geometry.py", "text": "PI = 3.14159\n"}]))
    check(whole["stop"] is True and whole["tokens_evaluated"] == filled.usage.prompt_tokens
          and extra["tokens_evaluated"] > whole["tokens_evaluated"], f"/infill prompts: {whole}, with a file {extra}")
    events = [json.loads(line[6:]) for line in infill(stream=True).splitlines() if line.startswith("data: ")]
    check(len(events) > 1 and "".join(e["content"] for e in events) == choice.text and events[-1]["stop"] is True
          and all(e["stop"] is False for e in events[:-1]), f"/infill streamed: {events}")
    return {"infill": {"text": choice.text, "prompt_tokens": filled.usage.prompt_tokens, "llama_cpp_python": [round(ours, 4), round(theirs, 4)]}}


def check_llama_samplers(client, model):
    """llama-server's other samplers and json_schema on /completion, and the samplers on the chat route, with the real engine.
    Mirostat 2 aiming at no surprise (tau 0) keeps only the likeliest token, and so does top-nσ with a tiny n: at a high
    temperature over the whole vocabulary, with a seed, each answers what greedy answers (every prompt read alone, nothing
    cached); a sampler left unapplied would draw from thousands of tokens. json_schema keeps the output to the schema, its
    properties in the schema's order."""
    root = str(client.base_url).rstrip("/").rsplit("/v1", 1)[0]

    def completion(**fields):
        body = {"model": model, "prompt": "The three primary colours are", "n_predict": 8, "cache_prompt": False, **fields}
        request = urllib.request.Request(root + "/completion", json.dumps(body).encode(), {"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.loads(response.read())

    greedy = completion(temperature=0)["content"]
    hot = {"temperature": 2, "top_k": 0, "top_p": 1, "min_p": 0, "seed": 5}
    mirostat = completion(**hot, mirostat=2, mirostat_tau=0)["content"]
    sigma = completion(**hot, top_n_sigma=0.001)["content"]
    check(greedy != "" and mirostat == greedy and sigma == greedy,
          f"/completion: greedy {greedy!r}, mirostat tau 0 {mirostat!r}, top_n_sigma 0.001 {sigma!r}")
    schema = {"type": "object", "properties": {"second": {"type": "boolean"}, "first": {"type": "integer"}}, "required": ["second", "first"]}
    shaped = completion(prompt="A JSON object:", n_predict=40, temperature=0, json_schema=schema)
    value = json.loads(shaped["content"])
    check(list(value) == ["second", "first"] and isinstance(value["second"], bool) and isinstance(value["first"], int)
          and shaped["stop_type"] == "eos", f"/completion with json_schema: {shaped}")

    def tokenize(content, **fields):
        request = urllib.request.Request(root + "/tokenize", json.dumps({"model": model, "content": content, **fields}).encode(),
                                         {"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.loads(response.read())["tokens"]
    # Strings and token ids in one prompt: each string tokenized where it stands, the model's
    # opening token before the first only; several prompts answered side by side, in their order.
    opening, rest = tokenize("The three", add_special=True), tokenize(" primary colours are")
    mixed = completion(prompt=["The three", *rest], temperature=0)
    check(mixed["tokens_evaluated"] == len(opening) + len(rest) and mixed["content"] != "",
          f"/completion of a string and ids: {mixed['tokens_evaluated']} tokens read, {len(opening)} + {len(rest)} sent: {mixed}")
    several = completion(prompt=["The three primary colours are", [*opening, *rest]], n_predict=4, temperature=0)
    check(isinstance(several, list) and [answer["index"] for answer in several] == [0, 1]
          and all(answer["tokens_predicted"] >= 1 and answer["stop"] for answer in several), f"/completion of two prompts: {several}")
    for prompt, param in [([0, 10 ** 9], "prompt"), (["The three", [*rest, 10 ** 9]], "prompt.1")]:
        try:
            completion(prompt=prompt)
            check(False, f"/completion of an id outside the vocabulary was accepted: {prompt}")
        except urllib.error.HTTPError as error:
            body = json.loads(error.read())
            check(error.code == 400 and body["error"].get("param") == param, f"/completion of an id outside the vocabulary: {body}")
    chat = [{"role": "user", "content": "Name a colour."}]
    plain = client.chat.completions.create(model=model, messages=chat, max_tokens=8, temperature=0, extra_body={"cache_prompt": False})
    chosen = client.chat.completions.create(model=model, messages=chat, max_tokens=8, temperature=2, top_p=1, seed=5,
                                            extra_body={"cache_prompt": False, "top_k": 0, "top_n_sigma": 0.001})
    check(chosen.choices[0].message.content == plain.choices[0].message.content,
          f"chat with top_n_sigma 0.001 {chosen.choices[0].message.content!r}, greedy {plain.choices[0].message.content!r}")
    try:
        client.chat.completions.create(model=model, messages=chat, max_tokens=2, extra_body={"mirostat": 3})
        check(False, "mirostat 3 was accepted")
    except openai.BadRequestError as error:
        check(isinstance(error.body, dict) and error.body.get("param") == "mirostat", f"mirostat 3: {error.body}")
    return {"llama_samplers": {"greedy": greedy, "json_schema": shaped["content"]}}


def check_choices(client, model):
    """n choices, each with its index, generated side by side: with a seed, choice i is the answer of seed + i (a seeded
    request is reproducible, alone or beside others), whole and streamed; usage counts every choice; n past 8 is a 400."""
    messages = chat_messages("Name a colour.")
    whole = client.chat.completions.create(model=model, messages=messages, max_tokens=6, temperature=1, seed=3, n=3)
    texts = [choice.message.content for choice in whole.choices]
    check([choice.index for choice in whole.choices] == [0, 1, 2], f"choice indexes {[choice.index for choice in whole.choices]}")
    alone = client.chat.completions.create(model=model, messages=messages, max_tokens=6, temperature=1, seed=4)
    check(alone.choices[0].message.content == texts[1], f"choice 1 of seed 3 {texts[1]!r}, seed 4 alone {alone.choices[0].message.content!r}")
    check(alone.usage.prompt_tokens == whole.usage.prompt_tokens and whole.usage.completion_tokens >= 3, f"usage {whole.usage}")
    stream = client.chat.completions.create(model=model, messages=messages, max_tokens=6, temperature=1, seed=3, n=2, stream=True,
                                            stream_options={"include_usage": True})
    streamed, reasons, usage = {}, {}, None
    for chunk in stream:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            streamed[choice.index] = streamed.get(choice.index, "") + (choice.delta.content or "")
            if choice.finish_reason:
                reasons[choice.index] = reasons.get(choice.index, []) + [choice.finish_reason]
    check(streamed == {0: texts[0], 1: texts[1]}, f"streamed choices {streamed}, whole {texts[:2]}")
    check(all(len(reasons.get(index, [])) == 1 for index in (0, 1)), f"finish reasons per choice {reasons}")
    check(usage is not None and usage.prompt_tokens == whole.usage.prompt_tokens and usage.completion_tokens >= 2, f"usage chunk {usage}")
    completions = client.completions.create(model=model, prompt="The colours of the rainbow are", max_tokens=4, temperature=1, seed=5, n=2)
    check(sorted(choice.index for choice in completions.choices) == [0, 1], f"completion choices {completions.choices}")
    try:
        client.chat.completions.create(model=model, messages=messages, n=9)
        check(False, "n 9 was accepted")
    except openai.BadRequestError as error:
        check("n must be between 1 and 8" in json.dumps(error.body), f"n error body {error.body}")
    return {"choices": texts}


def check_speech(client, voice_model):
    """Speech through client.audio.speech: WAV and OpenAI's 24 kHz PCM, speed, eSpeak NG voices, errors."""
    listed = {m.id: m.model_extra.get("category") for m in client.models.list().data}
    check(listed.get(voice_model) == "speech-synthesis", f"/v1/models lists {voice_model} as {listed.get(voice_model)}")
    wav = client.audio.speech.create(model=voice_model, voice="alloy", input="Hello from RunAnywhere.", response_format="wav").content
    check(wav[:4] == b"RIFF" and wav[8:12] == b"WAVE", f"speech is not a WAV file: {wav[:12]!r}")
    rate = int.from_bytes(wav[24:28], "little")
    check(len(wav) - 44 > rate * 2 // 2, f"{len(wav)} bytes of WAV at {rate} Hz is under half a second")
    pcm = client.audio.speech.create(model=voice_model, voice="nova", input="Hello from RunAnywhere.", response_format="pcm").content
    check(len(pcm) % 2 == 0 and len(pcm) > 24000 * 2 // 2, f"{len(pcm)} bytes of 24 kHz PCM")
    # Piper draws each sound's length at random, so a speech's length varies by a fifth from one
    # request to the next: 2 against 0.5, not against 1, shows the speed beyond that noise.
    slow = client.audio.speech.create(model=voice_model, voice="nova", input="Hello from RunAnywhere.", response_format="pcm", speed=0.5).content
    fast = client.audio.speech.create(model=voice_model, voice="nova", input="Hello from RunAnywhere.", response_format="pcm", speed=2.0).content
    check(len(fast) < len(slow) * 0.6, f"speed 2 gave {len(fast)} bytes against {len(slow)} at speed 0.5")
    # OpenAI's own model name, as a client made for OpenAI sends it, speaks with the default voice.
    openai_named = client.audio.speech.create(model="tts-1", voice="alloy", input="Hello.", response_format="wav").content
    check(openai_named[:4] == b"RIFF", f"model tts-1 gave no WAV: {openai_named[:12]!r}")
    german = client.audio.speech.create(model="espeak-ng-en-us", voice="de", input="Guten Tag.", response_format="wav").content
    check(german[:4] == b"RIFF", "eSpeak NG with voice de gave no WAV")
    try:
        client.audio.speech.create(model=voice_model, voice="alloy", input="Hello.", response_format="mp3")
        check(False, "mp3 was accepted")
    except openai.BadRequestError as error:
        check("response_format" in json.dumps(error.body), f"mp3 error {error.body}")
    # Streamed sentence by sentence: PCM as server-sent events (a delta a sentence, then done), and as bytes.
    two = "Hello from RunAnywhere. This is the second sentence."
    with client.audio.speech.with_streaming_response.create(model="gpt-4o-mini-tts", voice="alloy", input=two, response_format="pcm",
                                                           stream_format="sse") as response:
        events = [json.loads(line[len("data: "):]) for line in response.iter_lines() if line.startswith("data: ")]
    deltas = [base64.b64decode(event["audio"]) for event in events if event.get("type") == "speech.audio.delta"]
    check(len(deltas) == 2 and all(len(delta) % 2 == 0 and len(delta) > 24000 * 2 // 4 for delta in deltas),
          f"sse deltas of {[len(delta) for delta in deltas]} bytes")
    check(events[-1].get("type") == "speech.audio.done" and events[-1]["usage"]["input_tokens"] == len(two), f"sse done {events[-1]}")
    with client.audio.speech.with_streaming_response.create(model=voice_model, voice="nova", input=two, response_format="pcm") as response:
        streamed = b"".join(response.iter_bytes())
    check(len(streamed) % 2 == 0 and len(streamed) > 24000 * 2, f"{len(streamed)} bytes of streamed PCM")
    whole = client.audio.speech.create(model=voice_model, voice="alloy", input="Hello.", response_format="wav", stream_format="sse")
    check(b"speech.audio.done" in whole.content and b"UklGR" in whole.content, "a WAV as one sse delta (base64 of RIFF…)")
    try:
        client.audio.speech.create(model=voice_model, voice="alloy", input="Hello.", response_format="pcm", stream_format="chunks")
        check(False, "stream_format chunks was accepted")
    except openai.BadRequestError as error:
        check(isinstance(error.body, dict) and error.body.get("param") == "stream_format", f"stream_format chunks error {error.body}")
    try:
        client.audio.speech.create(model="no-such-voice", voice="alloy", input="Hello.")
        check(False, "an unknown voice model was accepted")
    except openai.NotFoundError:
        pass
    try:
        client.chat.completions.create(model=voice_model, messages=chat_messages("hi"))
        check(False, "a voice model was accepted for chat")
    except openai.BadRequestError as error:
        check(isinstance(error.body, dict) and error.body.get("code") == "model_incompatible", f"voice model for chat: {error.body}")
    return {"speech_bytes": {"wav": len(wav), "pcm": len(pcm), "pcm_speed_half": len(slow), "pcm_speed_2": len(fast)}, **check_transcription(client, voice_model)}


def words(text):
    return re.findall(r"[a-z]+", text.lower())


def check_transcription(client, voice_model):
    """Transcription through client.audio.transcriptions: a spoken sentence, sent as WAV and as the
    compressed files clients have (MP3, Ogg/Opus, WebM/Opus made by Debian's ffmpeg), in every
    response format."""
    sentence = "The quick brown fox jumps over the lazy dog."
    wav = client.audio.speech.create(model=voice_model, voice="alloy", input=sentence, response_format="wav").content
    files = {"speech.wav": wav}
    for name, codec in [("speech.mp3", []), ("speech.ogg", ["-c:a", "libopus"]), ("speech.webm", ["-c:a", "libopus"])]:
        files[name] = subprocess.run(["ffmpeg", "-loglevel", "error", "-i", "pipe:0", "-ar", "48000", *codec, "-f", name.rsplit(".", 1)[1], "pipe:1"],
                                     input=wav, capture_output=True, check=True).stdout
    heard = {}
    for name, data in files.items():
        text = client.audio.transcriptions.create(model="whisper-1", file=(name, data)).text
        heard[name] = text
        missed = set(words(sentence)) - set(words(text))
        check(len(missed) <= 2, f"{name} was heard as {text!r}")
    verbose = client.audio.transcriptions.create(model="whisper-tiny.en", file=("speech.webm", files["speech.webm"]),
                                                 response_format="verbose_json", timestamp_granularities=["segment"], language="english")
    check(verbose.language == "english", f"verbose_json language {verbose.language}")
    check(2 < verbose.duration < 6, f"verbose_json duration {verbose.duration}")
    check(len(verbose.segments) >= 1 and all(0 <= s.start < s.end <= verbose.duration + 0.5 for s in verbose.segments),
          f"verbose_json segments {verbose.segments}")
    # What subtitle tools filter on: silence heard as words has a high no_speech_prob, a model repeating itself a high compression_ratio.
    spoken = [s.text for s in verbose.segments if s.no_speech_prob < 0.6 and s.compression_ratio < 2.4]
    check(spoken and all(s.tokens and 0 <= s.no_speech_prob <= 1 and s.compression_ratio > 0 for s in verbose.segments),
          f"verbose_json segments' tokens, no_speech_prob and compression_ratio: {verbose.segments}")
    srt = client.audio.transcriptions.create(model="whisper-1", file=("speech.mp3", files["speech.mp3"]), response_format="srt")
    check(re.match(r"1\n00:00:00,\d{3} --> 00:00:0\d,\d{3}\n", srt) is not None, f"srt {srt!r}")
    vtt = client.audio.transcriptions.create(model="whisper-1", file=("speech.mp3", files["speech.mp3"]), response_format="vtt")
    check(vtt.startswith("WEBVTT\n\n00:00:00.") and "fox" in vtt.lower(), f"vtt {vtt!r}")
    text = client.audio.transcriptions.create(model="whisper-1", file=("speech.ogg", files["speech.ogg"]), response_format="text")
    check("fox" in text.lower(), f"text {text!r}")
    streamed = list(client.audio.transcriptions.create(model="whisper-1", file=("speech.mp3", files["speech.mp3"]), stream=True))
    check([event.type for event in streamed[:-1]] == ["transcript.text.delta"] * (len(streamed) - 1) and len(streamed) >= 2,
          f"stream events {streamed}")
    done = streamed[-1]
    check(done.type == "transcript.text.done" and "".join(event.delta for event in streamed[:-1]) == done.text,
          f"stream deltas against done {streamed}")
    missed = set(words(sentence)) - set(words(done.text))
    check(len(missed) <= 2, f"streamed, speech.mp3 was heard as {done.text!r}")
    try:
        # httpx writes a name that is not ASCII as UTF-8 in the part's headers.
        client.audio.transcriptions.create(model="whisper-1", file=("notes-été.mp3", b"these are not the sounds you are looking for"))
        check(False, "a text file was transcribed")
    except openai.BadRequestError as error:
        check("notes-été.mp3" in json.dumps(error.body, ensure_ascii=False), f"undecodable upload: {error.body}")
    refusals = [
        ("an unknown language", lambda: client.audio.transcriptions.create(model="whisper-1", file=("speech.wav", wav), language="xx"),
         "language"),
        ("an unknown language, streamed", lambda: client.audio.transcriptions.create(model="whisper-1", file=("speech.wav", wav),
                                                                                     language="xx", stream=True), "language"),
        ("nothing to say", lambda: client.audio.speech.create(model=voice_model, voice="alloy", input="  "), "input"),
    ]
    for name, call, param in refusals:
        try:
            call()
            check(False, f"{name} was accepted")
        except openai.BadRequestError as error:
            check(isinstance(error.body, dict) and error.body.get("param") == param, f"{name}: {error.body}")
    import requests
    root = str(client.base_url).rstrip("/")
    twice = requests.post(root + "/audio/transcriptions", data={"model": "whisper-1"}, timeout=60,
                          files=[("file", ("a.wav", wav, "audio/wav")), ("file", ("b.wav", wav, "audio/wav"))],
                          headers={"Authorization": f"Bearer {client.api_key}"})
    check(twice.status_code == 400 and twice.json()["error"].get("param") == "file", f"two files: {twice.status_code} {twice.text}")
    try:
        client.audio.transcriptions.create(model=voice_model, file=("speech.wav", wav))
        check(False, "a voice model was accepted for transcription")
    except openai.BadRequestError as error:
        check(isinstance(error.body, dict) and error.body.get("code") == "model_incompatible", f"voice model for transcription: {error.body}")
    return {"heard": heard, "voice_turn": check_voice_turn(client, voice_model, files["speech.webm"])}


def check_translation(client, model):
    """Speech in French (eSpeak NG's French voice) through client.audio.translations, as English
    (whisper-1: the multilingual `model`, Whisper base, which scripts/setup --tests installs), and
    through client.audio.transcriptions as French, its language named or detected; the English-only
    model refuses to translate."""
    french = client.audio.speech.create(model="espeak-ng-en-us", voice="fr", input="Bonjour. Je voudrais un café, s'il vous plaît. Merci beaucoup.",
                                        response_format="wav").content
    english = client.audio.translations.create(model="whisper-1", file=("french.wav", french)).text
    check("thank you" in english.lower() and "merci" not in english.lower(), f"translated as {english!r}")
    verbose = client.audio.translations.create(model=model, file=("french.wav", french), response_format="verbose_json")
    check(verbose.language == "english" and "thank you" in verbose.text.lower() and len(verbose.segments) >= 1, f"verbose_json {verbose}")
    heard = client.audio.transcriptions.create(model=model, file=("french.wav", french), language="fr").text
    check("merci" in heard.lower(), f"transcribed in French as {heard!r}")
    detected = client.audio.transcriptions.create(model=model, file=("french.wav", french), response_format="verbose_json")
    check(detected.language == "french" and "merci" in detected.text.lower(), f"no language given: detected as {detected.language}, {detected.text!r}")
    try:
        client.audio.translations.create(model="whisper-tiny.en", file=("french.wav", french))
        check(False, "an English-only model translated")
    except openai.BadRequestError as error:
        check(isinstance(error.body, dict) and error.body.get("code") == "model_incompatible" and "cannot translate" in error.body.get("message", ""),
              f"English-only translation: {error.body}")
    return {"translated": english, "heard_in_french": heard}


def server_sent_events(response):
    """The (event, data) pairs of a text/event-stream response."""
    events, name, data = [], None, []
    for line in response.iter_lines(decode_unicode=True):
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])
        elif line == "" and data:
            events.append((name, json.loads("\n".join(data))))
            name, data = None, []
    return events


def check_voice_turn(client, voice_model, webm):
    """RunAnywhere's own voice turn (POST /api/voice), with `requests` (in the venv as a
    dependency of pywhispercpp) posting what a browser records: WebM/Opus."""
    import requests
    root = str(client.base_url).rstrip("/").rsplit("/v1", 1)[0]
    with requests.post(root + "/api/voice", files={"file": ("turn.webm", webm, "audio/webm")},
                       data={"voice": voice_model, "systemPrompt": "Answer in five words."}, stream=True, timeout=300) as response:
        check(response.status_code == 200, f"voice turn status {response.status_code}")
        events = server_sent_events(response)
    names = [name for name, _ in events]
    check(names[:2] == ["speech", "transcript"] and names[-2:] == ["audio", "done"] and "delta" in names, f"voice turn events {names}")
    data = dict(events)
    check("fox" in data.get("transcript", {}).get("text", "").lower(), f"voice turn heard {data.get('transcript')}")
    wav = base64.b64decode(data.get("audio", {}).get("data", ""))
    check(wav[:4] == b"RIFF", "the spoken answer is not a WAV file")
    answer = "".join(d["content"] for name, d in events if name == "delta")
    check(answer.strip() != "" and answer == data.get("done", {}).get("response"), f"voice answer {answer!r} against {data.get('done')}")
    return {"transcript": data.get("transcript", {}).get("text"), "answer": answer, "timings": data.get("done", {}).get("timings")}


def png(width, height, rgb):
    """A solid-colour PNG file, written here (zlib, no imaging library)."""
    import struct
    import zlib
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def image_message(question, image_bytes):
    url = "data:image/png;base64," + base64.b64encode(image_bytes).decode()
    return [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": question}]}]


def check_vision(client, vision_model, text_model):
    """A vision-language model reads images sent as OpenAI's image_url parts (data URLs), whole
    and streamed; a text model, a remote URL or a damaged image get a clear 400."""
    check(vision_model in [m.id for m in client.models.list().data], f"{vision_model} not in /v1/models")
    red = png(96, 64, (255, 0, 0))
    whole = client.chat.completions.create(model=vision_model, messages=image_message("What colour is this?", red), max_tokens=6, temperature=0)
    plain = client.chat.completions.create(model=vision_model, messages=chat_messages("What colour is this?"), max_tokens=6, temperature=0)
    check(whole.usage.completion_tokens > 0, "no answer about the image")
    check(whole.usage.prompt_tokens > plain.usage.prompt_tokens, f"the image added no tokens: {whole.usage.prompt_tokens} vs {plain.usage.prompt_tokens}")
    stream = client.chat.completions.create(model=vision_model, messages=image_message("What colour is this?", red), max_tokens=6,
                                            temperature=0, stream=True)
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    check(streamed == whole.choices[0].message.content, f"streamed {streamed!r}, whole {whole.choices[0].message.content!r}")
    refusals = {}
    for name, model, messages, code in [
        ("text model", text_model, image_message("What is this?", red), "model_incompatible"),
        ("remote URL", vision_model, [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
                                                                     {"type": "text", "text": "hi"}]}], None),
        ("damaged image", vision_model, image_message("What is this?", red[:40]), "invalidInput"),
    ]:
        try:
            client.chat.completions.create(model=model, messages=messages, max_tokens=4)
            check(False, f"{name}: accepted")
        except openai.BadRequestError as error:
            refusals[name] = error.body.get("message") if isinstance(error.body, dict) else str(error.body)
            check(code is None or (isinstance(error.body, dict) and error.body.get("code") == code), f"{name}: {error.body}")
    return {"vision": {"answer": whole.choices[0].message.content, "prompt_tokens": whole.usage.prompt_tokens,
                       "text_only_prompt_tokens": plain.usage.prompt_tokens, "refusals": refusals}}


def check_structured(client, model):
    """Structured output through OpenAI's own API shapes: a pydantic model through
    `chat.completions.parse` (a strict json_schema), seeded samples of a schema with bounds,
    enums, arrays and nesting all valid for the `jsonschema` package, a streamed answer, any JSON
    object, and an unsupported schema refused naming itself."""
    import typing
    import jsonschema
    import pydantic

    class Weather(pydantic.BaseModel):
        city: str
        temperature_c: int
        conditions: typing.Literal["sunny", "cloudy", "rain", "snow"]

    parsed = client.chat.completions.parse(model=model, messages=chat_messages("What is the weather in Oslo today?"),
                                           response_format=Weather, max_tokens=80, temperature=0)
    weather = parsed.choices[0].message.parsed
    check(isinstance(weather, Weather), f"parse() gave {parsed.choices[0].message.content!r}")
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 30},
            "age": {"type": "integer", "minimum": 0, "maximum": 120},
            "score": {"type": "number", "minimum": -1, "maximum": 1},
            "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 3},
            "pet": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {"kind": {"type": "string", "pattern": "^[a-z]{3,8}$"}},
                                                 "required": ["kind"], "additionalProperties": False}]},
        },
        "required": ["name", "age", "score", "tags", "pet"],
        "additionalProperties": False,
    }
    answers = []
    for seed in range(4):
        response = client.chat.completions.create(
            model=model, messages=chat_messages("Invent a person."), max_tokens=120, temperature=1.0, seed=seed,
            response_format={"type": "json_schema", "json_schema": {"name": "person", "schema": schema, "strict": True}})
        text = response.choices[0].message.content
        try:
            jsonschema.validate(json.loads(text), schema)
            answers.append(json.loads(text))
        except (ValueError, jsonschema.ValidationError) as error:
            check(False, f"seed {seed}: {text!r} is not valid: {error}")
    check(all(list(a) == list(schema["properties"]) for a in answers), f"properties out of order: {answers}")
    stream = client.chat.completions.create(model=model, messages=chat_messages("Invent a person."), max_tokens=120, temperature=0, stream=True,
                                            response_format={"type": "json_schema", "json_schema": {"name": "person", "schema": schema}})
    streamed = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    jsonschema.validate(json.loads(streamed), schema)
    whole = client.chat.completions.create(model=model, messages=chat_messages("Describe a cat as JSON with its name and age."), max_tokens=150,
                                           temperature=0, response_format={"type": "json_object"})
    check(whole.choices[0].finish_reason == "stop" and isinstance(json.loads(whole.choices[0].message.content), dict),
          f"json_object gave {whole.choices[0].message.content!r}")
    try:
        client.chat.completions.create(model=model, messages=chat_messages("Hi"), max_tokens=5,
                                       response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "string", "format": "email"}}})
        check(False, "an unsupported schema was accepted")
    except openai.BadRequestError as error:
        body = error.body if isinstance(error.body, dict) else {}
        check(body.get("param") == "response_format.json_schema.schema" and "email" in body.get("message", ""), f"unsupported schema: {error.body}")
    return {"structured": {"weather": weather.model_dump() if isinstance(weather, Weather) else None, "people": answers}}


def random_schema(rng, depth=0):
    """A random schema from the converter's supported subset (small, so answers stay short)."""
    kinds = ["string", "pattern", "integer", "number", "boolean", "enum", "array", "nullable"] + (["object"] if depth < 1 else [])
    kind = rng.choice(kinds)
    if kind == "string":
        return {"type": "string", "minLength": rng.randint(0, 2), "maxLength": rng.randint(3, 12)}
    if kind == "pattern":
        return {"type": "string", "pattern": rng.choice(["^[a-z]{2,6}$", "^[A-Z][0-9]{2}$", "^(yes|no)$", "^\\d{3}-\\d{2}$"])}
    if kind == "integer":
        low = rng.randint(-50, 50)
        return {"type": "integer", "minimum": low, "maximum": low + rng.randint(0, 200)}
    if kind == "number":
        low = rng.randint(-5, 5)
        return {"type": "number", "minimum": low, "maximum": low + rng.randint(1, 10)}
    if kind == "boolean":
        return {"type": "boolean"}
    if kind == "enum":
        return {"enum": rng.sample(["red", "green", "blue", 1, 2, None, True], rng.randint(1, 4))}
    if kind == "array":
        return {"type": "array", "items": random_schema(rng, depth + 1), "minItems": rng.randint(0, 1), "maxItems": rng.randint(1, 3)}
    if kind == "nullable":
        return {"anyOf": [{"type": "null"}, random_schema(rng, depth + 1)]}
    return random_object(rng, depth + 1, rng.randint(1, 2))


def random_object(rng, depth, count):
    names = rng.sample(["id", "name", "size", "tags", "ok", "kind", "score", "note"], count)
    properties = {name: random_schema(rng, depth) for name in names}
    return {"type": "object", "properties": properties, "required": rng.sample(names, rng.randint(1, count)), "additionalProperties": False}


def check_random_schemas(client, model):
    """The property test: random schemas from the supported subset, 6 seeded samples each at
    temperature 1, every one valid for `jsonschema` (more schemas with fewer samples each find more
    of the converter's cases than many samples of few); and, for comparison, llama.cpp's own
    converter (llama-cpp-python's json_schema_to_gbnf, sent as `grammar`) on the same schemas,
    its samples validated the same way and reported (it does not enforce every keyword)."""
    import random
    import jsonschema
    from llama_cpp.llama_grammar import json_schema_to_gbnf
    rng = random.Random(20261123)
    report = []
    samples, theirs_samples = 6, 2
    for index in range(4):
        schema = random_object(rng, 0, 3)
        valid = 0
        for seed in range(samples):
            response = client.chat.completions.create(
                model=model, messages=chat_messages("Fill in an example."), max_tokens=120, temperature=1.0, seed=seed,
                response_format={"type": "json_schema", "json_schema": {"name": f"random{index}", "schema": schema}})
            text = response.choices[0].message.content
            try:
                jsonschema.validate(json.loads(text), schema)
                valid += 1
            except (ValueError, jsonschema.ValidationError) as error:
                check(False, f"schema {json.dumps(schema)}, seed {seed}: {text!r} ({response.choices[0].finish_reason}) is not valid: {error}")
        theirs = 0
        grammar = json_schema_to_gbnf(json.dumps(schema))
        for seed in range(theirs_samples):
            response = client.chat.completions.create(model=model, messages=chat_messages("Fill in an example."), max_tokens=120,
                                                      temperature=1.0, seed=seed, extra_body={"grammar": grammar})
            try:
                jsonschema.validate(json.loads(response.choices[0].message.content), schema)
                theirs += 1
            except (ValueError, jsonschema.ValidationError):
                pass
        report.append({"schema": schema, "valid": f"{valid}/{samples}", "llama_cpp_converter_valid": f"{theirs}/{theirs_samples}"})
    return {"random_schemas": report}


WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1, "maxLength": 40},
                                                    "unit": {"enum": ["celsius", "fahrenheit"]}},
                   "required": ["city", "unit"], "additionalProperties": False}}}
CALCULATOR_TOOL = {"type": "function", "function": {
    "name": "calculate", "description": "Evaluate an arithmetic expression",
    "parameters": {"type": "object", "properties": {"expression": {"type": "string", "minLength": 1, "maxLength": 60}},
                   "required": ["expression"], "additionalProperties": False}}}


def check_call(call, tools):
    """Whether a tool call names one of `tools` and its arguments are valid for that tool's schema."""
    import jsonschema
    schemas = {tool["function"]["name"]: tool["function"]["parameters"] for tool in tools}
    if not check(call.type == "function" and call.function.name in schemas and call.id, f"a call to an unknown tool: {call}"):
        return None
    try:
        arguments = json.loads(call.function.arguments)
        jsonschema.validate(arguments, schemas[call.function.name])
        return arguments
    except (ValueError, jsonschema.ValidationError) as error:
        check(False, f"the arguments of {call.function.name} are not valid: {call.function.arguments!r}: {error}")


def check_tools(client, model):
    """Tool calling through OpenAI's API shapes: a named call whose arguments `jsonschema` accepts,
    its result sent back as a `tool` message and used in the answer; `required` and `auto`; the
    same call streamed as tool_call deltas; `pydantic_function_tool` with `parse()`; and a tool
    whose schema is not supported, or a tool_choice naming no tool, refused."""
    import typing
    import pydantic
    tools = [WEATHER_TOOL, CALCULATOR_TOOL]
    question = [{"role": "user", "content": "What is the weather in Paris?"}]
    named = {"type": "function", "function": {"name": "get_weather"}}
    first = client.chat.completions.create(model=model, messages=question, tools=tools, tool_choice=named, max_tokens=60, temperature=0)
    choice = first.choices[0]
    calls = choice.message.tool_calls or []
    check(choice.finish_reason == "tool_calls" and len(calls) == 1 and choice.message.content is None, f"a named call gave {choice}")
    arguments = check_call(calls[0], tools) if calls else None
    seen = {"tool_call": arguments}
    if calls:
        # The result goes back as a tool message; with tool_choice none the model answers with it.
        messages = question + [choice.message, {"role": "tool", "tool_call_id": calls[0].id, "content": "18 degrees Celsius and sunny"}]
        answer = client.chat.completions.create(model=model, messages=messages, tools=tools, tool_choice="none", max_tokens=60, temperature=0)
        text = answer.choices[0].message.content or ""
        seen["tool_answer"] = text
        check(answer.choices[0].finish_reason == "stop" and not answer.choices[0].message.tool_calls, f"the answer after the result: {answer.choices[0]}")
        check("18" in text or "sunny" in text, f"the answer does not use the tool's result: {text!r}")
        # Streamed, the same greedy call arrives as deltas: id, type and name first, then the arguments.
        stream = client.chat.completions.create(model=model, messages=question, tools=tools, tool_choice=named, max_tokens=60,
                                                temperature=0, stream=True)
        streamed, content, reasons = {}, "", []
        for chunk in stream:
            for part in chunk.choices:
                content += part.delta.content or ""
                if part.finish_reason:
                    reasons.append(part.finish_reason)
                for delta in part.delta.tool_calls or []:
                    call = streamed.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
                    call["id"] = call["id"] or delta.id
                    call["name"] += (delta.function.name or "") if delta.function else ""
                    call["arguments"] += (delta.function.arguments or "") if delta.function else ""
        check(reasons == ["tool_calls"] and content == "", f"streamed call: finish reasons {reasons}, content {content!r}")
        check(list(streamed) == [0] and streamed[0]["name"] == "get_weather" and streamed[0]["id"]
              and json.loads(streamed[0]["arguments"] or "null") == arguments, f"streamed call {streamed} differs from {arguments}")
    # required: one of the tools, valid; auto: text, or a valid call.
    required = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "What is 12 times 7?"}], tools=tools,
                                              tool_choice="required", max_tokens=60, temperature=0).choices[0]
    check(required.finish_reason == "tool_calls" and len(required.message.tool_calls or []) == 1, f"required gave {required}")
    for call in required.message.tool_calls or []:
        check_call(call, tools)
    # required with parallel calls: a small model tends to repeat its call; what comes back are the
    # complete calls, each once, never the server's call markup as content, whole or streamed.
    weather = [{"role": "user", "content": "What is the weather in Paris?"}]
    parallel = client.chat.completions.create(model=model, messages=weather, tools=[WEATHER_TOOL], tool_choice="required",
                                              parallel_tool_calls=True, max_tokens=60, temperature=0).choices[0]
    parallel_calls = [(c.function.name, c.function.arguments) for c in parallel.message.tool_calls or []]
    check(parallel.finish_reason in ("tool_calls", "length") and parallel_calls and len(set(parallel_calls)) == len(parallel_calls)
          and "tool_calls" not in (parallel.message.content or ""), f"parallel required calls gave {parallel}")
    for call in parallel.message.tool_calls or []:
        check_call(call, [WEATHER_TOOL])
    stream = client.chat.completions.create(model=model, messages=weather, tools=[WEATHER_TOOL], tool_choice="required",
                                            parallel_tool_calls=True, max_tokens=60, temperature=0, stream=True)
    streamed, content = {}, ""
    for chunk in stream:
        for part in chunk.choices:
            content += part.delta.content or ""
            for delta in part.delta.tool_calls or []:
                entry = streamed.setdefault(delta.index, ["", ""])
                entry[0] += (delta.function.name or "") if delta.function else ""
                entry[1] += (delta.function.arguments or "") if delta.function else ""
    check(content == "" and [tuple(v) for _, v in sorted(streamed.items())] == parallel_calls,
          f"streamed parallel calls {streamed}, content {content!r}, whole {parallel_calls}")
    auto = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "What is 12 times 7?"}], tools=tools,
                                          max_tokens=60, temperature=0).choices[0]
    if auto.message.tool_calls:
        check(auto.finish_reason == "tool_calls", f"auto called a tool but finished with {auto.finish_reason}")
        for call in auto.message.tool_calls:
            check_call(call, tools)
    else:
        check(auto.finish_reason in ("stop", "length") and (auto.message.content or "").strip(), f"auto gave {auto}")
    seen["tool_auto"] = auto.message.content or [c.function.name for c in auto.message.tool_calls]

    class GetWeather(pydantic.BaseModel):
        """Get the current weather in a city."""
        city: str
        unit: typing.Literal["celsius", "fahrenheit"]

    parsed = client.chat.completions.parse(model=model, messages=question, tools=[openai.pydantic_function_tool(GetWeather)],
                                           tool_choice={"type": "function", "function": {"name": "GetWeather"}}, max_tokens=60, temperature=0)
    parsed_calls = parsed.choices[0].message.tool_calls or []
    check(len(parsed_calls) == 1 and isinstance(parsed_calls[0].function.parsed_arguments, GetWeather), f"parse() with a tool gave {parsed.choices[0]}")
    unsupported = {"type": "function", "function": {"name": "mail", "parameters": {
        "type": "object", "properties": {"to": {"type": "string", "format": "email"}}}}}
    for bad, words in (({"tools": [unsupported]}, "format 'email'"), ({"tools": tools, "tool_choice": {"type": "function", "function": {"name": "x"}}}, "'x'")):
        try:
            client.chat.completions.create(model=model, messages=question, max_tokens=5, **bad)
            check(False, f"{bad} was not refused")
        except openai.BadRequestError as error:
            check(words in str(error), f"the refusal of {bad} does not say {words}: {error}")
    return seen


def png_size(data):
    """The width and height in a PNG file's header (None when it is not a PNG)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def check_images(client, image_model):
    """images.generate on the local diffusion engine (the fixture draws noise, so only sizes,
    seeds and errors are checked): base64 and data-URL answers, n images with consecutive
    seeds, the same seed drawing the same image, and refusals as OpenAI's errors."""
    listed = {m.id: m.model_extra.get("category") for m in client.models.list().data}
    check(listed.get(image_model) == "image-generation", f"/v1/models lists {image_model} as {listed.get(image_model)}")
    small = {"steps": 2, "guidance_scale": 1}
    first = client.images.generate(model=image_model, prompt="A red circle on a white background", size="64x64", n=2,
                                   response_format="b64_json", extra_body={**small, "seed": 11})
    images = [base64.b64decode(item.b64_json) for item in first.data]
    check([png_size(image) for image in images] == [(64, 64), (64, 64)], f"image sizes {[png_size(image) for image in images]}")
    check([item.model_extra.get("seed") for item in first.data] == [11, 12], f"seeds {[item.model_extra.get('seed') for item in first.data]}")
    check(images[0] != images[1], "two seeds drew the same image")
    again = client.images.generate(model=image_model, prompt="A red circle on a white background", size="64x64",
                                   response_format="url", extra_body={**small, "seed": 11})
    url = again.data[0].url
    check(url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1]) == images[0], "the same seed drew another image")
    wide = client.images.generate(model=image_model, prompt="A boat", size="96x64", extra_body=small)
    check(png_size(base64.b64decode(wide.data[0].b64_json)) == (96, 64), "a 96x64 image has another size")
    check(wide.output_format == "png" and wide.size == "96x64", f"output_format {wide.output_format}, size {wide.size}")
    # Streamed: each image as an image_generation.completed event, the same seed drawing the same image.
    events = list(client.images.generate(model=image_model, prompt="A red circle on a white background", size="64x64", n=2, stream=True,
                                         partial_images=1, extra_body={**small, "seed": 11}))
    check([event.type for event in events] == ["image_generation.completed"] * 2
          and [base64.b64decode(event.b64_json) for event in events] == images and all(e.output_format == "png" for e in events),
          f"streamed images: {[(event.type, event.size, event.model_extra.get('seed')) for event in events]}")
    for name, call, param in [
        ("odd size", lambda: client.images.generate(model=image_model, prompt="A cat", size="65x64", extra_body=small), "size"),
        ("no steps", lambda: client.images.generate(model=image_model, prompt="A cat", size="64x64", extra_body={"steps": 0}), "steps"),
        ("guidance", lambda: client.images.generate(model=image_model, prompt="A cat", size="64x64",
                                                    extra_body={**small, "guidance_scale": 31}), "guidance_scale"),
        ("seed", lambda: client.images.generate(model=image_model, prompt="A cat", size="64x64", extra_body={**small, "seed": -2}), "seed"),
        ("bad size", lambda: client.images.generate(model=image_model, prompt="A cat", size="large", extra_body=small), "size"),
        ("size with a trailing x", lambda: client.images.generate(model=image_model, prompt="A cat", size="64x64x", extra_body=small),
         "size"),
        ("too many", lambda: client.images.generate(model=image_model, prompt="A cat", n=9, size="64x64", extra_body=small), "n"),
        ("unknown model", lambda: client.images.generate(model="no-such-model", prompt="A cat"), "model"),
        ("jpeg", lambda: client.images.generate(model=image_model, prompt="A cat", size="64x64", output_format="jpeg", extra_body=small),
         "output_format"),
    ]:
        try:
            call()
            check(False, f"{name} was accepted")
        except (openai.BadRequestError, openai.NotFoundError) as error:
            body = error.body if isinstance(error.body, dict) else {}
            check(param is None or body.get("param") == param, f"{name}: {error.body}")
    return {"images": {"bytes": [len(image) for image in images], "seeds": [11, 12]}}


def check_auth(client, base_url, model):
    check(model in [m.id for m in client.models.list().data], "the right key does not list the model")
    try:
        OpenAI(base_url=base_url, api_key="wrong-key", max_retries=0).models.list()
        check(False, "a wrong key was accepted")
    except openai.AuthenticationError as error:
        check(error.status_code == 401, f"wrong key status {error.status_code}")
    # The API needs the key; the web app's page (which holds no data, and asks for the key) does not.
    root = base_url.rsplit("/v1", 1)[0]
    for path in ("/api/conversations", "/metrics", "/openapi.json"):
        try:
            urllib.request.urlopen(root + path)
            check(False, f"{path} answered without the key")
        except urllib.error.HTTPError as error:
            check(error.code == 401, f"{path} without the key: {error.code}")
    with urllib.request.urlopen(root + "/") as page:
        check(page.status == 200 and b"<title>RunAnywhere</title>" in page.read(), "the web app's page is not served without the key")
    return {"auth": "checked"}


def check_busy(client, base_url, model):
    """Against a server with one slot and no queue: a second request is refused with 503 and
    Retry-After while the first streams, and a client that disconnects frees its slot."""
    stream = client.completions.create(model=model, prompt="1, 2, 3, 4, 5, 6, 7, 8, 9, 10,", max_tokens=4000,
                                       temperature=0, stream=True)
    next(iter(stream))
    try:
        client.chat.completions.create(model=model, messages=chat_messages("hi"), max_tokens=4)
        check(False, "a request was taken while the only slot was busy and the queue holds none")
    except openai.APIStatusError as error:
        check(error.status_code == 503, f"busy status {error.status_code}")
        check(error.response.headers.get("retry-after") is not None, "503 without Retry-After")
        check(isinstance(error.body, dict) and error.body.get("code") == "busy", f"busy body {error.body}")
    stream.close()
    # The server notices the disconnection at its next token, well before the 4000 tokens end.
    ps_url = base_url.rsplit("/v1", 1)[0] + "/api/models/loaded"
    deadline, freed = time.monotonic() + 20, False
    while not freed and time.monotonic() < deadline:
        with urllib.request.urlopen(ps_url) as response:
            freed = all(m["activeRequests"] == 0 for m in json.load(response)["models"])
        time.sleep(0.05)
    check(freed, "the disconnected stream still holds its slot")
    answer = client.chat.completions.create(model=model, messages=chat_messages("hi"), max_tokens=4)
    check(answer.usage.completion_tokens > 0, "no answer after the slot was freed")
    return {"busy": "checked"}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--api-key", default="not-needed")
    parser.add_argument("--check", choices=["all", "auth", "busy"], default="all")
    parser.add_argument("--voice-model", help="also check speech with this text-to-speech model, and transcription of its speech")
    parser.add_argument("--translation-model", help="also check translation to English, and French, with this multilingual speech-to-text model")
    parser.add_argument("--vision-model", help="also check images in chat with this vision-language model")
    parser.add_argument("--image-model", help="also check image generation with this diffusion model")
    parser.add_argument("--model-file", help="the model's GGUF: its logprobs are also checked against llama-cpp-python's")
    parser.add_argument("--infill-model", help="a code model, for fill-in-the-middle (suffix, /infill)")
    parser.add_argument("--infill-model-file", help="its GGUF: with it, fill-in-the-middle is checked, against llama-cpp-python's reading too")
    args = parser.parse_args()
    # Every answer of the checks of a server without a key is also checked against its OpenAPI document.
    transport = Document(server_root(args.base_url)).checked_transport() if args.check == "all" else None
    client = OpenAI(base_url=args.base_url, api_key=args.api_key, max_retries=0, timeout=300, http_client=transport and httpx.Client(transport=transport))
    checks = {"all": lambda: check_all(client, args.model), "auth": lambda: check_auth(client, args.base_url, args.model),
              "busy": lambda: check_busy(client, args.base_url, args.model)}
    seen = checks[args.check]()
    if args.voice_model:
        seen.update(check_speech(client, args.voice_model))
    if args.translation_model:
        seen.update(check_translation(client, args.translation_model))
    if args.vision_model:
        seen.update(check_vision(client, args.vision_model, args.model))
    if args.image_model:
        seen.update(check_images(client, args.image_model))
    if args.check == "all":
        seen.update(check_structured(client, args.model))
        seen.update(check_random_schemas(client, args.model))
        seen.update(check_tools(client, args.model))
        seen.update(check_logprobs(client, args.model, args.model_file))
        seen.update(check_choices(client, args.model))
        seen.update(check_llama_samplers(client, args.model))
        seen.update(check_echo(client, args.model, args.model_file))
        if args.infill_model_file:
            seen.update(check_infill(client, args.model, args.infill_model, args.infill_model_file))
    if transport:
        seen.update(transport.report(check))
    print(json.dumps({"openai": openai.__version__, "seen": seen, "failures": failures}, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
