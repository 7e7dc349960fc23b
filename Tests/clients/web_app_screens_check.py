"""The web app's Models, Settings, Voice and Vision screens in a real browser (see
web_app_support.py), against a live `runanywhere serve` with the real engines and models.

    web_app_screens_check.py --binary PATH --screenshots DIR

Models: the catalog by category; a model loaded ahead and unloaded; adding a model from a URL, each wrong field shown inline as it
is typed; its download from a loopback server with live progress, cancelled and resumed (with a
Range request); its GGUF metadata; deleting it. Settings: generation defaults saved and a bad
one refused inline; the environment switcher never showing the key. Voice: an uploaded WAV
transcribed with segments; a recording from (Chromium's fake) microphone transcribed; a spoken
reply that plays; a voice turn with each stage's timing.
Vision: an image described by the vision-language fixture (whose answers are noise, as the page
says), a damaged image refused; the reason the SDK gives for generating images, which this build
cannot do yet. Then every screen at a phone's width, light and dark, no wider than the screen.
"""
import http.server
import os
import random
import socket
import struct
import tempfile
import zlib
import threading
import time
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from web_app_support import Server, check, run


def tiny_gguf(size):
    """A GGUF v3 file of about `size` bytes: a llama header and one F32 tensor of zeros."""
    def string(text):
        data = text.encode()
        return struct.pack("<Q", len(data)) + data
    values = [("general.architecture", 8, string("llama")), ("general.name", 8, string("Web Test Llama")),
              ("general.alignment", 4, struct.pack("<I", 32)), ("llama.context_length", 4, struct.pack("<I", 256))]
    count = max(1, (size - 512) // 4)
    header = b"GGUF" + struct.pack("<IQQ", 3, 1, len(values))
    for key, kind, value in values:
        header += string(key) + struct.pack("<I", kind) + value
    header += string("weights") + struct.pack("<I", 1) + struct.pack("<Q", count) + struct.pack("<I", 0) + struct.pack("<Q", 0)
    header += b"\0" * (-len(header) % 32)
    return header + b"\0" * (count * 4)


class SlowFiles(http.server.ThreadingHTTPServer):
    """A loopback web server that sends `files` slowly, honours Range requests, and records them.
    A request from the start stops sending halfway until the client goes away (a download that
    is surely still under way when it is cancelled); a resumed one runs to the end."""

    def __init__(self, files):
        self.files = files
        self.ranges = []
        self.closing = threading.Event()

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self.respond(body=False)

            def do_GET(self):
                self.respond(body=True)

            def respond(self, body):
                data = files.get(self.path)
                if data is None:
                    self.send_error(404)
                    return
                start = 0
                requested = self.headers.get("Range")
                if body:
                    server.ranges.append(requested)
                if requested and requested.startswith("bytes="):
                    start = int(requested[6:].split("-")[0])
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                else:
                    self.send_response(200)
                self.send_header("Content-Length", str(len(data) - start))
                self.send_header("Accept-Ranges", "bytes")
                self.end_headers()
                if not body:
                    return
                try:
                    for offset in range(start, len(data), 16384):
                        if start == 0 and offset >= len(data) // 2:
                            while not self.client_gone():  # held until the client closes the connection
                                if server.closing.wait(0.1):
                                    return
                            return
                        self.wfile.write(data[offset:offset + 16384])
                        time.sleep(0.02)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def client_gone(self):
                try:
                    return self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
                except BlockingIOError:
                    return False
                except OSError:
                    return True

        server = self
        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.server_address[1]}{path}"

    def close(self):
        self.closing.set()
        self.shutdown()


def field_error(page, name):
    return page.text(f"#{name}-error")


