// The web app's shell: the screens by URL hash (#/chat/<id>, #/chat/<id>/details, #/voice,
// #/vision, #/documents[/<collection>], #/models, #/models/add, #/models/info/<id>, #/settings,
// #/benchmarks[/<id>], #/keys, #/telemetry), the server's state, and the API key prompt when the server
// asks for one.
import { api, setAPIKey } from "./lib/api.js";
import { fill, h, notice } from "./lib/dom.js";
import * as chat from "./features/chat/chat.js";
import * as benchmarkRun from "./features/benchmarks/benchmark-run.js";
import * as benchmarks from "./features/benchmarks/benchmarks.js";
import * as chatDetails from "./features/chat/chat-details.js";
import * as documents from "./features/documents/documents.js";
import * as keys from "./features/keys/keys.js";
import * as addModel from "./features/models/add-model.js";
import * as modelDetails from "./features/models/model-details.js";
import * as models from "./features/models/models.js";
import * as settings from "./features/settings/settings.js";
import * as telemetry from "./features/telemetry/telemetry.js";
import * as vision from "./features/vision/vision.js";
import * as voice from "./features/voice/voice.js";

const screens = {
  chat: (root, [id, view]) => (view === "details" ? chatDetails.mount(root, id) : chat.mount(root, id)),
  voice: (root) => voice.mount(root),
  vision: (root) => vision.mount(root),
  documents: (root, [name]) => documents.mount(root, name),
  models: (root, [view, id]) => (view === "add" ? addModel.mount(root) : view === "info" && id ? modelDetails.mount(root, id) : models.mount(root)),
  settings: (root) => settings.mount(root),
  telemetry: (root) => telemetry.mount(root),
  benchmarks: (root, [id]) => (id ? benchmarkRun.mount(root, id) : benchmarks.mount(root)),
  keys: (root) => keys.mount(root),
};

const root = document.getElementById("screen");
let unmount = null;

function route() {
  const [name = "chat", ...rest] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const screen = screens[name];
  if (!screen) {
    location.replace("#/chat");
    return;
  }
  const tab = name === "benchmarks" || name === "keys" ? "settings" : name;  // both open from Settings
  for (const link of document.querySelectorAll(".tabs a")) {
    if (link.dataset.tab === tab) link.setAttribute("aria-current", "page"); else link.removeAttribute("aria-current");
  }
  unmount?.();
  fill(root);
  unmount = screen(root, rest) ?? null;
}

const state = document.getElementById("server-state");
window.addEventListener("server-gone", () => {
  state.textContent = "Server not answering";
  state.classList.add("gone");
});
window.addEventListener("server-back", () => {
  if (!state.classList.contains("gone")) return;
  state.classList.remove("gone");
  showVersion();
});

let askingForKey = false;
window.addEventListener("api-key-needed", () => {
  if (askingForKey) return;
  askingForKey = true;
  const input = h("input", { type: "password", autocomplete: "off", "aria-label": "API key", required: true });
  const dialog = h("dialog", { class: "card", "aria-labelledby": "key-title" },
    h("form", { method: "dialog", onsubmit: () => { setAPIKey(input.value); location.reload(); } },
      h("h2", { id: "key-title" }, "This server needs an API key"),
      h("p", { class: "muted" }, "Its key comes from whoever runs it (--api-key-stdin, or a key made on its API keys page or with runanywhere keys). The key stays in this tab only."),
      input, " ", h("button", { class: "primary" }, "Use key")));
  document.body.append(dialog);
  dialog.showModal();
});

async function showVersion() {
  try {
    const health = await api("/health");
    state.textContent = health.status === "ok" ? "Connected" : health.status;
  } catch (error) {
    state.textContent = error.message;
  }
}

window.addEventListener("hashchange", route);
window.addEventListener("unhandledrejection", (event) => {
  fill(root, h("div", { class: "page" }, notice("Something went wrong", event.reason?.message ?? String(event.reason), { error: true })));
});
showVersion();
route();
