"""Driver for benchmarks/realtime; see that script. Each session is a WebSocket of its own (the
`websockets` package the official openai client uses) whose audio goes out in 100 ms chunks at
real time: a question, then silence until the answer is done. A turn's latency is from the
moment its last chunk of speech was sent to the first `response.output_audio.delta` received."""
import argparse
import base64
import concurrent.futures
import json
import os
import re
import statistics
import threading
import time

import openai
from websockets.sync.client import connect

import results_file
from serve_process import start_server

QUESTIONS = [
    "What is the capital of France?",
    "How many legs does a spider have?",
    "What colour is the sky on a clear day?",
    "Which planet is closest to the sun?",
    "What do bees make?",
    "How many days are in a week?",
    "What is the largest ocean on Earth?",
    "What do you call a baby cat?",
    "Which animal is known as the king of the jungle?",
    "What is frozen water called?",
]
RATE = 24000
CHUNK = RATE // 10 * 2  # 100 ms of PCM16
INSTRUCTIONS = "Answer in one short sentence."


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def realtime_session(base, speech, turns, silence_ms, offset):
    """Latencies (s) of `turns` spoken turns in one session, starting at question `offset`."""
    latencies = []
    with connect(base.replace("http", "ws") + "/v1/realtime?model=gpt-realtime", max_size=None) as socket:
        def events_until(kind):
            while True:
                event = json.loads(socket.recv())
                if event["type"] == "error":
                    raise SystemExit(f"realtime error: {event['error']}")
                if event["type"] == kind:
                    return event
        events_until("session.created")
        socket.send(json.dumps({"type": "session.update", "session": {
            "type": "realtime", "instructions": INSTRUCTIONS, "output_modalities": ["audio"],
            "audio": {"input": {"turn_detection": {"type": "server_vad", "silence_duration_ms": silence_ms}}}}}))
        events_until("session.updated")
        for turn in range(turns):
            audio = speech[(offset + turn) % len(speech)]
            done = threading.Event()
            sent = {}

            def send():
                # The question at real time, then silence at real time until the answer is done.
                start = time.monotonic()
                chunks = [audio[i:i + CHUNK] for i in range(0, len(audio), CHUNK)]
                for index, chunk in enumerate(chunks):
                    socket.send(json.dumps({"type": "input_audio_buffer.append", "audio": base64.b64encode(chunk).decode()}))
                    time.sleep(max(0, start + (index + 1) / 10 - time.monotonic()))
                sent["end"] = start + len(audio) / (2 * RATE)
                silence = base64.b64encode(bytes(CHUNK)).decode()
                while not done.wait(0.1):
                    socket.send(json.dumps({"type": "input_audio_buffer.append", "audio": silence}))

            sender = threading.Thread(target=send)
            sender.start()
            first = None
            while True:
                event = json.loads(socket.recv())
                if event["type"] == "response.output_audio.delta" and first is None:
                    first = time.monotonic()
                elif event["type"] == "error":
                    raise SystemExit(f"realtime error: {event['error']}")
                elif event["type"] == "response.done":
                    break
            done.set()
            sender.join()
            if first is None or "end" not in sent:
                raise SystemExit(f"turn {turn}: no audio in the answer, or it came before the question ended")
            latencies.append(first - sent["end"])
            socket.send(json.dumps({"type": "input_audio_buffer.clear"}))
            events_until("input_audio_buffer.cleared")
    return latencies


FIRST_PHRASE = re.compile(r"[.!?\n](?=\s)|(?<=.{19})[,;:](?=\s)")


