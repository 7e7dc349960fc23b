#!/usr/bin/env python3
"""The web app's live conversation (Voice → Conversation) in headless Chromium, whose fake
microphone plays a real spoken question (Piper's, made with `runanywhere speak`, between
silences): the page streams it to /v1/realtime through an AudioWorklet, the server hears the
question end, writes it, answers and speaks; the check waits for the question's words in the
transcript, an answer, and audio played back.

    web_app_realtime_check.py --binary .build/debug/runanywhere --screenshots DIR
"""
import os
import subprocess
import sys
import wave

from web_app_support import Page, Server, check, run, scratch_folder


def spoken_question(binary):
    """A WAV of silence, the spoken question, then silence, for Chromium's fake microphone."""
    folder = scratch_folder("web-app-microphone-")
    speech = os.path.join(folder, "speech.wav")
    subprocess.run([binary, "speak", "What is the capital of France?", "--output", speech, "--threads", "1"], check=True,
                   env=dict(os.environ, RUNANYWHERE_DATA=folder), capture_output=True)
    with wave.open(speech, "rb") as source:
        parameters, frames = source.getparams(), source.readframes(source.getnframes())
    silence = lambda seconds: bytes(int(parameters.framerate * seconds) * parameters.sampwidth * parameters.nchannels)
    path = os.path.join(folder, "question.wav")
    with wave.open(path, "wb") as target:
        target.setparams(parameters)
        target.writeframes(silence(1.5) + frames + silence(6))
    return path


binary = sys.argv[sys.argv.index("--binary") + 1]


class MicrophonePage(Page):
    extra_arguments = [f"--use-file-for-fake-audio-capture={spoken_question(binary)}%noloop"]


def checks(page, options, folders):
    server = Server(options.binary, folders["data"])
    try:
        page.driver.get(server.url + "/#/voice")
        page.wait(lambda d: page.find("button.converse").is_enabled(), 60)
        page.click("button.converse")
        page.wait(lambda d: page.text("button.converse") == "Stop")
        heard = page.wait(lambda d: page.text(".conversation .turn.user"), 300)
        check("france" in heard.lower(), f"the question was heard as {heard!r}")
        answer = page.wait(lambda d: page.text(".conversation .turn.assistant"), 300)
        check(len(answer) > len("Answer "), f"no answer: {answer!r}")
        played = page.wait(lambda d: int(page.find(".realtime").get_attribute("data-audio-chunks") or 0), 300)
        check(played > 0, "no audio of the answer was played")
        page.shot("voice-conversation")
        page.click("button.converse")
        page.wait(lambda d: page.text("button.converse") == "Start")
    finally:
        server.stop()


if __name__ == "__main__":
    run(checks, page_class=MicrophonePage)
