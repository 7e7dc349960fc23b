// Add a model from a URL (spec issue 70): the kind of model first, then a framework that does
// that kind of work, then the URL with its format detected, checked by the server field by
// field as the user types (POST /api/models/check) and shown inline; once added, the download
// starts at once if asked, and a language model is loaded after it if asked.
import { api, APIError } from "../../lib/api.js";
import { fill, h, notice, toast } from "../../lib/dom.js";
import { system, unavailableReason } from "../../lib/system.js";
import * as downloads from "./downloads.js";

/** Shows the add-from-URL form; returns what unmounts it. */
export function mount(root) {
  const page = h("div", { class: "page add-model" });
  fill(root, page);
  let stop = null;
  system().then((info) => { stop = build(page, info); }).catch((error) => {
    fill(page, notice("Cannot read what this server runs", error.message, { error: true }));
  });
  return () => stop?.();
}

/** Builds the form; returns what stops its pending check. */
function build(page, info) {
  const field = (name, control, hint) => {
    const error = h("small", { class: "field-error", id: `${name}-error`, role: "alert" });
    control.name = name;
    control.id = `add-${name}`;
    control.setAttribute("aria-describedby", `${name}-error`);
    return { control, error, label: h("label", { for: control.id }, hint, control, error) };
  };
  const category = field("category", h("select", {}, info.categories.map((c) => h("option", { value: c.category }, c.displayName))), "What type of model is this?");
  const framework = field("framework", h("select", {}), "Framework");
  const modalityNote = h("p", { class: "muted modality-note", role: "status" });
  const name = field("name", h("input", { type: "text", autocomplete: "off", placeholder: "From the file name" }), "Name");
  const url = field("url", h("input", { type: "url", required: true, autocomplete: "off", placeholder: "https://…/model.Q4_K_M.gguf, or hf.co/OWNER/REPO:Q4_K_M" }), "Download URL or Hugging Face reference");
  const format = h("output", { class: "detected-format", for: "add-url", "aria-live": "polite" }, "–");
  const id = field("id", h("input", { type: "text", autocomplete: "off", spellcheck: false }), "Id (optional)");
  const sha256 = field("sha256", h("input", { type: "text", autocomplete: "off", spellcheck: false, placeholder: "64 hexadecimal digits (optional)" }), "SHA-256");
  const thinking = h("input", { type: "checkbox", name: "supportsThinking" });
  const thinkingLabel = h("label", { class: "check" }, thinking, "It thinks before answering (<think> … </think>)");
  const downloadNow = h("input", { type: "checkbox", name: "downloadNow", checked: true });
  const loadAfter = h("input", { type: "checkbox", name: "loadAfter" });
  const loadLabel = h("label", { class: "check" }, loadAfter, "Load it after the download, ready for the first request");
  downloadNow.addEventListener("change", () => { loadAfter.disabled = !downloadNow.checked; });
  const submit = h("button", { class: "primary", type: "submit" }, "Add model");
  const fields = { category, framework, url, id, sha256 };

  const showFrameworks = () => {
    const chosen = info.categories.find((c) => c.category === category.control.value);
    const modality = info.modalities.find((m) => m.modality === chosen.modality);
    const candidates = info.frameworks.filter((f) => f.modalities.includes(chosen.modality));
    fill(framework.control, h("option", { value: "" }, "Automatic (the first that fits)"),
      candidates.map((f) => h("option", { value: f.framework, disabled: unavailableReason(f) !== null },
        unavailableReason(f) ? `${f.displayName} (unavailable here)` : f.displayName)));
    modalityNote.textContent = modality.reason ?? `${chosen.displayName} models need ${chosen.modality}: ${modality.frameworks.map((f) => info.frameworks.find((s) => s.framework === f)?.displayName ?? f).join(", ")} here.`;
    modalityNote.classList.toggle("error", Boolean(modality.reason));
    thinkingLabel.hidden = !chosen.supportsThinking;
    loadLabel.hidden = chosen.category !== "language";
  };

  const body = () => {
    const request = { url: url.control.value.trim(), category: category.control.value };
    if (framework.control.value) request.framework = framework.control.value;
    if (id.control.value.trim()) request.id = id.control.value.trim();
    if (name.control.value.trim()) request.name = name.control.value.trim();
    if (sha256.control.value.trim()) request.sha256 = sha256.control.value.trim();
    if (!thinkingLabel.hidden && thinking.checked) request.supportsThinking = true;
    return request;
  };

  const showProblems = (problems) => {
    for (const [key, { control, error }] of Object.entries(fields)) {
      const problem = problems.find((p) => p.field === key);
      error.textContent = problem?.message ?? "";
      if (problem) control.setAttribute("aria-invalid", "true"); else control.removeAttribute("aria-invalid");
    }
  };

  let checking = 0;
  const check = async () => {
    const request = body();
    if (!request.url) {
      showProblems([]);
      format.textContent = "–";
      return null;
    }
    const ticket = ++checking;
    try {
      const result = await api("/api/models/check", { method: "POST", body: request });
      if (ticket !== checking) return null;
      format.textContent = result.detectedFormat === "unknown" ? "not shown by the URL (the file's header decides after download)" : result.detectedFormat.toUpperCase();
      id.control.placeholder = result.model?.id ?? "From the file name";
      showProblems(result.problems);
      return result;
    } catch (error) {
      if (ticket === checking) showProblems([{ field: error.param ?? "url", message: error.message }]);
      return null;
    }
  };

  const form = h("form", { class: "card add-form", novalidate: true, onsubmit: async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const result = await check();
      if (!result || result.problems.length > 0) {
        (Object.values(fields).find((f) => f.control.getAttribute("aria-invalid") === "true")?.control ?? url.control).focus();
        if (!url.control.value.trim()) showProblems([{ field: "url", message: "Enter the model's download URL" }]);
        return;
      }
      const entry = await api("/api/models", { method: "POST", body: body() });
      toast(`${entry.model.name} added`);
      if (downloadNow.checked) downloads.start(entry.model.id, { thenLoad: !loadLabel.hidden && loadAfter.checked });
      location.hash = `#/models/info/${encodeURIComponent(entry.model.id)}`;
    } catch (error) {
      if (error instanceof APIError && error.param && fields[error.param]) showProblems([{ field: error.param, message: error.message }]);
      else toast(error.message, { error: true });
    } finally {
      submit.disabled = false;
    }
  } },
  h("fieldset", {}, h("legend", {}, "1. Kind of model"), category.label, modalityNote),
  h("fieldset", {}, h("legend", {}, "2. Framework"), framework.label),
  h("fieldset", {}, h("legend", {}, "3. Model"), url.label, h("p", { class: "muted" }, "Detected format: ", format), name.label, id.label, sha256.label, thinkingLabel),
  h("fieldset", {}, h("legend", {}, "4. After adding"), h("label", { class: "check" }, downloadNow, "Download it now"), loadLabel),
  h("div", { class: "form-actions" }, h("a", { href: "#/models" }, "Cancel"), submit));

  let timer = null;
  form.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(check, 300);
  });
  category.control.addEventListener("change", () => { showFrameworks(); check(); });
  framework.control.addEventListener("change", check);
  showFrameworks();
  fill(page, h("a", { href: "#/models" }, "‹ Models"), h("h1", {}, "Add a model from a URL"), form);
  url.control.focus();
  return () => clearTimeout(timer);
}