def rest_turn(client, history, voice, audio, silence_ms):
    """One turn through the separate routes, as a client drives them after it heard `silence_ms`
    of silence: transcription, a streamed chat completion of the conversation so far (`history`,
    which the turn extends), and speech of its first phrase (cut where the realtime route cuts
    it) asked at once while the rest is read."""
    time.sleep(len(audio) / (2 * RATE))  # the question being spoken
    end = time.monotonic()
    time.sleep(silence_ms / 1000)  # the client's own end-of-speech wait
    heard = client.audio.transcriptions.create(model="whisper-1", file=("question.wav", wav_bytes(audio), "audio/wav")).text
    history.append({"role": "user", "content": heard})
    stream = client.chat.completions.create(model="smollm2-135m-instruct-q4_1", stream=True, temperature=0.8,
                                            messages=[{"role": "system", "content": INSTRUCTIONS}] + history)
    first_audio = {}

    def speak(phrase):
        with client.audio.speech.with_streaming_response.create(model=voice, voice="alloy", input=phrase,
                                                                 response_format="pcm") as response:
            for _ in response.iter_bytes(1024):
                first_audio["at"] = time.monotonic()
                return

    text, speaker = "", None
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
            if speaker is None and (match := FIRST_PHRASE.search(text)):
                speaker = threading.Thread(target=speak, args=(text[:match.end()].strip(),))
                speaker.start()
    if speaker is None:
        speaker = threading.Thread(target=speak, args=(text.strip() or "Sorry.",))
        speaker.start()
    speaker.join()
    history.append({"role": "assistant", "content": text})
    if "at" not in first_audio:
        raise SystemExit("the speech route sent no audio")
    return first_audio["at"] - end


def wav_bytes(pcm):
    import io
    import wave
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(pcm)
    return out.getvalue()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--sessions", default="1,2,4")
    parser.add_argument("--silence-ms", type=int, default=500)
    parser.add_argument("--voice", default="piper-en_US-joe-medium")
    parser.add_argument("--results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = parser.parse_args()
    counts = [int(n) for n in args.sessions.split(",")]
    process, base = start_server(args.binary, ["--threads", str(args.threads), "--parallel", str(max(counts)), "--keep-alive=-1"])
    try:
        client = openai.OpenAI(base_url=base + "/v1", api_key="none")
        speech = [client.audio.speech.create(model=args.voice, voice="alloy", input=q, response_format="pcm").content
                  for q in QUESTIONS]
        realtime_session(base, speech, 1, args.silence_ms, 0)  # loads every model
        rest_turn(client, [], args.voice, speech[0], args.silence_ms)
        rows = []
        history = []
        rest = [rest_turn(client, history, args.voice, speech[turn % len(speech)], args.silence_ms) for turn in range(args.turns)]
        for count in counts:
            with concurrent.futures.ThreadPoolExecutor(count) as pool:
                runs = list(pool.map(lambda n: realtime_session(base, speech, args.turns, args.silence_ms, n * 3), range(count)))
            rows.append((count, [latency for run in runs for latency in run]))
    finally:
        process.terminate()
        process.wait()
    rest_p50 = statistics.median(rest)
    lines = [f"runanywhere serve /v1/realtime, default models (smollm2-135m-instruct-q4_1, whisper-tiny.en, silero-vad, "
             f"{args.voice}), {args.threads} threads, server VAD with {args.silence_ms} ms of silence; {args.turns} spoken turns "
             f"per session (Piper's voice, played at real time), latency from the end of the question's speech to the first "
             f"audio byte of the answer", "",
             "| sessions at once | turns | p50 s | p95 s | p50 ratio to the REST routes |", "|---|---|---|---|---|"]
    for count, latencies in rows:
        p50 = statistics.median(latencies)
        lines.append(f"| {count} | {len(latencies)} | {p50:.3f} | {percentile(latencies, 0.95):.3f} | {p50 / rest_p50:.3f}× |")
    lines += ["", f"The same questions through the REST routes, one client keeping the conversation, one turn at a time (after "
              f"the same {args.silence_ms} ms of silence: /v1/audio/transcriptions, a streamed /v1/chat/completions at the "
              f"realtime route's temperature, 0.8, and at its first phrase /v1/audio/speech of it, to its first byte): "
              f"p50 {rest_p50:.3f} s, p95 {percentile(rest, 0.95):.3f} s over {len(rest)} turns."]
    report = "\n".join(lines)
    print(report)
    results_file.write(args.results, "realtime", f"# realtime\n\n{results_file.machine_and_command('realtime')}\n{report}\n")


if __name__ == "__main__":
    main()
