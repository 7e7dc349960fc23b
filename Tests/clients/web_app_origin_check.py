"""A web page on another site, in a real browser (see web_app_support.py), against a live
`runanywhere serve`: it can neither drive the server nor read from it.

- A page served from another origin (`http://evil.example:PORT`, which Chromium is told resolves
  to 127.0.0.1) sends the request any page can send without asking, a chat completion as
  `text/plain`, and tries to read the settings and to create a conversation: the server refuses
  each with a 403 before any work (its access log says so, no model is loaded, no conversation
  made) and the page reads nothing.
- DNS rebinding: the browser reaches the server by a foreign name (`http://rebind.example:PORT`,
  resolving to 127.0.0.1 as a rebound name would) and, now same-origin with it, tries to read the
  settings: the server refuses the foreign `Host`.
- The web app on the server's own origin keeps working.

    web_app_origin_check.py --binary PATH --screenshots DIR --model ID
"""
import http.server
import re
import threading

from web_app_support import Page, Server, check, run

EVIL_PAGE = """<!doctype html><title>evil</title><script>
window.results = {};
(async () => {
  const api = "%(api)s";
  const chat = JSON.stringify({model: "%(model)s", messages: [{role: "user", content: "hi"}], max_tokens: 4});
  try {
    await fetch(api + "/v1/chat/completions", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: chat});
    results.simple = "sent";
  } catch (error) { results.simple = "failed: " + error; }
  try {
    const response = await fetch(api + "/api/settings");
    results.read = "read " + response.status + " " + await response.text();
  } catch (error) { results.read = "refused"; }
  try {
    const response = await fetch(api + "/api/conversations", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"});
    results.create = "read " + response.status;
  } catch (error) { results.create = "refused"; }
  results.done = true;
})();
</script>"""


class RebindingPage(Page):
    """Chromium told that evil.example and rebind.example resolve to 127.0.0.1."""
    extra_arguments = ["--host-resolver-rules=MAP evil.example 127.0.0.1, MAP rebind.example 127.0.0.1"]

    def script_errors(self):
        """The browser's errors but its CORS refusals, which are what this check expects."""
        return [entry for entry in super().script_errors() if "blocked by CORS policy" not in entry["message"]]


def serve_evil_page(api, model):
    """An HTTP server on another loopback port that serves EVIL_PAGE; returns it and its port."""
    body = (EVIL_PAGE % {"api": api, "model": model}).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def results(page):
    page.wait(lambda d: d.execute_script("return window.results && window.results.done"))
    return page.driver.execute_script("return window.results")


def checks(page, options, folders):
    server = Server(options.binary, folders["data"])
    evil, evil_port = serve_evil_page(server.url, options.model)
    try:
        page.driver.get(f"http://evil.example:{evil_port}/")
        found = results(page)
        page.shot("origin-foreign-page")
        check(found["simple"] == "sent", f"the no-cors request went out (its answer is opaque): {found}")
        check(found["read"] == "refused", f"a foreign page reads nothing: {found}")
        check(found["create"] == "refused", f"a foreign page creates nothing: {found}")
        log = "".join(server.log)
        for line in ["POST /v1/chat/completions 403", "GET /api/settings 403", "OPTIONS /api/conversations 403"]:
            check(line in log, f"the server refused '{line.rsplit(' ', 1)[0]}' with a 403: {re.findall(r'(?:GET|POST|OPTIONS) /[^ ]* [0-9]+', log)}")
        check(server.get("/api/models/loaded")["models"] == [], "no model was loaded for the foreign page")
        check(server.get("/api/conversations")["conversations"] == [], "no conversation was made")

        port = server.url.rsplit(":", 1)[1]
        page.driver.get(f"http://rebind.example:{port}/")
        check("host_not_allowed" in page.driver.page_source, f"the page at a rebound name is refused: {page.driver.page_source[:300]}")
        status = page.driver.execute_async_script("const done = arguments[0]; fetch('/api/settings').then(r => done(r.status), e => done(String(e)))")
        check(status == 403, f"a rebound page reads nothing from the server: {status}")
        page.shot("origin-rebinding")

        page.driver.get(server.url + "/#/settings")
        page.find(".tabs a[data-tab='settings']")
        status = page.driver.execute_async_script(
            "const done = arguments[0]; fetch('/api/settings', {method: 'PATCH', headers: {'Content-Type': 'application/json'}, body: '{\"maxTokens\": 64}'})"
            ".then(r => done(r.status), e => done(String(e)))")
        check(status == 200, f"the web app's own page still reads and writes: {status}")
        page.shot("origin-own-page")
    finally:
        evil.shutdown()
        check(server.stop() == 0, "the server stopped cleanly")


if __name__ == "__main__":
    run(checks, "--model", page_class=RebindingPage)
