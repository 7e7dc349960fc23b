// The Settings screen: generation defaults (the same file as `runanywhere settings`), the
// scales of the server's LoRA adapters (`serve --lora`), the environment switcher (API keys typed in a password field and only ever shown masked),
// the ways to the Benchmarks dashboard and the API keys, each framework's availability with its reason, and the device.
import { api } from "../../lib/api.js";
import { bytes, fill, h, notice, toast } from "../../lib/dom.js";
import { system, unavailableReason } from "../../lib/system.js";

/** Shows the Settings screen; returns nothing to unmount. */
export function mount(root) {
  const defaults = h("section", { "aria-labelledby": "defaults-title" });
  const adapters = h("section", { "aria-labelledby": "adapters-title" });
  const environment = h("section", { "aria-labelledby": "environment-title" });
  const frameworks = h("section", { "aria-labelledby": "frameworks-title" });
  const device = h("section", { "aria-labelledby": "device-title" });
  const benchmarks = h("section", { "aria-labelledby": "benchmarks-title" }, h("h2", { id: "benchmarks-title" }, "Benchmarks"),
    h("a", { class: "card nav-card", href: "#/benchmarks" }, h("strong", {}, "Benchmarks ›"),
      h("span", { class: "muted" }, "Measure load time, first token, tokens per second and latency of every downloaded model; keep, compare and export the runs.")));
  const keys = h("section", { "aria-labelledby": "keys-nav-title" }, h("h2", { id: "keys-nav-title" }, "API keys"),
    h("a", { class: "card nav-card", href: "#/keys" }, h("strong", {}, "API keys ›"),
      h("span", { class: "muted" }, "Make keys with scopes and rate limits for people and apps, see what each used, revoke them.")));
  fill(root, h("div", { class: "page settings" }, h("h1", {}, "Settings"), defaults, adapters, environment, benchmarks, keys, frameworks, device));
  showDefaults(defaults);
  showAdapters(adapters);
  showEnvironments(environment);
  system().then((info) => {
    showFrameworks(frameworks, info);
    showDevice(device, info);
  }).catch((error) => fill(frameworks, notice("Cannot read what this server runs", error.message, { error: true })));
}

/** A labelled control with a place for its error, named as the settings API names it. */
function field(label, control) {
  const error = h("small", { class: "field-error", id: `${control.name}-error`, role: "alert" });
  control.id = `setting-${control.name}`;
  control.setAttribute("aria-describedby", error.id);
  return { control, error, element: h("label", { for: control.id }, label, control, error) };
}

async function showDefaults(section) {
  let settings;
  try {
    settings = await api("/api/settings");
  } catch (error) {
    fill(section, h("h2", { id: "defaults-title" }, "Generation defaults"), notice("Cannot read the settings", error.message, { error: true }));
    return;
  }
  const number = (name, attributes) => h("input", { type: "number", name, value: settings[name] === undefined || settings[name] === null ? "" : String(settings[name]), ...attributes });
  const fields = {
    temperature: field("Temperature", number("temperature", { min: "0", max: "2", step: "0.05" })),
    maxTokens: field("Max tokens", number("maxTokens", { min: "1", step: "1" })),
    topP: field("Top P", number("topP", { min: "0", max: "1", step: "0.05" })),
    topK: field("Top K", number("topK", { min: "0", step: "1" })),
    threads: field("Threads", number("threads", { min: "1", step: "1", placeholder: "auto" })),
    speculate: field("Speculative tokens", number("speculate", { min: "0", max: "32", step: "1", placeholder: "server default",
      title: "Speculative decoding: the most tokens guessed a step, by the draft model or else from the text so far (0: off). The answers are the same; text that repeats its input comes faster." })),
    draftModel: field("Draft model", h("input", { type: "text", name: "draftModel", value: settings.draftModel ?? "", placeholder: "none: prompt lookup",
      title: "A smaller model with the same vocabulary (an id or a GGUF path) that guesses the tokens speculative decoding checks." })),
    systemPrompt: field("System prompt", h("textarea", { name: "systemPrompt", rows: 3, placeholder: "None" })),
  };
  fields.systemPrompt.control.value = settings.systemPrompt ?? "";
  const streaming = h("input", { type: "checkbox", name: "streaming", checked: settings.streaming });
  const save = async (event) => {
    event.preventDefault();
    const changes = { streaming: streaming.checked, systemPrompt: fields.systemPrompt.control.value || null,
      draftModel: fields.draftModel.control.value.trim() || null };
    for (const name of ["temperature", "maxTokens", "topP", "topK", "threads", "speculate"]) {
      const value = fields[name].control.value;
      if (value !== "") changes[name] = Number(value);
      else if (name === "threads" || name === "speculate") changes[name] = null;
    }
    for (const { control, error } of Object.values(fields)) {
      error.textContent = "";
      control.removeAttribute("aria-invalid");
    }
    try {
      await api("/api/settings", { method: "PATCH", body: changes });
      toast("Settings saved");
    } catch (error) {
      const blamed = fields[error.param];
      if (!blamed) return toast(error.message, { error: true });
      blamed.error.textContent = error.message;
      blamed.control.setAttribute("aria-invalid", "true");
      blamed.control.focus();
    }
  };
  const reset = async () => {
    if (!confirm("Restore every generation default?")) return;
    try {
      await api("/api/settings", { method: "DELETE" });
      toast("Defaults restored");
      showDefaults(section);
    } catch (error) {
      toast(error.message, { error: true });
    }
  };
  fill(section, h("h2", { id: "defaults-title" }, "Generation defaults"),
    h("form", { class: "card settings-form", novalidate: true, onsubmit: save },
      h("div", { class: "grid" }, ["temperature", "maxTokens", "topP", "topK", "threads", "speculate", "draftModel"].map((name) => fields[name].element)),
      fields.systemPrompt.element,
      h("label", { class: "check" }, streaming, "Stream answers as they are written"),
      h("div", { class: "form-actions" }, h("button", { type: "button", onclick: reset }, "Restore defaults"), h("button", { class: "primary", type: "submit" }, "Save"))));
}

