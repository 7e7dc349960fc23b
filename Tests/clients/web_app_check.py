"""The web app in a real browser: Debian's Chromium, headless, driven through selenium against a
live `runanywhere serve` (started here, on a free loopback port, with its own data folder).

    web_app_check.py --binary PATH --model MODEL --pdf PDF --screenshots DIR

(the Chat, Chat Details and Documents screens; web_app_screens_check.py checks the others)

Checks a streamed answer with its footer, Chat Details numbers against the saved analytics, Stop,
an answer being streamed when the page reloads (kept as stopped), a conversation surviving a
server restart, search, rename, export and delete; files uploaded in Documents (a damaged PDF refused
first, then a Markdown file and the PDF --pdf names), their collection picked in Chat, an answer with numbered sources and a source's passage
opened; with `serve --mcp` (Tests/clients/mcp_tool_server.py), an answer that called a tool, its
call shown with its arguments and output. Saves a screenshot of every screen it sees.
Prints what failed and exits 1 if anything did.
"""
import json
import os
import re
import shlex
import sys
import time

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from web_app_support import Page, Server, check, run, scratch_folder

FOOTER = re.compile(r"^\d+\.\d+s • \d+ tok/s")


class ChatPage(Page):
    """The Chat screen's controls."""

    def open(self, url):
        self.driver.get(url)
        self.find("textarea[aria-label=Message]")

    def settings(self, max_tokens, temperature):
        self.find("button[aria-controls=chat-settings]").click()
        for name, value in (("maxTokens", max_tokens), ("temperature", temperature)):
            field = self.find(f"input[name={name}]")
            field.clear()
            field.send_keys(str(value))
        self.find("textarea[name=systemPrompt]").click()  # leaving a field saves it
        self.find("button[aria-controls=chat-settings]").click()

    def send(self, text):
        box = self.find("textarea[aria-label=Message]")
        box.send_keys(text)
        self.find("button.send").click()

    def answers(self):
        return self.all("article.message.assistant:not(.streaming)")

    def footer(self, count):
        """The footer of answer `count` once it is saved and shown."""
        return self.wait(lambda d: len(self.answers()) >= count and not self.all("article.streaming")
                         and self.answers()[count - 1].find_element(By.CSS_SELECTOR, ".footer-text").text)

    def conversation_id(self):
        return self.driver.execute_script("return location.hash").split("/")[2]


