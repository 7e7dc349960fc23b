"""The web app's Telemetry page in a real browser (see web_app_support.py), against a live
`runanywhere serve` started with an API key, which also receives BenchRunner payloads on
/telemetry: the page asking for the key, then empty; runs posted (three at about 100 fps, then
three at about 70), the groups' table, the regression found, the charts across runs and the
newest runs, a bad payload refused naming its field, and Export CSV downloading every run.

    web_app_telemetry_check.py --binary PATH --screenshots DIR
"""
import csv
import datetime
import json
import os
import time
import urllib.error
import urllib.request
import uuid

from web_app_support import Server, check, run


def payload(fps, minutes_ago, model="GradientIdentity"):
    stamp = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=minutes_ago)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"platform": "linux", "metrics": {
        "model_id": model, "run_id": str(uuid.uuid4()), "timestamp": stamp, "frames_processed": int(fps * 60), "warmup_frames": 45,
        "fps_avg": fps, "fps_min": fps - 2, "fps_max": fps + 2, "latency_p50_ms": 1000 / fps, "latency_p95_ms": 1200 / fps,
        "cold_start_ms": 215.7, "model_file_mb": 0.0, "thermal_state": "nominal", "device_model": "Test rig 7",
        "os_version": "Debian GNU/Linux 12 (bookworm)", "backend": "onnxruntime", "telemetry_post_url": "http://127.0.0.1/telemetry"}}


def checks(page, options, folders):
    key = f"telemetry-{uuid.uuid4()}"
    server = Server(options.binary, folders["data"], api_key=key)
    try:
        page.driver.get(server.url + "/#/telemetry")
        page.find("dialog[open] input[type=password]").send_keys(key)
        page.click("dialog[open] button.primary")
        page.wait(lambda d: "No runs yet" in page.text(".telemetry"))
        check(page.driver.find_element("css selector", ".tabs a[data-tab='telemetry']").get_attribute("aria-current") == "page",
              "the Telemetry tab is the current one")
        page.shot("telemetry-empty")

        for index, fps in enumerate([101, 99, 100, 71, 69, 70]):
            server.post("/telemetry", payload(fps, 60 - index))
        server.post("/telemetry", payload(30, 5, model="smollm2-135m-instruct-q4_1"))
        try:
            bad = payload(50, 1)
            bad["metrics"]["fps_min"] = -5
            request = urllib.request.Request(server.url + "/telemetry", data=json.dumps(bad).encode(), headers={"Content-Type": "application/json", **server.headers})
            urllib.request.urlopen(request)
            check(False, "a negative fps was accepted")
        except urllib.error.HTTPError as error:
            body = json.loads(error.read())
            check(error.code == 400 and body["error"]["field"] == "metrics.fps_min", f"a bad payload names its field: {error.code} {body}")

        page.driver.refresh()
        page.wait(lambda d: len(page.all("tr.group")) == 2)
        first = page.all("tr.group")[0].text
        check("GradientIdentity" in first and "Test rig 7" in first and " 6 " in f" {first} ", f"the busiest group first with its 6 runs: {first}")
        check("7 runs in 2 groups" in page.text(".telemetry-summary"), "the run and group counts")
        regressions = [item.text for item in page.all("li.regression")]
        check(any("fps 100 → 70" in item and "30 % worse" in item for item in regressions), f"the fps drop is a regression: {regressions}")
        page.wait(lambda d: len(page.all("tr.run")) == 6)
        polylines = page.all(".telemetry-detail svg polyline")
        check(len(polylines) == 3, f"an fps line and two latency lines: {len(polylines)}")
        check(len(polylines[0].get_attribute("points").split()) == 6, "one point per run")
        page.shot("telemetry")

        page.click("tr.group:nth-child(2)")
        page.wait(lambda d: len(page.all("tr.run")) == 1)
        check("smollm2" in page.text(".telemetry-detail h2"), "choosing a group shows its runs")
        check(page.all("tr.group")[1].get_attribute("aria-selected") == "true", "the chosen group is marked")
        page.shot("telemetry-group")

        # Export CSV fetches with the tab's key (a plain link would be refused) and saves every run.
        page.click("button.export-csv")
        path = os.path.join(folders["downloads"], "telemetry.csv")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not os.path.exists(path):
            time.sleep(0.1)
        if check(os.path.exists(path), f"Export CSV saved {sorted(os.listdir(folders['downloads']))}"):
            with open(path, encoding="utf-8", newline="") as file:
                rows = list(csv.reader(file))
            check(rows[0][:3] == ["platform", "model_id", "run_id"] and len(rows) == 8, f"the export has a header and 7 runs: {rows[:2]}, {len(rows)} rows")
            check(sorted(float(row[rows[0].index("fps_avg")]) for row in rows[1:]) == [30, 69, 70, 71, 99, 100, 101], "the runs' fps")
    finally:
        check(server.stop() == 0, "the server stopped cleanly")


if __name__ == "__main__":
    run(checks)
