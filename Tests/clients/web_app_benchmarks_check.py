"""The web app's Benchmarks dashboard in a real browser (see web_app_support.py), against a live
`runanywhere serve` with the real engines and models: the acceptance tests T1-T11, T13, T14,
T17, T18 and T20 of spec benchmarks.md section 5.2, and the criteria AC-1 to AC-25 that have a
screen.

    web_app_benchmarks_check.py --binary PATH --screenshots DIR
"""
import csv
import io
import json
import os
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from web_app_support import Server, check, run, scratch_folder

CSV_HEADER = ("run_id,timestamp,category,scenario,model_id,model_name,framework,quantization,device,os,load_time_ms,warmup_ms,ttft_ms,"
              "tokens_per_sec,e2e_latency_ms,input_tokens,output_tokens,memory_delta_bytes,stt_time_ms,tts_time_ms,vlm_time_ms,diffusion_time_ms,error")


def runs(server):
    return server.get("/api/benchmarks")["runs"]


def wait_for_runs(page, server, count, seconds=600):
    """Waits until the server has `count` saved runs and the page shows them, the run's panel gone."""
    page.wait(lambda d: len(runs(server)) >= count and not server.get("/api/benchmarks")["running"], seconds)
    page.wait(lambda d: len(page.all("li.run")) >= count and not page.all(".run-progress:not([hidden])"))


def set_repetitions(page, value):
    field = page.find("input[name=repetitions]")
    field.clear()
    field.send_keys(str(value))


def chips(page, pressed):
    """Presses exactly the category chips in `pressed`."""
    page.find("button.chip")
    for category in [chip.get_attribute("data-category") for chip in page.all("button.chip")]:  # each press redraws the chips
        chip = f"button.chip[data-category={category}]"
        if (page.find(chip).get_attribute("aria-pressed") == "true") != (category in pressed):
            page.click(chip)
    page.wait(lambda d: {c.get_attribute("data-category") for c in page.all("button.chip[aria-pressed=true]")} == set(pressed))


def without_models(server):
    """The categories with no downloaded model."""
    return {c["category"] for c in server.get("/api/benchmarks")["categories"] if not c["models"]}