def chat_checks(page, server, model):
    page.open(server.url + "/")
    Select(page.find("select[aria-label=Model]")).select_by_value(model)
    page.shot("chat-empty")
    page.settings(max_tokens=24, temperature=0.7)
    page.send("Name three colours.")
    page.find("article.streaming")  # the answer is shown while it is written
    footer = page.footer(1)
    check(FOOTER.match(footer), f"footer {footer!r} is not the spec's '1.2s • 45 tok/s'")
    conversation_id = page.conversation_id()
    saved = server.get(f"/api/conversations/{conversation_id}")
    answer = saved["messages"][-1]
    check(answer["role"] == "assistant" and answer["content"].strip(), "the answer was not saved")
    check(answer["modelInfo"]["modelId"] == model, f"answered by {answer['modelInfo']['modelId']}, not the model picked")
    parameters = answer["analytics"]["generationParameters"]
    check(parameters["maxTokens"] == 24 and parameters["temperature"] == 0.7, f"the conversation's settings were not sent: {parameters}")
    shown = page.wait(lambda d: page.answers()[0].find_element(By.CSS_SELECTOR, ".content").text)
    check(shown.strip() == answer["content"].strip(), f"the page shows {shown!r}, the server saved {answer['content']!r}")
    page.shot("chat-answer")

    # Chat Details shows the saved analytics.
    page.find("a.details-link").click()
    cards = {card.get_attribute("data-metric"): card.find_element(By.TAG_NAME, "strong").text for card in page.wait(
        lambda d: d.find_elements(By.CSS_SELECTOR, "[data-metric]"))}
    analytics = saved["analytics"]
    check(cards.get("totalTokensUsed") == str(analytics["totalTokensUsed"]), f"total tokens {cards.get('totalTokensUsed')} != {analytics['totalTokensUsed']}")
    check(cards.get("messageCount") == str(analytics["messageCount"]), f"messages {cards.get('messageCount')} != {analytics['messageCount']}")
    check(cards.get("completionRate") == f"{round(analytics['completionRate'] * 100)}%", f"completion rate {cards.get('completionRate')}")
    page.shot("chat-details-overview")
    page.find("#tab-messages").click()
    tokens = page.find("table.answers td.tokens").text
    a = answer["analytics"]
    check(tokens == f"{a['inputTokens']} / {a['outputTokens']}", f"tokens in/out {tokens!r} != {a['inputTokens']} / {a['outputTokens']}")
    page.shot("chat-details-messages")
    page.find("#tab-performance").click()
    page.find("figure.chart svg polyline")
    page.shot("chat-details-performance")
    page.driver.back()
    page.find("article.message.assistant")

    # Stop: the answer ends early and is saved as stopped. Greedy, these requests give long stories.
    page.settings(max_tokens=400, temperature=0)
    page.send("Write a long story about a dragon who learns to fly.")
    page.wait(lambda d: page.all("article.streaming .content") and page.all("article.streaming .content")[0].text.strip())
    page.find("button.stop").click()
    stopped = page.footer(2)
    check(stopped.endswith("stopped"), f"a stopped answer's footer says {stopped!r}")
    last = server.get(f"/api/conversations/{conversation_id}")["messages"][-1]
    check(last["analytics"]["completionStatus"] == "interrupted", f"the stopped answer was saved as {last['analytics']['completionStatus']}")
    check(last["analytics"]["outputTokens"] < 400, "Stop did not stop the answer")

    # A reload while an answer streams keeps it, as stopped.
    page.send("Write a long story about a lighthouse keeper.")
    page.wait(lambda d: page.all("article.streaming .content") and page.all("article.streaming .content")[0].text.strip())
    page.driver.refresh()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        messages = server.get(f"/api/conversations/{conversation_id}")["messages"]
        if len(messages) == 6 and messages[-1].get("analytics"):
            break
        time.sleep(0.2)
    check(len(messages) == 6 and messages[-1]["analytics"]["completionStatus"] == "interrupted",
          f"the answer streamed during the reload was not kept as stopped: {[m['role'] for m in messages]}")
    return conversation_id


def conversation_checks(page, server, conversation_id, downloads):
    page.open(f"{server.url}/#/chat/{conversation_id}")
    page.wait(lambda d: len(page.answers()) >= 3)
    check(len(page.answers()) == 3, f"after a restart the conversation shows {len(page.answers())} answers, not 3")
    page.shot("chat-after-restart")

    # Search.
    other = server.get("/api/conversations")  # one conversation so far
    check(len(other["conversations"]) == 1, "one conversation expected")
    search = page.find("input[type=search]")
    search.send_keys("zebra-crossing")
    page.wait(lambda d: "No conversation matches" in page.find(".conversation-list").text)
    search.clear()
    search.send_keys("colours")
    page.wait(lambda d: len(page.all(".conversation-list a")) == 1)

    # Rename.
    page.find(".conversation-actions button").click()  # Rename comes first after Details
    field = page.find("input.rename")  # its text selected, so typing replaces it (clear() would blur it, which saves)
    field.send_keys("Colours and counting")
    try:
        field.send_keys(Keys.ENTER)
    except StaleElementReferenceException:
        pass  # Enter saved the title and put the heading back in the field's place
    page.wait(lambda d: page.find(".chat-header h1").text == "Colours and counting")
    check(server.get(f"/api/conversations/{conversation_id}")["title"] == "Colours and counting", "the new title was not saved")

    # Export as Markdown and JSON.
    for label in ("Export Markdown", "Export JSON"):
        page.driver.find_element(By.XPATH, f"//button[normalize-space()='{label}']").click()
    # Chromium writes a download first under a hidden temporary name, then as .crdownload, then renames it:
    # only finished files count, and the wait is for one of each kind.
    def finished():
        return sorted(f for f in os.listdir(downloads) if f.endswith((".md", ".json")) and not f.startswith("."))

    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and {os.path.splitext(f)[1] for f in finished()} != {".md", ".json"}:
        time.sleep(0.1)
    files = finished()
    check({os.path.splitext(f)[1] for f in files} == {".md", ".json"}, f"exports downloaded: {sorted(os.listdir(downloads))}")
    for name in files:
        with open(os.path.join(downloads, name), encoding="utf-8") as file:
            text = file.read()
        if name.endswith(".md"):
            check(text.startswith("# Colours and counting") and " • stopped_" in text, "the Markdown export lacks the title or the footers")
        if name.endswith(".json"):
            check(json.loads(text)["id"] == conversation_id, "the JSON export is another conversation")

    # Delete, confirmed.
    page.driver.find_element(By.XPATH, "//button[normalize-space()='Delete']").click()
    page.wait(EC.alert_is_present(), 10).accept()
    page.wait(lambda d: "No conversations yet" in page.find(".conversation-list").text)
    check(server.get("/api/conversations")["conversations"] == [], "the conversation was not deleted")


