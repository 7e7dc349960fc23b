#!/usr/bin/env python3
"""POST /v1/embeddings of a running `runanywhere serve` under the official `openai` package and
langchain-openai's OpenAIEmbeddings, both unchanged.

Run by the CLI tests (CLIEmbeddingServeTests) with the project venv's Python:
    embeddings_client_check.py --base-url http://127.0.0.1:PORT/v1 --model EMBEDDING_MODEL --chat-model LANGUAGE_MODEL
Checks the vectors (the model's dimensions, unit length, in the order given, similar sentences
closer than unrelated ones), usage, the three ways to get them (the client's default, which asks
for base64 and decodes it; float; base64 decoded here as little-endian float32) and refusals in
OpenAI's error envelope. langchain-openai is configured with check_embedding_ctx_length=False:
by default it counts tokens with tiktoken (whose vocabulary it downloads at run time) and sends
the token ids, which mean other words to a local model; the server refuses ids with a 400.
Every answer the `openai` client reads is also checked against the server's OpenAPI document
(openapi_validation.py).
Prints one JSON object of what it saw and exits 1 with the failed checks listed.
"""
import argparse
import base64
import json
import math
import struct
import sys

import httpx
import openai
from openai import OpenAI

from openapi_validation import Document, server_root

failures = []

FOOD, BREAD, BABY = "A man is eating food.", "A man is eating a piece of bread.", "The girl is carrying a baby."


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b)) / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def close(a, b, tolerance=1e-5):
    return len(a) == len(b) and all(abs(x - y) <= tolerance for x, y in zip(a, b))


def check_vectors(name, vectors, dimensions):
    check(all(len(vector) == dimensions for vector in vectors), f"{name}: lengths {[len(v) for v in vectors]}, not {dimensions}")
    norms = [math.sqrt(sum(x * x for x in vector)) for vector in vectors]
    check(all(abs(norm - 1) < 1e-4 for norm in norms), f"{name}: norms {norms}, not 1")


def refused(name, call, status, param=None, code=None):
    """Checks that `call` is refused with `status` in OpenAI's error envelope (naming `param`)."""
    try:
        call()
        check(False, f"{name} was accepted")
        return None
    except openai.APIStatusError as error:
        body = error.body if isinstance(error.body, dict) else {}
        check(error.status_code == status, f"{name}: status {error.status_code}, not {status}: {error.body}")
        check({"message", "type"} <= body.keys() and bool(body.get("message")), f"{name}: not OpenAI's error envelope: {error.body}")
        check(body.get("type") == ("invalid_request_error" if status == 400 else "not_found_error"), f"{name}: type {body.get('type')}")
        check(param is None or body.get("param") == param, f"{name}: param {body.get('param')}, not {param}: {error.body}")
        check(code is None or body.get("code") == code, f"{name}: code {body.get('code')}, not {code}: {error.body}")
        return body.get("message")


