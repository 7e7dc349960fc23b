"""An engine's crash costs only the requests its worker was serving: checked with the official
`openai` client against `runanywhere serve`, whose language models each run in an engine worker
process (`runanywhere engine-worker --model ID`).

The server is started with RUNANYWHERE_TEST_ENGINE_FAULTS=1, so that a prompt holding
`[[engine-fault:segv]]` makes the worker dereference an invalid pointer (a real SIGSEGV) and one
holding `[[engine-fault:abort]]` call abort(). While the model MODEL streams an answer, the model
OTHER's worker is crashed three ways (SIGSEGV, abort(), and SIGKILL from outside mid-stream):

- the crashed request fails with 503, naming the model, the signal and that the model was
  restarted (the SIGKILL one mid-stream, as an error event in its stream);
- MODEL's answer streams to its end, from the same worker throughout;
- the next request for OTHER is answered, by a new worker;
- `ps` tells the workers apart: each one's command line names its model;
- a realtime session (`/v1/realtime`) whose answer crashes OTHER's worker ends that answer as
  failed, naming the crash, and goes on: with the faulting message deleted, the next answer
  comes from a new worker.

usage: engine_crash_check.py --base-url URL --model MODEL --other OTHER --server-pid PID
"""
import argparse
import os
import signal
import sys
import threading
import time

import openai


SERVER = 0  # the server's pid: only its workers count (other tests run workers of the same models)


def workers():
    """{model id: pid} of the server's engine workers running now, read from their command lines."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if fields[0] == b"Z" or int(fields[1]) != SERVER:
            continue
        if b"engine-worker" in argv and b"--model" in argv:
            index = argv.index(b"--model")
            if index + 1 < len(argv):
                found[argv[index + 1].decode()] = int(entry)
    return found


def worker_of(model, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        pid = workers().get(model)
        if pid:
            return pid
        time.sleep(0.05)
    raise AssertionError(f"no engine worker names {model} in its command line: {workers()}")


def ask(client, model, prompt, tokens=4):
    answer = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": prompt}], max_tokens=tokens, temperature=0)
    return answer.choices[0].message.content


class Stream(threading.Thread):
    """A streamed answer of `tokens` tokens, read to its end on a thread of its own."""

    def __init__(self, client, model, tokens):
        super().__init__(daemon=True)
        self.client, self.model, self.tokens = client, model, tokens
        self.started = threading.Event()
        self.text, self.finish, self.error = "", None, None

    def run(self):
        try:
            stream = self.client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": "Write a long story about a lighthouse keeper."}],
                max_tokens=self.tokens, temperature=0, stream=True)
            for chunk in stream:
                if chunk.choices:
                    self.text += chunk.choices[0].delta.content or ""
                    self.finish = chunk.choices[0].finish_reason or self.finish
                    if self.text:
                        self.started.set()
        except Exception as error:  # noqa: BLE001 (the check reports what the client raised)
            self.error = error
        finally:
            self.started.set()


def expect_crash(client, other, fault, signal_name):
    try:
        ask(client.with_options(max_retries=0), other, f"Hello [[engine-fault:{fault}]]")
    except openai.APIStatusError as error:
        message = str(error)
        assert error.status_code == 503, f"{fault}: status {error.status_code}: {message}"
        for part in (other, signal_name, "restarted"):
            assert part in message, f"{fault}: the error does not name {part!r}: {message}"
        print(f"{fault}: 503 {message[:200]}")
        return
    raise AssertionError(f"{fault}: the faulting request was answered")


def realtime_events(connection, last_type):
    seen = []
    while not seen or seen[-1]["type"] != last_type:
        seen.append(connection.recv().to_dict())
    return seen


def check_realtime(client, model):
    with client.realtime.connect(model=model) as connection:
        realtime_events(connection, "session.created")
        connection.session.update(session={"type": "realtime", "output_modalities": ["text"], "max_output_tokens": 8,
                                           "audio": {"input": {"turn_detection": None}}})
        realtime_events(connection, "session.updated")
        connection.conversation.item.create(item={"type": "message", "role": "user", "id": "item_fault",
                                                  "content": [{"type": "input_text", "text": "Hello [[engine-fault:abort]]"}]})
        connection.response.create()
        failed = realtime_events(connection, "response.done")[-1]["response"]
        message = failed.get("status_details", {}).get("error", {}).get("message", "")
        assert failed["status"] == "failed", f"realtime: the crashed answer ended {failed['status']}: {failed}"
        for part in (model, "SIGABRT", "restarted"):
            assert part in message, f"realtime: the failed answer does not name {part!r}: {message}"
        print(f"realtime: failed answer: {message[:200]}")
        connection.conversation.item.delete(item_id="item_fault")
        realtime_events(connection, "conversation.item.deleted")
        connection.conversation.item.create(item={"type": "message", "role": "user",
                                                  "content": [{"type": "input_text", "text": "Hello"}]})
        connection.response.create()
        answered = realtime_events(connection, "response.done")[-1]["response"]
        # Its 8 tokens may end it: then it is incomplete, for that reason.
        ended = answered["status"] == "completed" or answered.get("status_details") == {"type": "incomplete", "reason": "max_output_tokens"}
        assert ended and answered["output"], f"realtime: the next answer: {answered}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--other", required=True)
    parser.add_argument("--server-pid", type=int, required=True)
    args = parser.parse_args()
    global SERVER
    SERVER = args.server_pid
    client = openai.OpenAI(base_url=args.base_url, api_key="unused", timeout=300)

    assert ask(client, args.model, "Hello"), "the first model answers"
    assert ask(client, args.other, "Hello"), "the other model answers"
    steady, first_other = worker_of(args.model), worker_of(args.other)
    assert steady != first_other, "each model has a worker of its own"
    print(f"workers: {workers()}")

    other = first_other
    for fault, signal_name in (("segv", "SIGSEGV"), ("abort", "SIGABRT")):
        stream = Stream(client, args.model, 120)
        stream.start()
        assert stream.started.wait(120), "the first model's stream started"
        expect_crash(client, args.other, fault, signal_name)
        stream.join(300)
        assert stream.error is None, f"{fault}: the first model's stream failed: {stream.error}"
        assert stream.finish in ("length", "stop") and stream.text, f"{fault}: the first model's stream ended {stream.finish!r}"
        assert ask(client, args.other, "Hello"), f"{fault}: the other model answers again"
        restarted = worker_of(args.other)
        assert restarted != other, f"{fault}: the other model runs in a new worker"
        other = restarted

    # SIGKILL from outside while the other model itself streams.
    stream = Stream(client, args.other, 200)
    stream.start()
    assert stream.started.wait(120), "the other model's stream started"
    os.kill(other, signal.SIGKILL)
    stream.join(120)
    assert stream.error is not None, f"the killed worker's stream ended without an error ({stream.finish!r})"
    for part in (args.other, "SIGKILL", "restarted"):
        assert part in str(stream.error), f"the killed stream's error does not name {part!r}: {stream.error}"
    print(f"SIGKILL mid-stream: {str(stream.error)[:200]}")
    assert ask(client, args.other, "Hello"), "the other model answers after its worker was killed"
    assert worker_of(args.other) != other, "the other model runs in a new worker after the kill"
    other = worker_of(args.other)

    check_realtime(client, args.other)
    assert worker_of(args.other) != other, "realtime: the other model runs in a new worker after its crash"

    assert worker_of(args.model) == steady, "the first model's worker never restarted"
    assert [m.id for m in client.models.list().data], "the server still lists its models"
    print("engine crash check: passed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as failure:
        print(f"engine crash check: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