def dashboard_checks(page, server, downloads):
    # T1, AC-1: Settings → Benchmarks opens the dashboard, with the device and no runs.
    page.driver.get(server.url + "/#/settings")
    page.click("a.nav-card[href='#/benchmarks']")
    page.find("[data-device=Chip]")
    check("No runs yet" in page.text(".benchmarks"), "a fresh dashboard lists runs")
    check(page.text("[data-device=Memory] strong").endswith("GB"), "the device card has no memory")
    # AC-23: categories without a downloaded model are warned about before a run.
    warned = {li.get_attribute("data-category") for li in page.all(".run-controls .warning")}
    check(warned == without_models(server), f"warned categories {warned}")
    page.shot("benchmarks-empty")

    # T6, T13, T14: Run Selected with STT and TTS only.
    chips(page, {"stt", "tts"})
    set_repetitions(page, 1)
    page.click("button.run-selected")
    page.find(".run-progress:not([hidden])", 20)
    page.wait(lambda d: " / " in page.text(".run-progress .count"), 60)  # AC-4: scenario, bar, n/total
    check(page.text(".run-progress .scenario").split(":")[0] in ("Speech-to-Text", "Text-to-Speech"), f"scenario {page.text('.run-progress .scenario')!r}")
    page.shot("benchmarks-running")
    wait_for_runs(page, server, 1)
    first = runs(server)[0]
    categories = {r["category"] for r in first["results"]}
    check(first["status"] == "completed" and categories == {"stt", "tts"}, f"Run Selected ran {categories} ({first['status']})")
    check(all(r["metrics"].get("sttTranscriptionTimeMs") for r in first["results"] if r["category"] == "stt"), "an STT result has no transcription time")
    check(all(r["metrics"].get("ttsSynthesisTimeMs") for r in first["results"] if r["category"] == "tts"), "a TTS result has no synthesis time")

    # T5, T17, T20, AC-7/8/9: the run's page, grouped by category, model info and every metric.
    page.click(f"li.run[data-run='{first['id']}'] a")
    page.find(".result-group[data-category=stt]")
    check(len(page.all(".result-group")) == 2, "results are not grouped in two categories")
    for result in first["results"]:
        card = f"li.result[data-result='{result['id']}']"
        info = result["componentModelInfo"]
        head = page.text(f"{card} .result-head")
        check(info["modelId"] in head and info["modelName"] in head and info["framework"] in head and info["formatOrQuantization"] in head,
              f"result head {head!r} lacks the model's id, name, framework or quantization")
        memory = page.all(f"{card} [data-metric=peakMemoryDeltaBytes]") or page.all(f"{card} [data-metric=peakRSSDeltaBytes]")
        check(page.all(f"{card} [data-metric=loadTimeMs]") and memory, f"{card} lacks load time or memory delta")
    page.shot("benchmark-run")

    # T7, AC-10: Copy Report puts the Markdown report on the clipboard.
    page.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]})
    page.click("button.copy-report")
    page.wait(lambda d: "Copied to clipboard" in page.text("#toasts"))
    copied = page.driver.execute_async_script("navigator.clipboard.readText().then(arguments[0], (e) => arguments[0]('failed: ' + e))")
    check(copied.startswith("#") and first["results"][0]["componentModelInfo"]["modelId"] in copied and first["deviceInfo"]["chipName"] in copied,
          f"the copied report is {copied[:200]!r}")

    # T8, T9, AC-11-13: the JSON and CSV files.
    page.click("button.download-json")
    page.click("button.download-csv")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len([f for f in os.listdir(downloads) if f.endswith((".json", ".csv"))]) < 2:
        time.sleep(0.1)
    files = {name.rsplit(".", 1)[1]: os.path.join(downloads, name) for name in os.listdir(downloads) if name.endswith((".json", ".csv"))}
    if check(set(files) == {"json", "csv"}, f"downloaded {sorted(os.listdir(downloads))}"):
        with open(files["json"], encoding="utf-8") as file:
            exported = json.load(file)
        check(set(exported) >= {"exportedAt", "device", "run"} and exported["run"]["id"] == first["id"], f"JSON export keys {sorted(exported)}")
        check(set(exported["run"]["results"][0]) >= {"id", "category", "scenarioName", "componentModelInfo", "metrics"}, "JSON export result keys")
        with open(files["csv"], encoding="utf-8") as file:
            rows = list(csv.reader(io.StringIO(file.read())))
        check(",".join(rows[0]) == CSV_HEADER, f"CSV header {rows[0]}")
        check(len(rows) == 1 + len(first["results"]), f"CSV has {len(rows) - 1} rows for {len(first['results'])} results")

    # AC-14: saved in the exports folder, the file name confirmed.
    page.click("button.save-json")
    page.wait(lambda d: page.text(".saved .file-name"))
    name = page.text(".saved .file-name")
    path = page.text(".saved code")
    check(name == f"benchmark_{first['id']}.json" and os.path.basename(path) == name and os.path.exists(path), f"saved {name!r} at {path!r}")
    return first