def check_openai(client, model, chat_model):
    seen = {}
    texts = [FOOD, BREAD, BABY]
    default = client.embeddings.create(model=model, input=texts)  # the client asks for base64 and decodes it
    check(default.object == "list" and default.model == model, f"object {default.object}, model {default.model}")
    check([item.index for item in default.data] == [0, 1, 2], f"indices {[item.index for item in default.data]}")
    check(all(item.object == "embedding" for item in default.data), "an item is not an embedding")
    vectors = [item.embedding for item in default.data]
    dimensions = len(vectors[0])
    check(dimensions == 384, f"{model} made {dimensions} dimensions, not 384")
    listed = {m.id: (m.owned_by, m.model_extra.get("category")) for m in client.models.list().data}
    check(listed.get(model) == ("runanywhere", "embedding"), f"/v1/models lists {model} as {listed.get(model)}")
    check(listed.get(chat_model) == ("runanywhere", "language"), f"/v1/models lists {chat_model} as {listed.get(chat_model)}")
    check(client.models.retrieve(model).id == model, "models.retrieve returns another model")
    check_vectors("default", vectors, 384)
    check(default.usage.prompt_tokens > len(texts) * 2, f"prompt_tokens {default.usage.prompt_tokens}")
    check(default.usage.total_tokens == default.usage.prompt_tokens, f"total_tokens {default.usage.total_tokens}")
    food_bread, food_baby, bread_baby = cosine(vectors[0], vectors[1]), cosine(vectors[0], vectors[2]), cosine(vectors[1], vectors[2])
    check(food_bread > food_baby and food_bread > bread_baby, f"similar sentences are not the closest: {food_bread}, {food_baby}, {bread_baby}")
    seen["cosines"] = {"food-bread": round(food_bread, 4), "food-baby": round(food_baby, 4), "bread-baby": round(bread_baby, 4)}
    seen["usage"] = default.usage.prompt_tokens

    floats = client.embeddings.create(model=model, input=texts, encoding_format="float")
    check(all(close(a.embedding, b) for a, b in zip(floats.data, vectors)), "float vectors differ from the default's")
    encoded = client.embeddings.create(model=model, input=texts, encoding_format="base64")
    strings = [item.embedding for item in encoded.data]
    check(all(isinstance(text, str) for text in strings), f"base64 answered {type(strings[0]).__name__}")
    decoded = [list(struct.unpack(f"<{len(base64.b64decode(text)) // 4}f", base64.b64decode(text))) for text in strings]
    check(all(close(a, b, 0) for a, b in zip(decoded, vectors)), "little-endian float32 of base64 differ from the default's")

    reversed_order = client.embeddings.create(model=model, input=list(reversed(texts)), encoding_format="float")
    check(all(close(a.embedding, b) for a, b in zip(reversed_order.data, reversed(vectors))), "the order of the texts is not kept")
    one = client.embeddings.create(model=model, input=BABY, encoding_format="float", dimensions=384, user="check")
    check(len(one.data) == 1 and close(one.data[0].embedding, vectors[2]), "one string is not the same vector as in a list")

    long_text = " ".join(["word"] * 600)
    message = refused("a text longer than the model reads", lambda: client.embeddings.create(model=model, input=[FOOD, long_text]), 400, "input", "context_length_exceeded")
    seen["too_long"] = message
    cut = client.embeddings.create(model=model, input=[long_text], encoding_format="float", extra_body={"truncate": True})
    check(0 < cut.usage.prompt_tokens <= 512, f"truncated to {cut.usage.prompt_tokens} tokens")
    check_vectors("truncated", [cut.data[0].embedding], 384)

    refused("token ids", lambda: client.embeddings.create(model=model, input=[101, 2023, 102]), 400, "input")
    refused("lists of token ids", lambda: client.embeddings.create(model=model, input=[[101, 2023], [102]]), 400, "input")
    refused("an empty list", lambda: client.embeddings.create(model=model, input=[]), 400, "input")
    refused("an empty string", lambda: client.embeddings.create(model=model, input=""), 400, "input")
    refused("too many texts", lambda: client.embeddings.create(model=model, input=["a"] * 2049), 400, "input")
    refused("fewer dimensions", lambda: client.embeddings.create(model=model, input=FOOD, dimensions=128), 400, "dimensions")
    refused("an unknown encoding", lambda: client.embeddings.create(model=model, input=FOOD, extra_body={"encoding_format": "hex"}), 400, "encoding_format")
    refused("a language model", lambda: client.embeddings.create(model=chat_model, input=FOOD), 400, "model", "model_incompatible")
    refused("an unknown model", lambda: client.embeddings.create(model="no-such-model", input=FOOD), 404, "model", "model_not_found")
    seen["openai"] = {"dimensions": dimensions, "texts": len(vectors)}
    return seen, vectors


def check_langchain(base_url, model, reference):
    from langchain_openai import OpenAIEmbeddings

    embeddings = OpenAIEmbeddings(model=model, base_url=base_url, api_key="not-needed", check_embedding_ctx_length=False, max_retries=0)
    documents = embeddings.embed_documents([FOOD, BREAD, BABY])
    check(len(documents) == 3, f"embed_documents gave {len(documents)} vectors")
    check_vectors("embed_documents", documents, 384)
    check(all(close(a, b) for a, b in zip(documents, reference)), "embed_documents differs from the openai client's vectors")
    query = embeddings.embed_query(BREAD)
    check_vectors("embed_query", [query], 384)
    check(close(query, reference[1]), "embed_query differs from the document's vector")
    ranked = sorted(range(3), key=lambda index: -cosine(query, documents[index]))
    check(ranked[0] == 1 and ranked[1] == 0, f"a query about bread ranks the documents {ranked}")
    return {"langchain": {"documents": len(documents), "ranked": ranked}}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True, help="the embedding model")
    parser.add_argument("--chat-model", required=True, help="a language model, which the route must refuse")
    args = parser.parse_args()
    transport = Document(server_root(args.base_url)).checked_transport()  # every answer also checked against the OpenAPI document
    client = OpenAI(base_url=args.base_url, api_key="not-needed", max_retries=0, timeout=300, http_client=httpx.Client(transport=transport))
    seen, vectors = check_openai(client, args.model, args.chat_model)
    seen.update(check_langchain(args.base_url, args.model, vectors))
    seen.update(transport.report(check))
    print(json.dumps({"openai": openai.__version__, "seen": seen, "failures": failures}, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
