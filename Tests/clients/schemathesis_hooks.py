"""schemathesis hooks for `schemathesis_check.py` (loaded through SCHEMATHESIS_HOOKS).

Newline-delimited JSON (`application/x-ndjson`, ollama's streams): schemathesis reads server-sent
events event by event but has no reader for NDJSON. This one parses the body line by line and
checks every line against the schema the document gives the response's lines (`jsonschema`,
draft 2020-12, `$ref`s resolved in the document). It hands schemathesis the first line that does
not match (a line that is not JSON as its text), else the last line, and schemathesis's own
response-schema check validates that one: a line at fault fails the run with the usual report.
"""
import json

import jsonschema
import schemathesis


@schemathesis.deserializer("application/x-ndjson")
def ndjson_lines(ctx, response):
    lines = []
    for text in response.content.decode("utf-8", errors="replace").splitlines():
        if text.strip():
            try:
                lines.append(json.loads(text))
            except ValueError:
                return text  # not JSON: a string, which no line schema allows
    if not lines:
        return None
    document = ctx.operation.schema.raw_schema
    responses = document["paths"][ctx.operation.path][ctx.operation.method.lower()]["responses"]
    declared = responses.get(str(response.status_code)) or responses.get("default") or {}
    schema = declared.get("content", {}).get("application/x-ndjson", {}).get("schema")
    if schema is not None:
        # The line schema's references point into the document: validate with the document as the root.
        validator = jsonschema.Draft202012Validator({**schema, "components": document.get("components", {})})
        for line in lines:
            if not validator.is_valid(line):
                return line
    return lines[-1]
