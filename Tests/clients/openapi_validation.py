"""Answers checked against the server's own OpenAPI document (`GET /openapi.json`).

`Document(base_url).check(method, path, status, content_type, body)` validates a body with
`jsonschema` (draft 2020-12, `$ref`s resolved in the document) against the schema the document
gives that operation, status and media type: a JSON body as a whole, newline-delimited JSON line
by line. It returns the problems found, empty when the body is as documented.
"""
import json
import urllib.request

import jsonschema


class Document:
    def __init__(self, base_url):
        with urllib.request.urlopen(f"{base_url}/openapi.json", timeout=30) as response:
            self.document = json.load(response)

    def schema(self, method, path, status, content_type):
        operation = self.document["paths"].get(path, {}).get(method.lower())
        if operation is None:
            return None, f"{method} {path} is not in the document"
        declared = operation["responses"].get(str(status)) or operation["responses"].get("default")
        if declared is None:
            return None, f"{method} {path} does not document status {status}"
        if "$ref" in declared:
            declared = self.document["components"]["responses"][declared["$ref"].rsplit("/", 1)[1]]
        media_type = content_type.split(";")[0].strip()
        content = declared.get("content", {})
        if media_type not in content:
            return None, f"{method} {path} {status} does not document {media_type} (only {sorted(content)})"
        return content[media_type].get("schema"), None

    def check(self, method, path, status, content_type, body):
        schema, problem = self.schema(method, path, status, content_type)
        if problem or schema is None:
            return [problem] if problem else []
        validator = jsonschema.Draft202012Validator({**schema, "components": self.document.get("components", {})})
        if content_type.startswith("application/x-ndjson"):
            values = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
        else:
            values = [json.loads(body)]
        problems = []
        for number, value in enumerate(values, 1):
            error = jsonschema.exceptions.best_match(validator.iter_errors(value))
            if error is not None:
                where = f" line {number}" if len(values) > 1 else ""
                problems.append(f"{method} {path} {status}{where}: {error.message[:300]} at {list(error.absolute_path)}")
        return problems