def run_all_checks(page, server):
    # T3, T18, AC-2, AC-25: Run All; the page goes elsewhere and is reloaded meanwhile, and shows the run again.
    page.driver.get(server.url + "/#/benchmarks")
    chips(page, set())
    set_repetitions(page, 1)
    page.click("button.run-all")
    page.find(".run-progress:not([hidden])", 20)
    # AC-23 during the run: the categories it skipped, and why.
    page.wait(lambda d: {li.get_attribute("data-category") for li in page.all(".run-progress .warning")} >= without_models(server), 60)
    page.driver.get(server.url + "/#/chat")
    page.find("textarea[aria-label=Message]", 20)  # the page answers while the run goes on
    check(server.get("/api/benchmarks")["running"], "leaving the page stopped the run")
    page.driver.get(server.url + "/#/benchmarks")
    page.driver.refresh()
    page.wait(lambda d: " / " in page.text(".run-progress:not([hidden]) .count"), 60)
    page.shot("benchmarks-run-all")
    wait_for_runs(page, server, 2)
    latest = runs(server)[0]
    categories = {r["category"] for r in latest["results"]}
    expected = {c["category"] for c in server.get("/api/benchmarks")["categories"] if c["models"]}
    check(latest["status"] == "completed" and categories == expected and {"vlm", "diffusion"} <= categories, f"Run All ran {categories} ({latest['status']})")
    page.find(".run-charts svg")  # tok/s and latency across runs

    # T4, AC-5: Cancel after the first result keeps what was done, as cancelled. The reload above
    # put the repetitions back to their default (3): one is enough for a first result.
    set_repetitions(page, 1)
    page.click("button.run-all")
    page.wait(lambda d: page.text(".run-progress:not([hidden]) .count").startswith(("1 /", "2 /")), 300)
    page.click("button.cancel")
    wait_for_runs(page, server, 3)
    cancelled = runs(server)[0]
    check(cancelled["status"] == "cancelled" and len(cancelled["results"]) >= 1, f"cancelled run: {cancelled['status']}, {len(cancelled['results'])} results")
    check(page.find(f"li.run[data-run='{cancelled['id']}'] .status").text == "cancelled", "the cancelled run is not shown as cancelled")
    check(not page.all(".toast.error"), f"Cancel showed an error: {[t.text for t in page.all('.toast.error')]}")
    # AC-6: newest first.
    saved = [r["id"] for r in runs(server)]  # the server's order: newest first
    check([r["startedAt"] for r in runs(server)] == sorted((r["startedAt"] for r in runs(server)), reverse=True), "the server's runs are not newest first")
    page.wait(lambda d: [li.get_attribute("data-run") for li in page.all("li.run")] == saved)
    page.shot("benchmarks-history")
    # The dashboard and a run's page at a phone's width, in dark mode: nothing wider than the screen.
    page.driver.set_window_size(390, 844)
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    for screen, ready in (("#/benchmarks", "li.run"), (f"#/benchmarks/{cancelled['id']}", ".result-group")):
        page.driver.get(server.url + "/" + screen)
        page.find(ready, 20)
        width = page.driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        check(width[0] <= width[1], f"{screen} is {width[0]}px wide on a {width[1]}px screen")
        page.shot(f"phone-dark-{'benchmark-run' if cancelled['id'] in screen else 'benchmarks'}")
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    page.driver.set_window_size(1280, 860)


def persistence_checks(page, server, binary, data):
    # T10, AC-16: the runs survive a restart; T11, AC-15: Clear All, confirmed.
    before = [r["id"] for r in runs(server)]
    check(server.stop() == 0, "the server did not stop cleanly")
    server = Server(binary, data)
    page.driver.get(server.url + "/#/benchmarks")
    page.wait(lambda d: [li.get_attribute("data-run") for li in page.all("li.run")] == before, 20)
    page.click("button.clear-all")
    page.wait(EC.alert_is_present(), 10).accept()
    page.wait(lambda d: "No runs yet" in page.text(".benchmarks"))
    check(runs(server) == [], "Clear All left runs")
    return server


def no_models_checks(page, binary):
    # T2: with nothing downloaded (only eSpeak NG's voices, which come with the system), Run All
    # warns about every category without a model, skips them, and saves what it could run.
    home = scratch_folder("web-app-home-")
    os.environ["RUNANYWHERE_HOME"] = home
    try:
        server = Server(binary, os.path.join(home, "data"))
    finally:
        del os.environ["RUNANYWHERE_HOME"]
    try:
        page.driver.get(server.url + "/#/benchmarks")
        page.find("button.chip")
        empty = {c["category"] for c in server.get("/api/benchmarks")["categories"] if not c["models"]}
        check({"llm", "stt", "vlm", "diffusion"} <= empty, f"categories without a model: {empty}")
        warned = {li.get_attribute("data-category") for li in page.all(".run-controls .warning")}
        check(warned == empty, f"warned about {warned}, not {empty}")
        set_repetitions(page, 1)
        page.click("button.run-all")
        wait_for_runs(page, server, 1, 120)
        saved = runs(server)[0]
        ran = {r["category"] for r in saved["results"]}
        check(saved["status"] == "completed" and not (ran & empty), f"the run with no models: {saved['status']}, ran {ran}")
        page.shot("benchmarks-no-models")
    finally:
        server.stop()


def checks(page, options, folders):
    server = Server(options.binary, folders["data"])
    try:
        dashboard_checks(page, server, folders["downloads"])
        run_all_checks(page, server)
        server = persistence_checks(page, server, options.binary, folders["data"])
    finally:
        server.stop()
    no_models_checks(page, options.binary)


if __name__ == "__main__":
    run(checks)
