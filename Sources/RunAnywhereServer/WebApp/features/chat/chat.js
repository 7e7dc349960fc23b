// The Chat screen: conversations (newest first, searchable), a model picker with the model's
// state, the answer streamed as it is written, Stop and Retry, per-conversation generation
// settings, rename, delete and export. Everything is read from and saved by the server. With a
// document collection picked, questions are answered from it, and the saved answers keep their
// numbered sources (sources.js). Where the server runs tools (`serve --mcp`), a picker says which
// the answer may call: the server's choice, any, one that must be called, one by name, or none.
import { api, attachment, events } from "../../lib/api.js";
import { download, fill, h, notice, toast, when } from "../../lib/dom.js";
import { messageView, StreamingAnswer } from "./messages.js";

const modelKey = "runanywhere.chat.model";
const collectionKey = "runanywhere.chat.collection";
const toolsKey = "runanywhere.chat.tools";
const settingsKey = (id) => `runanywhere.chat.settings.${id}`;

/** Shows the Chat screen for conversation `id` (or a new one); returns what unmounts it. */
export function mount(root, id) {
  const screen = new ChatScreen(root, id);
  screen.start();
  return () => screen.close();
}

class ChatScreen {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.conversation = null;
    this.controller = null;
    this.closed = false;
    this.defaults = {};
  }

  async start() {
    this.build();
    await Promise.all([this.loadModels(), this.loadList(), this.loadDefaults(), this.loadCollections(), this.loadTools()]);
    await this.loadConversation();
    if (!this.closed) this.stateTimer = setInterval(() => this.showModelState(), 3000);
  }

  close() {
    this.closed = true;
    clearInterval(this.stateTimer);
  }

  build() {
    this.search = h("input", { type: "search", placeholder: "Search conversations", "aria-label": "Search conversations",
      oninput: () => { clearTimeout(this.searchTimer); this.searchTimer = setTimeout(() => this.loadList(), 250); } });
    this.list = h("ul", { class: "conversation-list", "aria-label": "Conversations" });
    this.title = h("h1", {}, "New conversation");
    this.modelSelect = h("select", { "aria-label": "Model", onchange: () => { localStorage.setItem(modelKey, this.modelSelect.value); this.showModelState(); } });
    this.modelState = h("span", { class: "badge model-state", role: "status" });
    this.collectionSelect = h("select", { "aria-label": "Answer from documents", title: "Answer from a document collection, with numbered sources",
      onchange: () => localStorage.setItem(collectionKey, this.collectionSelect.value) });
    this.toolSelect = h("select", { "aria-label": "Tools", hidden: true, onchange: () => localStorage.setItem(toolsKey, this.toolSelect.value) });
    this.actions = h("div", { class: "conversation-actions" });
    this.settingsPanel = h("form", { class: "chat-settings", hidden: true, "aria-label": "Generation settings", onsubmit: (e) => e.preventDefault() });
    this.settingsButton = h("button", { "aria-expanded": "false", "aria-controls": "chat-settings", onclick: () => this.toggleSettings() }, "Settings");
    this.settingsPanel.id = "chat-settings";
    this.messages = h("section", { class: "messages", "aria-label": "Messages", tabindex: "0" });
    this.input = h("textarea", { rows: 1, placeholder: "Message", "aria-label": "Message", onkeydown: (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); this.submit(); }
    } });
    this.sendButton = h("button", { class: "primary send", onclick: () => this.submit() }, "Send");
    this.stopButton = h("button", { class: "danger stop", hidden: true, onclick: () => this.stop() }, "Stop");
    fill(this.root, h("div", { class: "chat" },
      h("aside", { class: "sidebar", "aria-label": "Conversation list" },
        h("button", { class: "primary new-chat", onclick: () => { location.hash = "#/chat/new"; } }, "New chat"),
        this.search, this.list),
      h("div", { class: "chat-main" },
        h("div", { class: "chat-header" }, this.title, this.modelSelect, this.modelState, this.collectionSelect, this.toolSelect, this.settingsButton, this.actions),
        this.settingsPanel, this.messages,
        h("div", { class: "composer" }, this.input, this.sendButton, this.stopButton))));
  }

  async loadModels() {
    try {
      const { models } = await api("/api/models?category=language");
      const installed = models.filter((m) => m.installed);
      this.models = installed;
      fill(this.modelSelect, installed.map((m) => h("option", { value: m.model.id }, m.model.name)));
      if (installed.length === 0) {
        this.sendButton.disabled = true;
        return;
      }
      const saved = localStorage.getItem(modelKey);
      if (installed.some((m) => m.model.id === saved)) this.modelSelect.value = saved;
      this.showModelState();
    } catch (error) {
      toast(`Cannot list the models: ${error.message}`, { error: true });
    }
  }

  /** The document collections to answer from; "No documents" is the plain chat. */
  async loadCollections() {
    let collections = [];
    try {
      ({ collections } = await api("/api/rag/collections"));
    } catch {
      // Chat works without them.
    }
    fill(this.collectionSelect, h("option", { value: "" }, "No documents"),
      collections.map((c) => h("option", { value: c.name }, `Documents: ${c.name}`)));
    const saved = localStorage.getItem(collectionKey);
    if (collections.some((c) => c.name === saved)) this.collectionSelect.value = saved;
  }

  /**
   * The tools the server runs for answers, with the server's default choice picked (or this
   * browser's last); none, or a key without the `tools` scope: no picker.
   */
  async loadTools() {
    let tools = [];
    let toolChoice = "none";
    try {
      ({ tools, toolChoice } = await api("/api/tools"));
    } catch {
      // Chat works without them.
    }
    this.toolSelect.hidden = tools.length === 0;
    if (tools.length === 0) return;
    const names = tools.map((tool) => tool.name);
    fill(this.toolSelect,
      h("option", { value: "auto" }, "Tools: the model decides"),
      h("option", { value: "required" }, "Tools: call one"),
      names.map((name) => h("option", { value: name }, `Tool: ${name}`)),
      h("option", { value: "none" }, "No tools"));
    this.toolSelect.title = tools.map((tool) => `${tool.name}: ${tool.description}`).join("\n");
    const saved = localStorage.getItem(toolsKey);
    const choices = ["auto", "required", "none", ...names];
    this.toolSelect.value = choices.includes(saved) ? saved : toolChoice;
  }

  async showModelState() {
    const id = this.modelSelect.value;
    if (!id || this.closed) return;
    try {
      const { models } = await api("/api/models/loaded");
      const status = models.find((m) => m.modelId === id);
      const state = status?.state ?? "notLoaded";
      const label = { notLoaded: "not loaded", loading: "loading…", loaded: "loaded", unloading: "unloading", failed: "failed" }[state] ?? state;
      this.modelState.textContent = label;
      this.modelState.className = `badge model-state ${state === "loaded" ? "ok" : state === "failed" ? "bad" : state === "loading" ? "warn" : ""}`;
      this.modelState.title = status?.error ?? "";
      return state;
    } catch {
      return null;
    }
  }

  async loadList() {
    const query = this.search.value.trim();
    try {
      const { conversations } = await api(`/api/conversations${query ? `?q=${encodeURIComponent(query)}` : ""}`);
      fill(this.list, conversations.length === 0
        ? h("li", { class: "muted" }, query ? "No conversation matches." : "No conversations yet.")
        : conversations.map((c) => h("li", { "aria-current": c.id === this.conversation?.id ? "true" : null },
          h("a", { href: `#/chat/${c.id}` }, h("span", { class: "conversation-title" }, c.title),
            h("small", {}, `${when(c.updatedAt)} · ${c.messageCount} message${c.messageCount === 1 ? "" : "s"}`)))));
    } catch (error) {
      fill(this.list, h("li", { class: "muted" }, error.message));
    }
  }

  /** The server's saved generation settings, shown where a conversation sets none of its own. */
  async loadDefaults() {
    try {
      this.defaults = await api("/api/settings");
    } catch {
      // The fields stay empty; the server applies its settings anyway.
    }
  }

  async loadConversation() {
    if (!this.id || this.id === "new") {
      this.conversation = null;
      this.showConversation();
      if (!this.id) {
        // The newest conversation, if there is one.
        const first = this.list.querySelector("a");
        if (first) location.replace(first.getAttribute("href"));
      }
      return;
    }
    try {
      this.conversation = await api(`/api/conversations/${encodeURIComponent(this.id)}`);
      this.showConversation();
    } catch (error) {
      fill(this.messages, notice("Cannot open this conversation", error.message, { error: true }));
    }
  }

  showConversation() {
    const conversation = this.conversation;
    this.title.textContent = conversation?.title ?? "New conversation";
    document.title = `${conversation?.title ?? "Chat"} · RunAnywhere`;
    const last = conversation?.messages.findLast((m) => m.role === "assistant");
    if (last?.modelInfo && this.models?.some((m) => m.model.id === last.modelInfo.modelId) && this.modelSelect.value !== last.modelInfo.modelId) {
      this.modelSelect.value = last.modelInfo.modelId;
      this.showModelState();
    }
    fill(this.actions, conversation ? [
      h("a", { class: "details-link", href: `#/chat/${conversation.id}/details` }, "Details"),
      h("button", { onclick: () => this.rename() }, "Rename"),
      h("button", { onclick: () => this.export("md") }, "Export Markdown"),
      h("button", { onclick: () => this.export("json") }, "Export JSON"),
      h("button", { class: "danger", onclick: () => this.remove() }, "Delete"),
    ] : []);
    this.buildSettings();
    this.renderMessages();
    for (const item of this.list.querySelectorAll("li")) {
      item.setAttribute("aria-current", String(item.querySelector("a")?.getAttribute("href") === `#/chat/${conversation?.id}`));
    }
  }

  renderMessages() {
    const messages = this.conversation?.messages ?? [];
    const lastAnswer = messages.findLastIndex((m) => m.role === "assistant");
    const empty = this.models?.length === 0
      ? notice("No language model is installed", "Install one with `runanywhere download`, then reload this page.", { error: true })
      : notice("Start a conversation", "Pick a model, type a message and press Enter.");
    fill(this.messages, messages.length === 0
      ? empty
      : messages.map((m, index) => messageView(m, { onRetry: index === lastAnswer && !this.controller ? () => this.retry() : null })));
    this.messages.scrollTop = this.messages.scrollHeight;
  }

  /** The generation settings this conversation set (kept in this browser); the server's own apply to the rest. */
  settings() {
    return this.conversation ? JSON.parse(localStorage.getItem(settingsKey(this.conversation.id)) ?? "{}") : this.pendingSettings ?? {};
  }

  buildSettings() {
    const current = this.settings();
    const field = (name, attributes) => h("input", { type: "number", name, value: current[name] === undefined ? "" : String(current[name]),
      placeholder: this.defaults[name] === undefined ? "" : String(this.defaults[name]), ...attributes });
    const temperature = field("temperature", { min: "0", max: "2", step: "0.1" });
    const maxTokens = field("maxTokens", { min: "1", max: "32768", step: "1" });
    const systemPrompt = h("textarea", { rows: 2, name: "systemPrompt", placeholder: this.defaults.systemPrompt || "None" });
    systemPrompt.value = current.systemPrompt ?? "";
    // An empty field leaves the server's setting; one out of range is marked and not saved.
    const save = () => {
      if (![temperature, maxTokens].every((input) => input.reportValidity())) return;
      const values = {};
      if (systemPrompt.value !== "") values.systemPrompt = systemPrompt.value;
      if (temperature.value !== "") values.temperature = Number(temperature.value);
      if (maxTokens.value !== "") values.maxTokens = Math.round(Number(maxTokens.value));
      if (this.conversation) localStorage.setItem(settingsKey(this.conversation.id), JSON.stringify(values));
      else this.pendingSettings = values;
    };
    for (const field of [temperature, maxTokens, systemPrompt]) field.addEventListener("change", save);
    fill(this.settingsPanel, h("label", {}, "Temperature", temperature), h("label", {}, "Max tokens", maxTokens),
      h("label", { class: "wide" }, "System prompt", systemPrompt));
  }

  toggleSettings() {
    this.settingsPanel.hidden = !this.settingsPanel.hidden;
    this.settingsButton.setAttribute("aria-expanded", String(!this.settingsPanel.hidden));
  }

  request(extra) {
    const tools = this.toolSelect.hidden ? {} : { toolChoice: this.toolSelect.value };
    return { model: this.modelSelect.value, ...this.settings(), ...tools, ...extra };
  }

  async submit() {
    const text = this.input.value.trim();
    if (!text || this.controller) return;
    if (!this.modelSelect.value) return toast("Pick a model first", { error: true });
    this.input.value = "";
    this.begin();
    try {
      if (!this.conversation) {
        this.conversation = await api("/api/conversations", { method: "POST", body: {} });
        if (this.pendingSettings) localStorage.setItem(settingsKey(this.conversation.id), JSON.stringify(this.pendingSettings));
        history.replaceState(null, "", `#/chat/${this.conversation.id}`);
        this.id = this.conversation.id;
        this.showConversation();
      }
      this.conversation.messages.push({ role: "user", content: text, timestamp: new Date().toISOString() });
      this.renderMessages();
    } catch (error) {
      this.end();
      this.input.value = text;
      return toast(error.message, { error: true });
    }
    // With a collection picked, the answer comes from its passages, which the saved answer keeps.
    const collection = this.collectionSelect.value ? { collection: this.collectionSelect.value } : {};
    const answered = await this.answer(`/api/conversations/${this.conversation.id}/messages`, this.request({ content: text, ...collection }));
    if (!answered && !this.input.value) this.input.value = text;  // refused before any answer: keep what was typed
  }

  async retry() {
    if (this.controller) return;
    this.begin();
    const messages = this.conversation.messages;
    messages.splice(messages.findLastIndex((m) => m.role === "assistant"), 1);
    this.renderMessages();
    await this.answer(`/api/conversations/${this.conversation.id}/retry`, this.request({}));
  }

  /** Marks an answer under way: Stop instead of Send, no Retry, no second request. */
  begin() {
    this.controller = new AbortController();
    this.sendButton.hidden = true;
    this.stopButton.hidden = false;
    this.stopButton.focus();
  }

  end() {
    this.controller = null;
    this.sendButton.hidden = false;
    this.stopButton.hidden = true;
    this.input.focus();
  }

  /**
   * Streams an answer into a new bubble (after ``begin()``), then shows the conversation as the
   * server saved it. Returns whether the server started answering.
   */
  async answer(path, body) {
    const bubble = new StreamingAnswer();
    this.messages.append(bubble.element);
    this.messages.scrollTop = this.messages.scrollHeight;
    const loading = setTimeout(async () => {
      const state = await this.showModelState();
      if (!bubble.content && !bubble.thinking && state === "loading") bubble.say(`Loading ${this.modelSelect.selectedOptions[0]?.textContent ?? "the model"}…`);
    }, 400);
    let failure = null;
    let started = false;
    try {
      for await (const { event, data } of events(path, { method: "POST", body, signal: this.controller.signal })) {
        started = true;
        if (event === "delta") bubble.add(data);
        else if (event === "tool_call") bubble.call(data);
        else if (event === "error") failure = data.error?.message ?? "The answer failed";
        if (bubble.content) this.messages.scrollTop = this.messages.scrollHeight;
      }
    } catch (error) {
      if (error.name !== "AbortError") failure = error.message;
    } finally {
      clearTimeout(loading);
      this.end();
    }
    if (failure) toast(failure, { error: true });
    if (this.closed) return started;
    await this.loadConversation();
    this.loadList();
    this.showModelState();
    return started;
  }

  async stop() {
    if (!this.controller) return;
    try {
      await api(`/api/conversations/${this.conversation.id}/answer`, { method: "DELETE" });
    } catch {
      this.controller?.abort();  // the server has no answer to stop: just stop reading
    }
  }

  rename() {
    const input = h("input", { value: this.conversation.title, "aria-label": "Conversation title", class: "rename" });
    let done = false;
    const finish = async (save) => {
      if (done) return;
      done = true;
      const title = input.value.trim();
      if (save && title && title !== this.conversation.title) {
        try {
          this.conversation = await api(`/api/conversations/${this.conversation.id}`, { method: "PATCH", body: { title } });
          this.loadList();
        } catch (error) {
          toast(error.message, { error: true });
        }
      }
      this.showConversation();
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") finish(true);
      if (e.key === "Escape") finish(false);
    });
    input.addEventListener("blur", () => finish(true), { once: true });
    fill(this.title, input);
    input.focus();
    input.select();
  }

  async export(format) {
    try {
      const { name, blob } = await attachment(`/api/conversations/${this.conversation.id}/export?format=${format}`, `conversation.${format}`);
      download(name, blob);
    } catch (error) {
      toast(error.message, { error: true });
    }
  }

  async remove() {
    if (!confirm(`Delete "${this.conversation.title}"? This cannot be undone.`)) return;
    try {
      await api(`/api/conversations/${this.conversation.id}`, { method: "DELETE" });
      localStorage.removeItem(settingsKey(this.conversation.id));
      toast("Conversation deleted");
      location.hash = "#/chat/new";
    } catch (error) {
      toast(error.message, { error: true });
    }
  }
}
