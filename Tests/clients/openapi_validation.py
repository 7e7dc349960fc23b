"""Answers checked against the server's own OpenAPI document.

`Document(base_url)` reads the document a server serves (`GET /openapi.json`),
`Document.from_file(path)` the repository's file. `check(method, path, status, content_type, body)`
validates a body with `jsonschema` (draft 2020-12, `$ref`s resolved in the document) against the
schema the document gives that operation (`path` as the document writes it, `{id}` and all),
status and media type: a JSON body as a whole, newline-delimited JSON line by line, server-sent
events event by event (each event's fields against the event schema, then its `data` against the
`contentSchema` that applies to that event). Other media types are checked for being documented
only. It returns the problems found, empty when the answer is as documented.

`Document.checked_transport()` is an httpx transport for the official clients (`http_client=` of
`openai`, `transport=` of `ollama`; `checked_transport(httpx2)` for `anthropic`'s `http_client=`): it passes each request on and checks each
answer the same way once the client has read it, streams included, as the client reads it; the
problems gather in `transport.problems`, `transport.checked` counts the answers.

Run as a program, it checks the answers an in-process route test recorded:
`python openapi_validation.py DOCUMENT ANSWERS.jsonl`, each line `{"method", "path", "status",
"contentType", "body"}` (the path as the document writes it or as requested; the body base64-encoded); it prints the problems and exits 1 when there are any.
"""
import base64
import json
import re
import sys
import urllib.request

import httpx
import jsonschema


class Document:
    """A served or stored document; answers are checked against its closed form (`closed`): a
    field an answer carries that the document does not name is a problem, as a named field that
    is missing or malformed is, so that the document and the code agree field by field."""

    def __init__(self, base_url=None, document=None):
        if document is None:
            with urllib.request.urlopen(f"{base_url}/openapi.json", timeout=30) as response:
                document = json.load(response)
        self.document = closed(document)

    @classmethod
    def from_file(cls, path):
        with open(path, encoding="utf-8") as file:
            return cls(document=json.load(file))

    def schema(self, method, path, status, content_type, empty=False):
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
        if not content and empty:
            return None, None
        if media_type not in content and content_type not in content:
            return None, f"{method} {path} {status} does not document {media_type} (only {sorted(content)})"
        return (content.get(media_type) or content[content_type]).get("schema"), None

    def template(self, method, path):
        """The document's path for the concrete `path` (`/v1/responses/{id}` for `/v1/responses/resp_1`);
        `path` itself when none matches."""
        if path in self.document["paths"]:
            return path
        for template, operations in self.document["paths"].items():
            if method.lower() in operations and "{" in template:
                pattern = "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in re.split(r"(\{[^}]+\})", template))
                if re.fullmatch(pattern, path):
                    return template
        return path

    def checked_transport(self, http=httpx):
        return checked_transport(self, http)

    def validator(self, schema):
        return jsonschema.Draft202012Validator({**schema, "components": self.document.get("components", {})})

    def check(self, method, path, status, content_type, body):
        schema, problem = self.schema(method, path, status, content_type, empty=not body)
        if problem or schema is None:
            return [problem] if problem else []
        where = f"{method} {path} {status}"
        media_type = content_type.split(";")[0].strip()
        text = body.decode("utf-8", errors="replace")
        if media_type == "text/event-stream":
            return self.check_events(schema, where, text)
        if media_type == "application/x-ndjson":
            try:
                values = [json.loads(line) for line in complete_lines(text)]
            except json.JSONDecodeError as error:
                return [f"{where}: a line is not JSON ({error})"]
        elif media_type == "application/json" or media_type.endswith("+json"):
            try:
                values = [json.loads(text)]
            except json.JSONDecodeError as error:
                return [f"{where}: the body is not JSON ({error}): {text[:200]!r}"]
        else:
            return []
        return self.validate_all(schema, where, values)

    def validate_all(self, schema, where, values):
        validator = self.validator(schema)
        problems = []
        for number, value in enumerate(values, 1):
            error = jsonschema.exceptions.best_match(validator.iter_errors(value))
            if error is not None:
                line = f" line {number}" if len(values) > 1 else ""
                problems.append(f"{where}{line}: {error.message[:300]} at {list(error.absolute_path)}")
        return problems

    def check_events(self, schema, where, text):
        problems = []
        for number, event in enumerate(server_sent_events(text), 1):
            found = self.validate_all(schema, f"{where} event {number}", [event])
            if found:
                problems += found
                continue
            for content_schema in content_schemas(schema, event):
                try:
                    data = json.loads(event["data"])
                except json.JSONDecodeError:
                    problems.append(f"{where} event {number} ({event.get('event')}): data is not JSON: {event['data'][:200]!r}")
                    break
                problems += self.validate_all(content_schema, f"{where} event {number} ({event.get('event')})", [data])
        return problems