def models_checks(page, server):
    page.driver.get(server.url + "/#/models")
    page.find("li.model[data-model]")
    sections = [element.text.split(" ")[0] for element in page.all(".model-list h2")]
    check("Language" in sections and "Speech" in " ".join(sections), f"catalog sections {sections}")
    check("installed" in page.text("li.model[data-model='smollm2-135m-instruct-q4_1'] .model-state"), "the default model is not shown installed")
    page.shot("models")

    # Load ahead of the first request, then unload, from the model's page.
    page.driver.get(server.url + "/#/models/info/smollm2-135m-instruct-q4_1")
    page.click("button.load")
    page.wait(lambda d: page.all("button.unload") and "loaded" in page.text("table.fields"), 60)
    check(any(m["modelId"] == "smollm2-135m-instruct-q4_1" and m["state"] == "loaded" for m in server.get("/api/ps")["models"]), "Load did not load the model")
    page.click("button.unload")
    page.wait(lambda d: page.all("button.load"), 30)
    check(server.get("/api/ps")["models"] == [], "Unload did not unload the model")
    page.driver.get(server.url + "/#/models")
    page.find("li.model[data-model]")

    name = f"web-test-{random.randrange(10**6)}"
    files = SlowFiles({f"/{name}.gguf": tiny_gguf(4 << 20)})
    try:
        page.find("a.add-model").click()
        url = page.find("#add-url")
        url.send_keys("http://example.com/voice.onnx")
        page.find("#add-id").send_keys("a b")
        page.find("#add-sha256").send_keys("xyz")
        page.wait(lambda d: field_error(page, "framework") and field_error(page, "id") and field_error(page, "sha256"), 10)
        check("onnx" in field_error(page, "framework").lower(), f"framework error {field_error(page, 'framework')!r}")
        check("Invalid model id" in field_error(page, "id"), f"id error {field_error(page, 'id')!r}")
        check(page.find("#add-id").get_attribute("aria-invalid") == "true", "the id field is not marked invalid")
        page.shot("models-add-invalid")
        for selector in ("#add-url", "#add-id", "#add-sha256"):
            page.find(selector).clear()
        page.find("#add-url").send_keys(files.url(f"/{name}.gguf"))
        page.wait(lambda d: page.text(".detected-format") == "GGUF" and not field_error(page, "framework") and not field_error(page, "id"), 10)
        check(page.find("#add-id").get_attribute("placeholder") == name, "the derived id is not shown")
        page.shot("models-add-valid")
        page.find(".add-form button[type=submit]").click()

        # The download starts at once: live progress, Cancel, then Resume from where it stopped.
        page.wait(lambda d: "%" in page.text(".download-figures") and "/s" in page.text(".download-figures"), 30)
        page.shot("models-downloading")
        page.click("button.cancel")
        page.wait(lambda d: "Cancelled" in page.text(".download-figures"), 30)
        check(files.ranges == [None], f"requests before the resume: {files.ranges}")
        page.click("button.download")
        page.wait(lambda d: "installed" in page.text("table.fields"), 60)
        check(len(files.ranges) == 2 and (files.ranges[1] or "").startswith("bytes=") and files.ranges[1] != "bytes=0-",
              f"the download did not resume with a Range request: {files.ranges}")
        architecture = page.find("[data-gguf=Architecture] strong", 20).text
        check(architecture == "llama", f"GGUF architecture {architecture!r}")
        page.shot("models-details")

        # The same URL again: its id is taken, said inline.
        page.driver.get(server.url + "/#/models/add")
        page.find("#add-url").send_keys(files.url(f"/{name}.gguf"))
        page.wait(lambda d: "already exists" in field_error(page, "id"), 10)

        # Delete, confirmed.
        page.driver.get(f"{server.url}/#/models/info/{name}")
        page.click("button.delete")
        page.wait(EC.alert_is_present(), 10).accept()
        page.wait(lambda d: page.driver.execute_script("return location.hash") == "#/models", 10)
        page.find("li.model[data-model]")
        check(not page.all(f"li.model[data-model='{name}']"), "the deleted model is still listed")
    finally:
        files.close()
        try:  # the models folder is the real cache: leave nothing behind, whatever failed
            urllib.request.urlopen(urllib.request.Request(f"{server.url}/api/models/{name}", method="DELETE"))
        except urllib.error.URLError:
            pass  # deleted by the check, never added, or the server is gone