def documents_checks(page, server, model, good_pdf):
    folder = scratch_folder("web-app-documents-")
    notes, pdf = os.path.join(folder, "volcanoes.md"), os.path.join(folder, "paper.pdf")
    with open(notes, "w", encoding="utf-8") as file:
        file.write("# Volcanoes\n\nMount Etna in Sicily is the most active volcano in Europe.\n\nKilauea in Hawaii erupted from 1983 to 2018.\n")
    with open(pdf, "wb") as file:
        file.write(b"%PDF-1.7 not text")
    page.driver.get(server.url + "/#/documents")
    name = page.find("input[name=collection]")
    name.clear()
    name.send_keys("geology")
    # A damaged PDF beside a good file: both refused, nothing stored; then the good files.
    for paths in ((notes, pdf), (notes, good_pdf)):
        for path in paths:
            page.find("input[type=file]").send_keys(path)
        page.find("form.upload button.primary").click()
        if pdf in paths:
            refusal = page.wait(lambda d: page.text(".toast.error"))
            check("paper.pdf could not be read as PDF" in refusal, f"a PDF upload was refused with {refusal!r}")
            page.click(".toast.error button")
            check(server.get("/api/rag/collections")["collections"] == [], "a refused upload left a collection")
    page.find("tr[data-document='volcanoes.md']")
    check("pdf" in page.text(f"tr[data-document='{os.path.basename(good_pdf)}']").split(), "the PDF is not listed as pdf")
    added = [toast.text for toast in page.all(".toast:not(.error)")]
    check(any(text.startswith("Added 2 documents") for text in added), f"the upload said {added!r}")
    for button in page.all(".toast:not(.error) button"):
        button.click()  # so that none covers the chat's Send button
    collection = server.get("/api/rag/collections")["collections"][0]
    check(collection["name"] == "geology" and collection["documentCount"] == 2, f"the upload made {collection}")
    check("2 documents" in page.text("li.collection[aria-current=true]"), "the collection's counts are not shown")
    page.shot("documents")

    page.driver.get(server.url + "/#/chat/new")
    Select(page.find("select[aria-label=Model]")).select_by_value(model)
    page.find("select[aria-label='Answer from documents'] option[value=geology]")
    Select(page.find("select[aria-label='Answer from documents']")).select_by_value("geology")
    page.settings(max_tokens=16, temperature=0)
    page.send("Which volcano is the most active in Europe?")
    sources = page.wait(lambda d: page.all("article.message.assistant ol.sources button.source"))
    check(sources[0].text == "[1] volcanoes.md", f"the first source reads {sources[0].text!r}")
    check(page.text("article.message.assistant .content").strip(), "the answer from the documents is empty")
    page.shot("chat-sources")
    sources[0].click()
    passage = page.find("dialog.passage[open] .passage-text").text
    check("Etna" in passage and "volcanoes.md" in page.text("dialog.passage h2"), f"source 1 opened {passage!r}")
    page.shot("chat-source-passage")
    page.find("dialog.passage button.primary").click()
    # The answer is saved in the conversation with its sources, and shown with them again.
    conversation_id = page.wait(lambda d: "#/chat/" in d.current_url and d.current_url.rsplit("/", 1)[1] != "new" and d.current_url.rsplit("/", 1)[1])
    saved = server.get(f"/api/conversations/{conversation_id}")["messages"]
    check([m["role"] for m in saved] == ["user", "assistant"] and saved[0]["content"] == "Which volcano is the most active in Europe?",
          f"the question was not saved as asked: {[(m['role'], m['content'][:60]) for m in saved]}")
    grounding = saved[-1].get("grounding") or {}
    check(grounding.get("collection") == "geology" and grounding.get("sources", [{}])[0].get("documentPath", "").endswith("volcanoes.md"),
          f"the saved answer has no sources: {grounding}")
    page.driver.refresh()
    shown = page.wait(lambda d: page.all("article.message.assistant ol.sources button.source"))
    check(shown[0].text == "[1] volcanoes.md", f"the reloaded answer's first source reads {shown[0].text!r}")

    page.driver.get(server.url + "/#/documents")
    page.click("li.collection button.danger")
    page.wait(EC.alert_is_present(), 10).accept()
    page.wait(lambda d: "No collections yet" in page.text(".collections"))
    check(server.get("/api/rag/collections")["collections"] == [], "the collection was not deleted")