APPLICATORS = ("allOf", "oneOf", "anyOf")
OPEN_ENDED = ("additionalProperties", "unevaluatedProperties", "patternProperties")


def closed(document):
    """`document` with every object schema that leaves other properties unsaid closed to them
    (`unevaluatedProperties: false`), where closing is sound: on the outermost schema of a
    composition, whose `unevaluatedProperties` sees the properties its `allOf`, `if`/`then`/`else`,
    and `oneOf`/`anyOf` branches name, not on a branch (which would refuse its siblings' properties).
    A schema that says what other properties may be (`additionalProperties`…) is left as it says."""
    document = json.loads(json.dumps(document))
    schemas = document.get("components", {}).get("schemas", {})

    def component(node):
        reference = node.get("$ref", "") if isinstance(node, dict) else ""
        return reference.rsplit("/", 1)[1] if reference.startswith("#/components/schemas/") else None

    def names_properties(node):
        node = schemas.get(component(node), node) if component(node) else node
        return isinstance(node, dict) and ("properties" in node or any(names_properties(member) for key in APPLICATORS for member in node.get(key, [])))

    def branches(node):
        """The schemas evaluated in place with `node`'s own properties: they must stay open."""
        found = [node.get(key) for key in ("then", "else") if isinstance(node.get(key), dict)] + node.get("allOf", [])
        if "properties" in node:
            found += node.get("oneOf", []) + node.get("anyOf", [])
        return found

    inner = set()

    def mark(node):
        if isinstance(node, dict):
            for branch in branches(node):
                if component(branch):
                    inner.add(component(branch))
            for value in node.values():
                mark(value)
        elif isinstance(node, list):
            for value in node:
                mark(value)

    def close(node, is_branch=False):
        if isinstance(node, dict):
            inside = [id(branch) for branch in branches(node)]
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for member in value.values():
                        close(member)
                elif key in ("if", "not", "const", "enum", "examples", "default", "example"):
                    continue
                elif isinstance(value, list):
                    for member in value:
                        close(member, id(member) in inside)
                else:
                    close(value, id(value) in inside)
            if not is_branch and not any(key in node for key in OPEN_ENDED) and names_properties(node):
                node["unevaluatedProperties"] = False
        elif isinstance(node, list):
            for member in node:
                close(member)

    mark(document)
    for name, schema in schemas.items():
        close(schema, name in inner)
    for path in document.get("paths", {}).values():
        close(path)
    close(document.get("components", {}).get("responses", {}))
    return document


def server_root(base_url):
    """The server's root for a client's base URL (`http://host:port/v1` → `http://host:port`)."""
    return re.sub(r"/v1$", "", base_url.rstrip("/"))


