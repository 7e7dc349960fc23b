"""What the browser checks of the web app share: a live `runanywhere serve` started as a user
starts it (free loopback port, its own data folder), headless Chromium driven through selenium,
the list of failures, and the way a check script runs and reports.
"""
import argparse
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import traceback
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

failures = []


def scratch_folder(prefix):
    """A new empty folder under the system's temporary folder, removed when the check ends."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


class Server:
    """`runanywhere serve --port 0` with the data folder `data`; with `api_key`, started with
    --api-key-stdin, and `get` and `post` send the key."""

    def __init__(self, binary, data, api_key=None, arguments=()):
        environment = dict(os.environ, RUNANYWHERE_DATA=data)
        arguments = [binary, "serve", "--port", "0", "--threads", "1", *arguments] + (["--api-key-stdin"] if api_key else [])
        self.process = subprocess.Popen(arguments, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.process.stdin.write(api_key or "")
        self.process.stdin.close()
        self.log = []
        for line in self.process.stderr:
            self.log.append(line)
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match:
                self.url = f"http://127.0.0.1:{match.group(1)}"
                threading.Thread(target=lambda: self.log.extend(self.process.stderr), daemon=True).start()
                return
        raise SystemExit("runanywhere serve did not start:\n" + "".join(self.log))

    def get(self, path):
        with urllib.request.urlopen(urllib.request.Request(self.url + path, headers=self.headers)) as response:
            return json.load(response)

    def post(self, path, body):
        """POSTs JSON and returns the response's bytes."""
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **self.headers})
        with urllib.request.urlopen(request) as response:
            return response.read()

    def stop(self):
        self.process.terminate()
        return self.process.wait(timeout=60)


class Page:
    """Headless Chromium, with downloads saved to `downloads`, audio allowed to play, and a fake
    microphone (Chromium's test tone) that the page may use without asking."""

    extra_arguments = []
    """Chromium's command-line switches that a check adds (a subclass sets them)."""

    def __init__(self, downloads, screenshots):
        options = webdriver.ChromeOptions()
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,860", "--lang=en-US",
                         "--autoplay-policy=no-user-gesture-required", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"] + self.extra_arguments:
            options.add_argument(argument)
        options.binary_location = "/usr/bin/chromium"
        options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
        self.driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
        self.screenshots = screenshots

    def wait(self, condition, seconds=120):
        """Waits for `condition`, trying again when the page replaced an element it was reading."""
        return WebDriverWait(self.driver, seconds, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)).until(condition)

    def find(self, css, seconds=120):
        return self.wait(EC.presence_of_element_located((By.CSS_SELECTOR, css)), seconds)

    def click(self, css, seconds=30):
        """Clicks the element `css` finds, again if the page redrew it meanwhile."""
        def clicked(driver):
            try:
                driver.find_element(By.CSS_SELECTOR, css).click()
                return True
            except (StaleElementReferenceException, NoSuchElementException):
                return False
        self.wait(clicked, seconds)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def text(self, css):
        """The text of the first element `css` finds now, or "" when there is none."""
        found = self.all(css)
        try:
            return found[0].text if found else ""
        except StaleElementReferenceException:
            return ""

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.screenshots, f"{name}.png"))

    def script_errors(self):
        """What the page logged as errors, but for requests refused (a server restarting, a 4xx the page shows)."""
        return [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE" and entry.get("source") != "network"]


def run(checks, *arguments, page_class=Page):
    """Parses --binary, --screenshots and `arguments`, opens the browser as a `page_class`, runs
    `checks(page, options, folders)`, then prints the failures as JSON and exits 1 if any."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--screenshots", required=True)
    for argument in arguments:
        parser.add_argument(argument, required=True)
    options = parser.parse_args()
    os.makedirs(options.screenshots, exist_ok=True)
    folders = {"data": scratch_folder("web-app-data-"), "downloads": scratch_folder("web-app-downloads-")}
    page = page_class(folders["downloads"], options.screenshots)
    try:
        checks(page, options, folders)
        errors = page.script_errors()
        check(not errors, f"the browser logged errors: {errors}")
        shown = [toast.text for toast in page.all(".toast.error")]
        check(not shown, f"the page shows errors: {shown}")
    except TimeoutException as error:
        page.shot("timeout")
        frames = [frame for frame in traceback.extract_tb(error.__traceback__) if not frame.filename.endswith("web_app_support.py") and "selenium" not in frame.filename]
        where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno} ({frames[-1].line})" if frames else ""
        failures.append(f"timed out waiting{where}: {error.msg or 'see timeout.png'}")
    finally:
        page.driver.quit()
    print(json.dumps({"failures": failures, "screenshots": sorted(os.listdir(options.screenshots))}, indent=1))
    sys.exit(1 if failures else 0)