def settings_checks(page, server):
    page.driver.get(server.url + "/#/settings")
    temperature = page.find("#setting-temperature")
    temperature.clear()
    temperature.send_keys("7")
    page.find(".settings-form button[type=submit]").click()
    page.wait(lambda d: field_error(page, "temperature"), 10)
    check(server.get("/api/settings")["temperature"] != 7, "a temperature of 7 was saved")
    temperature.clear()
    temperature.send_keys("0.5")
    page.find(".settings-form button[type=submit]").click()
    page.wait(lambda d: server.get("/api/settings")["temperature"] == 0.5, 10)
    check(not field_error(page, "temperature"), "the error stayed after a good value was saved")

    key = f"sk-web-{random.randrange(10**12):012d}"
    Select(page.find("#setting-environment")).select_by_value("staging")
    page.find("#setting-apiKey").send_keys(key)
    page.find(".environment-form button[type=submit]").click()
    page.wait(lambda d: "base URL" in field_error(page, "baseURL"), 10)  # staging needs one: said inline
    check(page.find("#setting-apiKey").get_attribute("value") == "", "the key stayed in its field after a refusal")
    page.find("#setting-baseURL").send_keys("https://staging.example.com")
    page.find("#setting-apiKey").send_keys(key)
    page.find(".environment-form button[type=submit]").click()
    page.wait(lambda d: key[-4:] in page.text(".stored-key"), 10)
    check(page.find("#setting-apiKey").get_attribute("value") == "", "the key stayed in its field")
    check(page.find("#setting-apiKey").get_attribute("type") == "password", "the key field is not a password field")
    check(key not in page.driver.page_source and key not in page.driver.execute_script("return document.body.innerText"), "the page shows the key")
    selected = [e for e in server.get("/api/environment")["environments"] if e["isSelected"]]
    check(selected and selected[0]["environment"] == "staging", f"selected {selected}")
    page.find("#frameworks-title")
    check("available" in page.text("tr[data-framework=LlamaCpp]"), "llama.cpp is not shown available")
    check("Apple" in page.text("tr[data-framework=CoreML]"), "Core ML's reason is not shown")
    page.find("#device-title")
    page.shot("settings")
    # Back to development, so that nothing else sees a staging selection.
    Select(page.find("#setting-environment")).select_by_value("development")
    page.find(".environment-form button[type=submit]").click()
    page.wait(lambda d: "Selected: development" in page.text(".environment-form [role=status]"), 10)


def voice_checks(page, server, folder):
    sentence = "The quick brown fox jumps over the lazy dog."
    wav = server.post("/v1/audio/speech", {"model": "piper-en_US-joe-medium", "input": sentence, "response_format": "wav"})
    path = os.path.join(folder, "fox.wav")
    with open(path, "wb") as file:
        file.write(wav)
    page.driver.get(server.url + "/#/voice")
    # The microphone: Chromium's fake one plays a tone; what it records (WebM/Opus) goes to the
    # server and comes back as a transcript (of no words).
    page.click("button.record")
    page.wait(lambda d: page.text("button.record") == "Stop recording", 10)
    time.sleep(2)
    page.click("button.record")
    page.wait(lambda d: page.text(".transcription .timing"), 60)
    check("of audio" in page.text(".transcription .timing"), f"the recording was not transcribed: {page.text('.transcription')!r}")

    page.find("input[name=audio]").send_keys(path)
    page.find("button.transcribe").click()
    heard = page.wait(lambda d: "fox" in page.text(".transcript").lower() and page.text(".transcript"), 120)  # not the recording's, shown before
    check("dog" in heard.lower(), f"the WAV was heard as {heard!r}")
    check(page.all("table.segments tbody tr"), "no segments shown")
    check("transcribed in" in page.text(".transcription .timing"), "no transcription timing shown")

    page.find("button.speak").click()
    page.wait(lambda d: page.driver.execute_script("const a = document.querySelector('audio.spoken'); return a && a.duration > 0 && a.currentTime > 0"), 60)
    check("Download WAV" in page.text(".speech a.button"), "no download of the spoken text")
    page.shot("voice")

    page.find("input[name=turn-audio]").send_keys(path)
    page.find("button.run-turn").click()
    page.wait(lambda d: page.all(".stages .total"), 180)
    check("fox" in page.text("[data-stage=Transcript]").lower(), f"voice turn transcript {page.text('[data-stage=Transcript]')!r}")
    answer = page.text("[data-stage=Answer] .stage-body")
    check(answer.strip(), "the voice turn has no answer")
    check(all(page.text(f"[data-stage='{stage}'] .stage-time") for stage in ("Transcript", "Answer", "Spoken answer")), "a stage has no timing")
    check(page.driver.execute_script("const a = document.querySelector('.stages audio'); return a !== null && a.duration > 0"), "the spoken answer has no audio")
    page.driver.execute_script("document.querySelector('.stages').scrollIntoView()")
    page.shot("voice-turn")


