// The API keys screen, opened from Settings, for an admin key (or anyone on loopback while the
// server has none): every key with its scopes, rate limit and usage (since the server started;
// with the replicas' database, over every replica), making a key (shown once, to copy) and revoking one. The first key turns keys on for every
// request: made here as an admin key, this tab then uses it.
import { api, apiKey, setAPIKey } from "../../lib/api.js";
import { fill, h, notice, toast, when } from "../../lib/dom.js";

const scopes = [
  ["inference", "Inference", "Run models and read what the server has"],
  ["models:manage", "Manage models", "Add, download, delete, load and unload models"],
  ["admin", "Admin", "Everything, keys and the server's settings included"],
];

/** Shows the API keys screen. */
export function mount(root) {
  new KeysScreen(root).start();
}

class KeysScreen {
  constructor(root) {
    this.root = root;
  }

  start() {
    this.list = h("section", { "aria-labelledby": "keys-title" });
    this.name = h("input", { type: "text", name: "name", id: "key-name", required: true, autocomplete: "off", spellcheck: false });
    this.account = h("input", { type: "text", name: "account", id: "key-account", autocomplete: "off", spellcheck: false, placeholder: "the key's name" });
    this.limit = h("input", { type: "number", name: "requestsPerMinute", id: "key-limit", min: "1", step: "1", placeholder: "no limit" });
    this.scopeBoxes = scopes.map(([value, label, title]) =>
      h("label", { class: "scope", title }, h("input", { type: "checkbox", name: "scopes", value, checked: value === "inference" }), " ", label));
    this.errors = Object.fromEntries(["name", "scopes", "requestsPerMinute"].map((name) =>
      [name, h("small", { class: "field-error", id: `key-${name}-error`, role: "alert" })]));
    this.created = h("div", { class: "created-key", role: "status" });
    fill(this.root, h("div", { class: "page keys" },
      h("div", { class: "page-header" }, h("h1", {}, "API keys"), h("a", { href: "#/settings" }, "‹ Settings")),
      h("form", { class: "card key-form", "aria-label": "Make a key", onsubmit: (e) => { e.preventDefault(); this.create(); } },
        h("h2", {}, "Make a key"),
        h("label", { for: "key-name" }, "Name", this.name, this.errors.name),
        h("label", { for: "key-account" }, "Account (keys of one account share conversations, responses and documents)", this.account),
        h("fieldset", {}, h("legend", {}, "Scopes"), ...this.scopeBoxes, this.errors.scopes),
        h("label", { for: "key-limit" }, "Requests a minute", this.limit, this.errors.requestsPerMinute),
        h("div", { class: "row" }, h("button", { class: "primary" }, "Make key"))),
      this.created, this.list));
    this.load();
  }

  async load() {
    try {
      const [{ keys }, usage] = await Promise.all([api("/api/keys"), api("/api/keys/usage")]);
      this.first = !keys.some((k) => !k.revokedAt);
      if (this.first) for (const box of this.scopeBoxes) box.firstChild.checked = box.firstChild.value === "admin";
      fill(this.list, h("h2", { id: "keys-title" }, "Keys"), keys.length === 0
        ? notice("No keys yet", "Every request is served without one. The first key turns keys on for every request but /health and /ready; make it an admin key.")
        : h("div", { class: "table-scroll" }, h("table", {},
          h("thead", {}, h("tr", {}, ["Name", "Account", "Scopes", "Limit", "Made", "Requests", "Tokens", ""].map((t) => h("th", {}, t)))),
          h("tbody", {}, keys.map((k) => this.row(k, usage.keys[k.name]))))));
    } catch (error) {
      fill(this.list, h("h2", { id: "keys-title" }, "Keys"), notice("Cannot list the keys", error.message, { error: true }));
    }
  }

  row(key, used) {
    const revoked = Boolean(key.revokedAt);
    return h("tr", { "data-key": key.name, class: revoked ? "revoked" : null },
      h("td", {}, key.name), h("td", {}, key.account), h("td", { class: "key-scopes" }, key.scopes.join(" ")),
      h("td", { class: "number" }, key.requestsPerMinute ? `${key.requestsPerMinute}/min` : "none"),
      h("td", {}, when(key.createdAt)),
      h("td", { class: "number" }, used ? `${used.requests}${used.rateLimited ? ` (${used.rateLimited} limited)` : ""}` : "0"),
      h("td", { class: "number" }, used ? used.promptTokens + used.completionTokens : 0),
      h("td", {}, revoked ? h("span", { class: "muted" }, `Revoked ${when(key.revokedAt)}`)
        : h("button", { class: "danger", "aria-label": `Revoke ${key.name}`, onclick: () => this.revoke(key) }, "Revoke")));
  }

  async create() {
    for (const error of Object.values(this.errors)) error.textContent = "";
    const body = { name: this.name.value.trim(), scopes: this.scopeBoxes.map((b) => b.firstChild).filter((c) => c.checked).map((c) => c.value) };
    if (this.account.value.trim()) body.account = this.account.value.trim();
    if (this.limit.value !== "") body.requestsPerMinute = Number(this.limit.value);
    try {
      const { record, key } = await api("/api/keys", { method: "POST", body });
      const usedHere = this.first && !apiKey() && record.scopes.includes("admin");
      if (usedHere) setAPIKey(key);
      const shown = h("input", { type: "text", readonly: true, value: key, "aria-label": `The key ${record.name}`, class: "secret" });
      fill(this.created, h("div", { class: "card" },
        h("strong", {}, `The key ${record.name}: copy it now, it is not shown again.`), h("div", { class: "row" }, shown,
          h("button", { onclick: () => navigator.clipboard?.writeText(key).then(() => toast("Copied")) }, "Copy")),
        usedHere ? h("p", { class: "muted" }, "Keys are on now: this tab uses this key.") : null));
      this.name.value = "";
      await this.load();
    } catch (error) {
      const blamed = this.errors[error.param];
      if (!blamed) return toast(error.message, { error: true });
      blamed.textContent = error.message;
    }
  }

  async revoke(key) {
    if (!confirm(`Revoke the key ${key.name}? Requests with it are refused from now on.`)) return;
    try {
      await api(`/api/keys/${encodeURIComponent(key.id)}`, { method: "DELETE" });
      toast(`Revoked ${key.name}`);
      await this.load();
    } catch (error) {
      toast(error.message, { error: true });
    }
  }
}