/** The server's LoRA adapters (GET /lora-adapters), each with the scale requests apply it at. */
async function showAdapters(section) {
  const title = h("h2", { id: "adapters-title" }, "LoRA adapters");
  let listed;
  try {
    listed = await api("/lora-adapters");
  } catch (error) {
    fill(section, title, notice("Cannot read the LoRA adapters", error.message, { error: true }));
    return;
  }
  if (!listed.length) {
    fill(section, title, h("p", { class: "muted" }, "None. A server started with serve --lora PATH[:SCALE] lists its adapters here, to scale them."));
    return;
  }
  const rows = listed.map((adapter) => {
    const scale = h("input", { type: "number", name: `lora-${adapter.id}`, id: `lora-${adapter.id}`, min: "-100", max: "100", step: "0.05", value: String(adapter.scale) });
    return { adapter, scale, element: h("label", { for: scale.id, "data-adapter": String(adapter.id) }, h("code", { title: adapter.path }, adapter.path.split("/").pop()), scale) };
  });
  const save = async (event) => {
    event.preventDefault();
    try {
      await api("/lora-adapters", { method: "POST", body: rows.map(({ adapter, scale }) => ({ id: adapter.id, scale: Number(scale.value || 0) })) });
      toast("Adapter scales saved");
    } catch (error) {
      toast(error.message, { error: true });
    }
  };
  fill(section, title,
    h("form", { class: "card lora-form", novalidate: true, onsubmit: save },
      h("p", { class: "muted" }, "Requests that choose no adapters apply these to models of their architecture, at these scales (0 leaves one out)."),
      h("div", { class: "grid" }, rows.map((row) => row.element)),
      h("div", { class: "form-actions" }, h("button", { class: "primary", type: "submit" }, "Save"))));
}

