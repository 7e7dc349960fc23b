#!/usr/bin/env python3
"""The official `openai` package's realtime connection, unchanged, against a running `runanywhere serve`.

Run by the CLI tests (`make test`) with the project venv's Python:
    openai_realtime_check.py --base-url http://127.0.0.1:PORT/v1 --voice-model VOICE --api-key KEY

A text turn (session.update, conversation.item.create, response.create), a function call and an
answer after its output, a spoken turn found by
server voice activity detection (speech made by /v1/audio/speech, sent as PCM16 at 24 kHz, heard,
transcribed, answered in text and speech; that answer then truncated where the client stopped
playing it, retrieved and deleted), a spoken answer cut short by the user speaking over it (and
truncated by the client at once, while it is being cancelled), a question with a pause in it
(one turn, one answer), a spoken turn in G.711 µ-law at
8 kHz both ways (Python's audioop encodes the question and decodes the answer, which whisper
then writes),
the errors of bad events, and the upgrade refused for an unknown model or a wrong API key (run it
against a server with --api-key-stdin and pass the key). Prints one JSON object of what it saw and exits 1 with the failed
checks listed.
"""
import argparse
import array
import base64
import difflib
import io
import json
import re
import sys
import threading
import time
import warnings
import wave

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import audioop  # Python's own G.711 codec (3.11), the reference the server's must agree with

import openai
from openai import OpenAI

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


class Silence(Exception):
    pass


def events_until(connection, last_type, limit=20000, seconds=300):
    """Events received until one of `last_type` (inclusive), as plain dicts; an event that does
    not come within `seconds`, or among `limit` events, ends the check with what came before it."""
    seen = []
    # A blocked recv() does not see signals: the watchdog closes the connection, which ends it.
    watchdog = threading.Timer(seconds, connection.close)
    watchdog.start()
    try:
        for _ in range(limit):
            event = connection.recv().to_dict()
            seen.append(event)
            if event["type"] == last_type:
                return seen
    except Exception as error:
        if watchdog.is_alive():
            raise
        raise Silence(f"no {last_type} within {seconds} s; after {types(seen)[-12:]}") from error
    finally:
        watchdog.cancel()
    raise Silence(f"no {last_type} among {limit} events; after {types(seen)[-12:]}")


def types(events):
    return [event["type"] for event in events]


def speak(client, voice_model, text):
    """PCM16 at 24 kHz of `text`, as /v1/audio/speech makes it."""
    return client.audio.speech.create(model=voice_model, voice="alloy", input=text, response_format="pcm").content


def send_audio(connection, pcm, chunk=4800):
    for start in range(0, len(pcm), chunk):
        connection.input_audio_buffer.append(audio=base64.b64encode(pcm[start:start + chunk]).decode())


# The answers are sampled (temperature 0.8, as OpenAI's sessions): a bound on their length keeps
# one that rambles (a table of a thousand tokens, seen once) from holding up the check.
ANSWER_TOKENS = 100


def finished(response):
    """Whether a response ended by itself or at the session's bound on its length."""
    return response["status"] == "completed" or response.get("status_details") == {"type": "incomplete", "reason": "max_output_tokens"}