def tools_checks(page, server, model):
    """An answer made with an MCP server's tool (the server's --tool-choice names it): each call
    shown collapsed, opening to its arguments and output, as the server saved them; the tools
    picker shows the server's choice, and "No tools" answers without any."""
    page.open(server.url + "/#/chat/new")
    Select(page.find("select[aria-label=Model]")).select_by_value(model)
    page.settings(max_tokens=40, temperature=0)
    page.send("What is the capital of France?")
    page.footer(1)
    saved = server.get(f"/api/conversations/{page.conversation_id()}")["messages"][-1]
    steps = saved.get("toolSteps") or []
    check(len(steps) == 1 and steps[0]["call"]["name"] == "capital", f"the answer's calls were not saved: {saved}")
    step = page.find("article.message.assistant details.tool-step")
    check(step.find_element(By.TAG_NAME, "summary").text == "Used capital", f"the call is shown as {step.text!r}")
    step.find_element(By.TAG_NAME, "summary").click()
    output = page.wait(lambda d: step.find_element(By.CSS_SELECTOR, ".tool-output").text)
    check(output.strip() == steps[0]["output"].strip(), f"the page shows the output {output!r}, the server saved {steps[0]['output']!r}")
    arguments = json.loads(step.find_element(By.CSS_SELECTOR, ".tool-arguments").text)
    check(arguments == steps[0]["call"]["arguments"], f"the page shows the arguments {arguments}")
    page.shot("chat-tools")
    # The tools picker: the server's choice first, then "No tools" answers without calling one.
    picker = Select(page.find("select[aria-label=Tools]"))
    names = [option.get_attribute("value") for option in picker.options]
    check(names[:3] == ["auto", "required", "capital"] and names[-1] == "none", f"the tools picker offers {names}")
    check(picker.first_selected_option.get_attribute("value") == "capital", "the picker does not show the server's choice")
    picker.select_by_value("none")
    page.send("And of Italy?")
    page.footer(2)
    saved = server.get(f"/api/conversations/{page.conversation_id()}")["messages"][-1]
    check(not saved.get("toolSteps"), f"an answer with no tools called one: {saved}")


def checks(page, options, folders):
    server = Server(options.binary, folders["data"])
    try:
        conversation_id = chat_checks(page, server, options.model)
        check(server.stop() == 0, "the server did not stop cleanly")
        server = Server(options.binary, folders["data"])
        conversation_checks(page, server, conversation_id, folders["downloads"])
        documents_checks(page, server, options.model, options.pdf)
        check(server.stop() == 0, "the server did not stop cleanly")
        tools = shlex.join([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcp_tool_server.py")])
        server = Server(options.binary, folders["data"], arguments=["--mcp", tools, "--tool-choice", "capital", "--max-tool-rounds", "1"])
        tools_checks(page, server, options.model)
    finally:
        server.stop()


if __name__ == "__main__":
    run(checks, "--model", "--pdf", page_class=ChatPage)