async function showEnvironments(section) {
  let environments;
  try {
    ({ environments } = await api("/api/environment"));
  } catch (error) {
    fill(section, h("h2", { id: "environment-title" }, "Environment"), notice("Cannot read the environments", error.message, { error: true }));
    return;
  }
  const selected = environments.find((e) => e.isSelected) ?? environments[0];
  const choice = h("select", { name: "environment" }, environments.map((e) => h("option", { value: e.environment, selected: e.isSelected }, e.environment)));
  const baseURL = field("Base URL", h("input", { type: "text", inputmode: "url", name: "baseURL", autocomplete: "off", spellcheck: false }));
  const apiKey = field("API key", h("input", { type: "password", name: "apiKey", autocomplete: "new-password", spellcheck: false }));
  const stored = h("p", { class: "muted stored-key" });
  const showChoice = () => {
    const current = environments.find((e) => e.environment === choice.value);
    baseURL.control.value = current.baseURL ?? "";
    apiKey.control.value = "";
    apiKey.control.placeholder = current.maskedAPIKey ? "Leave empty to keep the stored key" : "None stored";
    stored.textContent = current.maskedAPIKey ? `Stored key: ${current.maskedAPIKey}` : "No key stored for this environment.";
  };
  choice.addEventListener("change", showChoice);
  const save = async (event) => {
    event.preventDefault();
    const change = { environment: choice.value };
    if (baseURL.control.value.trim()) change.baseURL = baseURL.control.value.trim();
    if (apiKey.control.value) change.apiKey = apiKey.control.value;
    for (const { control, error } of [baseURL, apiKey]) {
      error.textContent = "";
      control.removeAttribute("aria-invalid");
    }
    try {
      ({ environments } = await api("/api/environment", { method: "PUT", body: change }));
      toast(`Using ${change.environment}`);
      showChoice();
      fill(current, currentText(environments));
    } catch (error) {
      const blamed = { apiKey, baseURL }[error.param];
      if (!blamed) return toast(error.message, { error: true });
      blamed.error.textContent = error.message;
      blamed.control.setAttribute("aria-invalid", "true");
    } finally {
      apiKey.control.value = "";  // the key is never kept in the page
    }
  };
  const current = h("p", { class: "muted", role: "status" }, currentText(environments));
  fill(section, h("h2", { id: "environment-title" }, "Environment"),
    h("form", { class: "card settings-form environment-form", onsubmit: save, autocomplete: "off", novalidate: true },
      current,
      h("div", { class: "grid" }, h("label", { for: "setting-environment" }, "Environment", Object.assign(choice, { id: "setting-environment" })), baseURL.element, apiKey.element),
      stored,
      h("div", { class: "form-actions" }, h("button", { class: "primary", type: "submit" }, "Use this environment"))));
  choice.value = selected.environment;
  showChoice();
}

function currentText(environments) {
  const selected = environments.find((e) => e.isSelected);
  return selected ? `Selected: ${selected.environment}${selected.baseURL ? ` (${selected.baseURL})` : ""}` : "No environment selected.";
}

function showFrameworks(section, info) {
  fill(section, h("h2", { id: "frameworks-title" }, "Frameworks"),
    h("table", { class: "frameworks" },
      h("thead", {}, h("tr", {}, h("th", {}, "Framework"), h("th", {}, "Does"), h("th", {}, "Here"))),
      h("tbody", {}, info.frameworks.map((f) => {
        const reason = unavailableReason(f);
        return h("tr", { "data-framework": f.framework },
          h("td", {}, f.displayName), h("td", { class: "muted" }, f.modalities.join(", ")),
          h("td", {}, reason ? h("span", { class: "badge" }, "unavailable") : h("span", { class: "badge ok" }, "available"),
            h("small", { class: "muted reason" }, " ", reason ?? f.availability.available?.detail ?? "")));
      }))));
}

function showDevice(section, info) {
  const hw = info.hardware;
  const rows = [
    ["Host", info.hostname], ["System", hw.operatingSystem], ["CPU", `${hw.cpuModel} (${hw.architecture}, ${hw.cores} cores)`],
    ["SIMD", hw.simdFeatures.length ? hw.simdFeatures.join(", ") : "none detected"],
    ["Memory", `${bytes(hw.totalMemoryBytes)} total, ${bytes(hw.availableMemoryBytes)} available`],
    ["GPU", hw.hasGPU ? "yes" : "none used (CPU inference)"],
    ...(info.accelerators ?? []).map((a) => [`${a.backend} ${a.name}`, a.available
      ? h("span", { "data-accelerator": a.backend }, h("span", { class: "badge ok" }, "available"), " ",
        [a.description, a.memoryBytes ? `${bytes(a.memoryBytes)}` : "", a.emulated ? "runs on the CPU, not counted as a GPU" : ""]
          .filter(Boolean).join(" · "))
      : h("span", { "data-accelerator": a.backend }, h("span", { class: "badge" }, "unavailable"), h("small", { class: "muted reason" }, " ", a.reason ?? ""))]),
    ["SDK", info.sdkVersion],
    ["Models folder", h("code", {}, info.modelsDirectory)], ["Data folder", h("code", {}, info.dataDirectory)],
  ];
  fill(section, h("h2", { id: "device-title" }, "Device"),
    h("table", { class: "fields" }, h("tbody", {}, rows.map(([name, value]) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, value))))));
}