def png(width, height, rgb):
    """A solid-colour PNG file (zlib, no imaging library)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def vision_checks(page, server, folder):
    """Describe an image with the vision-language fixture (random weights: the answer is noise,
    and the page says so); a damaged image is refused with the server's reason. Generating
    images is not in this build, and that card says why."""
    image = os.path.join(folder, "red.png")
    with open(image, "wb") as file:
        file.write(png(160, 120, (220, 30, 30)))
    damaged = os.path.join(folder, "damaged.png")
    with open(damaged, "wb") as file:
        file.write(png(160, 120, (0, 0, 255))[:60])
    page.driver.get(server.url + "/#/vision")
    page.find("[data-modality=image-to-text] select[name=model]")
    check("smolvlm-fixture" in [o.get_attribute("value") for o in page.all("select[name=model] option")], "the fixture is not offered")
    page.driver.execute_script("const s = document.querySelector('select[name=model]'); s.value = 'smolvlm-fixture'; s.dispatchEvent(new Event('change'))")
    check("random" in page.text(".fixture-note"), f"the fixture is not called a fixture: {page.text('.fixture-note')!r}")
    page.find("input[name=image]").send_keys(image)
    page.wait(lambda d: page.driver.execute_script("const i = document.querySelector('img.preview'); return i && !i.hidden && i.naturalWidth === 160"), 10)
    prompt = page.find("input[name=prompt]")
    prompt.clear()
    prompt.send_keys("What colour is it?")
    page.click("button.describe")
    timing = page.wait(lambda d: "prompt tokens" in page.text(".description .timing") and page.text(".description .timing"), 120)
    check("image encoded in" in timing and "tok/s" in timing, f"the description's measurements: {timing!r}")
    check(page.text(".description .answer").strip(), "no answer was streamed")
    page.shot("vision")
    page.find("input[name=image]").send_keys(damaged)
    page.click("button.describe")
    failed = page.wait(lambda d: page.all(".description .notice") and page.text(".description .notice"), 60)
    check("could not be decoded" in failed or "truncated" in failed, f"a damaged image says {failed!r}")
    reason = page.text("[data-modality=text-to-image] .notice")
    check("text-to-image" in reason, f"the Generate card says {reason!r}")


def phone_and_dark_checks(page, server):
    """Every screen at a phone's width, light then dark: nothing wider than the screen."""
    page.driver.set_window_size(390, 844)
    for scheme in ("light", "dark"):
        page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        for screen, ready in (("chat", "textarea[aria-label=Message]"), ("models", "li.model[data-model]"), ("settings", "#device-title"),
                              ("voice", "button.speak"), ("vision", "[data-modality]")):
            page.driver.get(f"{server.url}/#/{screen}")
            page.find(ready, 30)
            page.driver.execute_script("return new Promise((done) => requestAnimationFrame(() => done()))")
            width = page.driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            check(width[0] <= width[1], f"{screen} ({scheme}) is {width[0]}px wide on a {width[1]}px screen")
            page.shot(f"phone-{scheme}-{screen}")
    page.driver.set_window_size(1280, 860)


def checks(page, options, folders):
    server = Server(options.binary, folders["data"])
    try:
        models_checks(page, server)
        settings_checks(page, server)
        voice_checks(page, server, folders["downloads"])
        vision_checks(page, server, folders["downloads"])
        phone_and_dark_checks(page, server)
    finally:
        server.stop()


if __name__ == "__main__":
    run(checks)