def check_text_turn(connection):
    created = connection.recv().to_dict()
    check(created["type"] == "session.created" and created["session"]["audio"]["input"]["format"]["rate"] == 24000, f"first event {created}")
    connection.session.update(session={"type": "realtime", "output_modalities": ["text"], "instructions": "Answer in one short sentence.",
                                       "audio": {"input": {"turn_detection": None}}, "max_output_tokens": ANSWER_TOKENS})
    updated = events_until(connection, "session.updated")[-1]
    check(updated["session"]["output_modalities"] == ["text"] and updated["session"]["audio"]["input"]["turn_detection"] is None
          and updated["session"]["max_output_tokens"] == ANSWER_TOKENS, f"session.updated {updated}")
    connection.conversation.item.create(item={"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "What is the capital of France?"}]})
    connection.response.create()
    events = events_until(connection, "response.done")
    kinds = types(events)
    check(kinds[:2] == ["conversation.item.added", "conversation.item.done"], f"text turn: {kinds[:4]}")
    check("response.created" in kinds and "response.output_text.delta" in kinds, f"text turn events {kinds}")
    deltas = "".join(event["delta"] for event in events if event["type"] == "response.output_text.delta")
    done = next((event for event in events if event["type"] == "response.output_text.done"), {})
    # The answer is sampled: its words are not checked.
    check(deltas == done.get("text") and len(deltas.strip()) > 0, f"text answer {deltas!r}, done {done}")
    response = events[-1]["response"]
    check(finished(response) and 0 < response["usage"]["output_tokens"] <= ANSWER_TOKENS, f"response.done {response}")
    return deltas


WEATHER = {"type": "function", "name": "get_weather", "description": "The weather now in a city",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


def check_function_call(connection):
    """A function the session offers, called (tool_choice required: the call is constrained to the
    function's schema), its output given back, and a written answer after it."""
    connection.session.update(session={"type": "realtime", "output_modalities": ["text"], "tools": [WEATHER], "tool_choice": "required"})
    updated = events_until(connection, "session.updated")[-1]["session"]
    check(updated["tools"][0]["name"] == "get_weather" and updated["tool_choice"] == "required", f"tools in session.updated {updated}")
    connection.conversation.item.create(item={"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "What is the weather in Paris?"}]})
    connection.response.create()
    events = events_until(connection, "response.done")
    kinds = types(events)
    done = next((event for event in events if event["type"] == "response.function_call_arguments.done"), {})
    check(done.get("name") == "get_weather" and isinstance(json.loads(done.get("arguments", "null")), dict),
          f"a function call: {kinds} {done}")
    calls = [item for item in events[-1]["response"]["output"] if item["type"] == "function_call"]
    check(len(calls) >= 1 and calls[0]["call_id"] == done.get("call_id"), f"the call in response.done: {events[-1]['response']}")
    if not calls:
        return None
    connection.conversation.item.create(item={"type": "function_call_output", "call_id": calls[0]["call_id"],
                                              "output": json.dumps({"temperature": "18 C", "sky": "sunny"})})
    events_until(connection, "conversation.item.done")
    connection.session.update(session={"type": "realtime", "tool_choice": "none"})
    events_until(connection, "session.updated")
    connection.response.create()
    answer = events_until(connection, "response.done")
    text = "".join(event["delta"] for event in answer if event["type"] == "response.output_text.delta")
    check(finished(answer[-1]["response"]) and text.strip(), f"an answer after the function's output: {types(answer)}")
    connection.session.update(session={"type": "realtime", "tools": [], "tool_choice": "auto"})
    events_until(connection, "session.updated")
    return {"arguments": done.get("arguments"), "answer": text}


def check_spoken_turn(connection, question):
    connection.session.update(session={
        "type": "realtime", "output_modalities": ["audio"], "instructions": "Answer in one short sentence.",
        "audio": {"input": {"transcription": {"model": "whisper-1"},
                            "turn_detection": {"type": "server_vad", "silence_duration_ms": 500}},
                  "output": {"voice": "alloy"}}})
    events_until(connection, "session.updated")
    send_audio(connection, question + bytes(2 * 24000 * 2))  # the question, then 2 s of silence
    events = events_until(connection, "response.done")
    kinds = types(events)
    for kind in ["input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped", "input_audio_buffer.committed",
                 "conversation.item.input_audio_transcription.completed", "response.created",
                 "response.output_audio_transcript.delta", "response.output_audio.delta", "response.done"]:
        check(kind in kinds, f"spoken turn: no {kind} in {kinds}")
    check(kinds.index("input_audio_buffer.speech_started") < kinds.index("input_audio_buffer.speech_stopped")
          < kinds.index("response.created"), f"spoken turn order {kinds}")
    heard = next((event["transcript"] for event in events if event["type"] == "conversation.item.input_audio_transcription.completed"), "")
    check("france" in heard.lower(), f"heard {heard!r}")
    transcript = "".join(event["delta"] for event in events if event["type"] == "response.output_audio_transcript.delta")
    audio = b"".join(base64.b64decode(event["delta"]) for event in events if event["type"] == "response.output_audio.delta")
    check(len(transcript) > 0 and len(audio) > 24000, f"spoken answer {transcript!r} with {len(audio)} bytes of audio")
    check(finished(events[-1]["response"]), f"spoken response.done {events[-1]}")
    check_truncation(connection, events[-1]["response"]["output"][0]["id"], transcript, len(audio) // 48)
    return {"heard": heard, "answer": transcript, "audio_seconds": round(len(audio) / 48000, 2)}


def check_truncation(connection, item_id, transcript, audio_ms):
    """A spoken answer the client played only half of keeps only what was heard by then (a start
    of its words); beyond its audio is an error; retrieved and deleted, it answers as the API says."""
    connection.conversation.item.truncate(item_id=item_id, content_index=0, audio_end_ms=audio_ms + 5000)
    beyond = events_until(connection, "error")[-1]["error"]
    check(beyond["param"] == "audio_end_ms", f"a truncation beyond the audio: {beyond}")
    connection.conversation.item.truncate(item_id=item_id, content_index=0, audio_end_ms=audio_ms // 2)
    truncated = events_until(connection, "conversation.item.truncated")[-1]
    check(truncated["item_id"] == item_id and truncated["audio_end_ms"] == audio_ms // 2, f"conversation.item.truncated {truncated}")
    connection.conversation.item.retrieve(item_id=item_id)
    item = events_until(connection, "conversation.item.retrieved")[-1]["item"]
    kept = item["content"][0]["transcript"]
    check(item["role"] == "assistant" and transcript.startswith(kept) and len(kept) < len(transcript),
          f"the truncated answer keeps what was heard: {kept!r} of {transcript!r}")
    connection.conversation.item.delete(item_id=item_id)
    check(events_until(connection, "conversation.item.deleted")[-1]["item_id"] == item_id, "conversation.item.deleted")
    connection.conversation.item.retrieve(item_id=item_id)
    gone = events_until(connection, "error")[-1]["error"]
    check(gone["code"] == "item_retrieve_invalid_item_id", f"a deleted item is gone: {gone}")


def check_barge_in(connection, question):
    # A long answer (hundreds of tokens, seconds of work), so that it is still being written and
    # spoken when the speech comes in.
    connection.session.update(session={"type": "realtime", "instructions": "Do exactly what the user asks.", "max_output_tokens": "inf"})
    events_until(connection, "session.updated")
    connection.conversation.item.create(item={"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "Write the numbers from 1 to 300, separated by commas."}]})
    connection.response.create()
    answering = events_until(connection, "response.output_audio_transcript.delta")
    asked_id = next(event["item"]["id"] for event in answering if event["type"] == "conversation.item.added")
    answer_id = answering[-1]["item_id"]
    send_audio(connection, question)
    events = events_until(connection, "input_audio_buffer.speech_started")
    # As a client does when the user speaks over the answer: it stops playing and truncates the
    # answer where it stopped (here, before any of it), while the answer is still being cancelled.
    connection.conversation.item.truncate(item_id=answer_id, content_index=0, audio_end_ms=0)
    events += events_until(connection, "response.done")
    kinds = types(events)
    if "conversation.item.truncated" not in kinds:
        kinds += types(events_until(connection, "conversation.item.truncated"))
    response = events[-1]["response"]
    check(response["status"] == "cancelled" and response["status_details"]["reason"] == "turn_detected", f"barge-in response {response}")
    item = response["output"][0] if response["output"] else {}
    check(item.get("status") == "incomplete", f"the cut-short answer is kept as incomplete: {item}")
    connection.conversation.item.retrieve(item_id=answer_id)
    kept = events_until(connection, "conversation.item.retrieved")[-1]["item"]["content"][0]["transcript"]
    check(kept == "", f"the answer truncated before any of it was played keeps nothing: {kept!r}")
    connection.input_audio_buffer.clear()
    events_until(connection, "input_audio_buffer.cleared")
    # The request and its empty answer leave the conversation: a model that reads them may take
    # up the count again in the next answer.
    for item_id in [asked_id, answer_id]:
        connection.conversation.item.delete(item_id=item_id)
        events_until(connection, "conversation.item.deleted")
    return item.get("content", [{}])[0].get("transcript", "")


def trimmed(pcm):
    """PCM16 `pcm` without the quiet at its start and end."""
    samples = array.array("h", pcm)
    loud = [index for index, sample in enumerate(samples) if abs(sample) > 600]
    return samples[loud[0]:loud[-1] + 1].tobytes() if loud else b""


def check_pause_in_a_turn(client, connection, voice_model):
    """A question with a pause in it, and a pause after it, each shorter than the silence that
    ends a turn: the server starts answering at each pause, but the speech that follows the
    first is the same turn, and the silence that follows the second ends it: one answer, to the
    whole question, sent only once the turn has ended."""
    # A second of silence ends the turn: the voice's speech fades out over a varying tail (its
    # audio is sampled) that the trim keeps and voice activity detection may already count as
    # silence, so a pause of a quarter of a second must stay well short of it.
    connection.session.update(session={"type": "realtime", "instructions": "Answer in one short sentence.", "max_output_tokens": ANSWER_TOKENS,
                                       "audio": {"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": 1000}}}})
    events_until(connection, "session.updated")
    pause = bytes(2 * 24000 // 4)  # 250 ms, a quarter of the turn's second of silence
    # What the server does at a pause, it does while nothing more comes.
    # Whisper hears a short "of France?" spoken apart as nothing now and then (one take in eight
    # here, and failed CI once); the longer second half was heard whole in every take tried.
    send_audio(connection, trimmed(speak(client, voice_model, "What is the capital city")) + pause)
    time.sleep(3)
    send_audio(connection, trimmed(speak(client, voice_model, "of the country of France?")) + pause)
    time.sleep(3)
    send_audio(connection, bytes(2 * 24000 * 2))
    events = events_until(connection, "response.done")
    kinds = types(events)
    check(kinds.count("input_audio_buffer.speech_started") == 1 and kinds.count("input_audio_buffer.speech_stopped") == 1
          and kinds.count("response.created") == 1, f"a turn with a pause: {kinds}")
    stopped = kinds.index("input_audio_buffer.speech_stopped") if "input_audio_buffer.speech_stopped" in kinds else len(kinds)
    check(not any(kind.startswith("response.") for kind in kinds[:stopped]), f"a turn with a pause answered before it ended: {kinds}")
    heard = next((event["transcript"] for event in events if event["type"] == "conversation.item.input_audio_transcription.completed"), "")
    check("capital" in heard.lower() and "france" in heard.lower(), f"the whole question with a pause: heard {heard!r}")
    response = events[-1]["response"]
    check(finished(response) and "response.output_audio.delta" in kinds, f"the answer to a question with a pause: {response}")
    return heard


def check_telephone(client, connection, question, voice_model):
    """A spoken turn in G.711 µ-law at 8 kHz both ways, encoded and decoded by Python's audioop,
    in a session of its own: the question is heard, and the answer's audio, decoded, is
    transcribed to words of its text, or, for a sampled answer the English voice mispronounces,
    alike what the same text spoken by /v1/audio/speech and put through µ-law here is heard as."""
    events_until(connection, "session.created")
    # In English: the voice is English, and a sampled answer in French (seen once) came back from
    # Whisper as words of neither language.
    connection.session.update(session={"type": "realtime", "instructions": "Answer in English, in one short sentence.",
                                       "max_output_tokens": ANSWER_TOKENS, "audio": {
        "input": {"format": {"type": "audio/pcmu"}, "transcription": {"model": "whisper-1"},
                  "turn_detection": {"type": "server_vad", "silence_duration_ms": 500}},
        "output": {"format": {"type": "audio/pcmu"}}}})
    session = events_until(connection, "session.updated")[-1]["session"]
    check(session["audio"]["input"]["format"] == {"type": "audio/pcmu"} and session["audio"]["output"]["format"] == {"type": "audio/pcmu"},
          f"G.711 formats in session.updated: {session['audio']}")
    phone = audioop.lin2ulaw(audioop.ratecv(question, 2, 1, 24000, 8000, None)[0], 2)
    send_audio(connection, phone + audioop.lin2ulaw(bytes(2 * 8000 * 2), 2), chunk=1600)
    events = events_until(connection, "response.done")
    heard = next((event["transcript"] for event in events if event["type"] == "conversation.item.input_audio_transcription.completed"), "")
    check("france" in heard.lower(), f"heard over the phone {heard!r}")
    transcript = "".join(event["delta"] for event in events if event["type"] == "response.output_audio_transcript.delta")
    audio = audioop.ulaw2lin(b"".join(base64.b64decode(event["delta"]) for event in events
                                      if event["type"] == "response.output_audio.delta"), 2)
    check(finished(events[-1]["response"]) and len(audio) > 8000, f"the answer's µ-law audio: {len(audio) // 2} samples, {events[-1]}")
    written = transcribe_8k(client, audio)
    seen = {"heard": heard, "answer": transcript, "transcribed": written}
    if not sounds_alike(written, transcript):
        # Words of neither language ("L'Aléto, France" heard as "LLA-Dole brand."): the same text
        # through the same voice and codec must be heard alike. The voice samples its timing, and
        # whisper hears each take of such words differently, so up to three takes are asked.
        seen["references"] = []
        for _ in range(3):
            pcm = audioop.ratecv(speak(client, voice_model, transcript), 2, 1, 24000, 8000, None)[0]
            seen["references"].append(transcribe_8k(client, audioop.ulaw2lin(audioop.lin2ulaw(pcm, 2), 2)))
            if heard_alike(written, seen["references"][-1]):
                break
        check(heard_alike(written, seen["references"][-1]),
              f"the answer's µ-law audio says {written!r}, its text {transcript!r} spoken and put through µ-law here {seen['references']!r}")
    return seen


def heard_alike(heard, other):
    """Whether two of whisper's hearings of the same words agree: most of their letters in the
    same order (takes of "La France est le titre": "Left-Rancia Steelet Titter." and "LeFrancy
    Estilator.", 0.6; "LLA-Dole brand." and "Alo-Ado print.", 0.52; a hearing of noise, such as
    "Thank you.", against takes of either, 0.1 to 0.31). Not a word in common: "you" is one."""
    letters = lambda text: re.sub(r"[^a-z]", "", text.lower())
    return difflib.SequenceMatcher(None, letters(heard), letters(other)).ratio() >= 0.45


def transcribe_8k(client, pcm):
    """What the server's transcription hears in PCM16 at 8 kHz."""
    wav = io.BytesIO()
    with wave.open(wav, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(8000)
        file.writeframes(pcm)
    return client.audio.transcriptions.create(model="whisper-1", file=("answer.wav", wav.getvalue(), "audio/wav")).text


def sounds_alike(heard, text):
    """Whether whisper's `heard` is the speech of `text`: a word in common, or, for an answer the
    English voice mispronounced (a sampled answer in French: "La France est le titre" heard as
    "Lefranciest elititer"), most of the shorter one's letter triples in the other. Audio
    decoded wrong is heard as nothing, or as words that share none of it."""
    words = lambda text: set(re.findall(r"[a-z0-9]{2,}", text.lower()))
    triples = lambda text: {word[i:i + 3] for word in words(text) for i in range(len(word) - 2)}
    shared, fewer = triples(heard) & triples(text), min(len(triples(heard)), len(triples(text)))
    return bool(words(heard) & words(text)) or (fewer > 0 and len(shared) / fewer >= 0.3)


def check_errors(connection):
    # A second of audio in one event, as OpenAI's examples send a clip: one WebSocket frame of 64 KB.
    connection.input_audio_buffer.append(audio=base64.b64encode(bytes(2 * 24000)).decode())
    connection.input_audio_buffer.clear()
    check(events_until(connection, "input_audio_buffer.cleared")[-1]["type"] == "input_audio_buffer.cleared", "a 64 KB event")
    connection.send({"type": "input_audio_buffer.append", "audio": "not base64!"})
    error = events_until(connection, "error")[-1]["error"]
    check(error["param"] == "audio", f"bad audio error {error}")
    connection.send({"type": "no.such.event"})
    error = events_until(connection, "error")[-1]["error"]
    check("no.such.event" in error["message"], f"unknown event error {error}")
    connection.session.update(session={"type": "realtime", "audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000}}}})
    error = events_until(connection, "error")[-1]["error"]
    check(error["param"] == "session.audio.input.format", f"format error {error}")
    for setting, param in [({"model": "no-such-model"}, "session.model"), ({"temperature": 3}, "session.temperature")]:
        connection.session.update(session={"type": "realtime", **setting})
        error = events_until(connection, "error")[-1]["error"]
        check(error["param"] == param, f"{param} error {error}")
    # OpenAI's name keeps the session's model; the beta API's temperature is taken.
    connection.session.update(session={"type": "realtime", "model": "gpt-realtime", "temperature": 0.6})
    updated = events_until(connection, "session.updated")[-1]["session"]
    check(not updated["model"].startswith("gpt-") and updated.get("temperature") == 0.6,
          f"the session's model after gpt-realtime, and its temperature: {updated['model']}, {updated.get('temperature')}")
    connection.response.cancel()
    error = events_until(connection, "error")[-1]["error"]
    check(error["code"] == "response_cancel_not_active", f"cancel error {error}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--voice-model", required=True)
    parser.add_argument("--api-key", required=True)
    args = parser.parse_args()
    client = OpenAI(base_url=args.base_url, api_key=args.api_key)
    question = speak(client, args.voice_model, "What is the capital of France?")
    seen = {}
    try:
        with client.realtime.connect(model="gpt-realtime") as connection:
            seen["text"] = check_text_turn(connection)
            seen["function_call"] = check_function_call(connection)
            seen["spoken"] = check_spoken_turn(connection, question)
            seen["barge_in"] = check_barge_in(connection, question)
            seen["pause"] = check_pause_in_a_turn(client, connection, args.voice_model)
            check_errors(connection)
        with client.realtime.connect(model="gpt-realtime") as connection:
            seen["telephone"] = check_telephone(client, connection, question, args.voice_model)
    except Silence as silence:
        check(False, str(silence))
    # A refused upgrade is a bare 400 (the WebSocket library's answer), raised by the client.
    for name, other in [("an unknown model", client), ("a wrong key", OpenAI(base_url=args.base_url, api_key="wrong-key"))]:
        try:
            with other.realtime.connect(model="no-such-model" if other is client else "gpt-realtime") as connection:
                connection.recv()
            check(False, f"{name} was accepted")
        except Exception as error:
            check("400" in str(error), f"{name}: {error}")
    print(json.dumps({"openai": openai.__version__, "seen": seen, "failures": failures}, indent=2))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