def checked_transport(document, http):
    """A transport of the httpx package `http` (`httpx`, or `httpx2` for `anthropic`, which
    refuses httpx's objects) that passes requests to `http`'s own transport and checks each answer
    against `document` when the client has read it: a body the client left unread is not
    checked; a stream it stopped reading is checked as far as it was written whole."""

    class CheckedStream(http.SyncByteStream):
        """A response body passed on as it arrives and handed to `finished(body, whole)` when closed."""

        def __init__(self, stream, finished):
            self.stream, self.finished = stream, finished
            self.chunks, self.whole, self.closed = [], False, False

        def __iter__(self):
            for chunk in self.stream:
                self.chunks.append(chunk)
                yield chunk
            self.whole = True

        def close(self):
            if self.closed:
                return
            self.closed = True
            self.stream.close()
            self.finished(b"".join(self.chunks), self.whole)

    class CheckedTransport(http.BaseTransport):
        def __init__(self):
            self.inner = http.HTTPTransport()
            self.problems = []
            self.checked = 0

        def handle_request(self, request):
            response = self.inner.handle_request(request)
            path = document.template(request.method, request.url.path)
            content_type = response.headers.get("content-type", "")

            def finished(body, whole):
                if not whole and content_type.split(";")[0].strip() not in ("text/event-stream", "application/x-ndjson"):
                    return
                self.checked += 1
                self.problems += document.check(request.method, path, response.status_code, content_type, body)

            return http.Response(
                status_code=response.status_code, headers=response.headers, extensions=response.extensions,
                stream=CheckedStream(response.stream, finished),
            )

        def close(self):
            self.inner.close()

        def report(self, check):
            """Each problem found, once, as a failed `check`; what was checked, for the script's report."""
            for problem in dict.fromkeys(self.problems):
                check(False, problem)
            return {"answers_checked_against_the_document": self.checked}

    return CheckedTransport()


def complete_lines(text):
    """The lines of `text` that were written whole (a stream cut short ends in a partial one)."""
    lines = text.split("\n")
    return [line for line in lines[:-1] if line.strip()]


def server_sent_events(text):
    """Each whole event of an event stream as {"event", "data", "id", "retry"} (an event's name
    defaults to "message"; comments are dropped; a last event not ended by a blank line is left out)."""
    events = []
    blocks = text.replace("\r\n", "\n").split("\n\n")
    for block in blocks[:-1]:
        event, data = {}, []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                data.append(value)
            elif field == "retry" and value.isdigit():
                event["retry"] = int(value)
            elif field in ("event", "id"):
                event[field] = value
        if data or event:
            event.setdefault("event", "message")
            event["data"] = "\n".join(data)
            events.append(event)
    return events


def content_schemas(schema, event):
    """The `contentSchema`s that apply to `event`'s data: on the `data` property itself (or in the
    `else` of an `if` the data does not match), and in each `allOf` branch whose `if` names the event."""
    found = []

    def from_data(data_schema):
        if not isinstance(data_schema, dict):
            return
        if "contentSchema" in data_schema:
            found.append(data_schema["contentSchema"])
        condition = data_schema.get("if")
        if isinstance(condition, dict) and "const" in condition:
            from_data(data_schema.get("then") if event["data"] == condition["const"] else data_schema.get("else"))

    from_data(schema.get("properties", {}).get("data"))
    for branch in schema.get("allOf", []):
        named = branch.get("if", {}).get("properties", {}).get("event", {})
        matches = named.get("const") == event["event"] or event["event"] in named.get("enum", [])
        chosen = branch.get("then") if matches else branch.get("else")
        if isinstance(chosen, dict):
            from_data(chosen.get("properties", {}).get("data"))
    return found


def main(document_path, answers_path):
    document = Document.from_file(document_path)
    problems = []
    with open(answers_path, encoding="utf-8") as answers:
        for line in answers:
            answer = json.loads(line)
            path = document.template(answer["method"], answer["path"])  # a concrete path (a live server's) as the document writes it
            problems += document.check(answer["method"], path, answer["status"], answer["contentType"], base64.b64decode(answer["body"]))
    for problem in dict.fromkeys(problems):
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
