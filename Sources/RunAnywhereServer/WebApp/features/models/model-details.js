// A model's page (#/models/info/<id>): every field of its catalog entry, its download, load
// or delete, and for a downloaded GGUF file the metadata its header holds (architecture,
// parameters, quantization, context, vocabulary, chat template).
import { api } from "../../lib/api.js";
import { bytes, fill, h, notice, toast } from "../../lib/dom.js";
import { categoryName, frameworkName, system } from "../../lib/system.js";
import * as downloads from "./downloads.js";
import { modelActions, progressView } from "./models.js";

/** Shows model `id`'s page; returns what unmounts it. */
export function mount(root, id) {
  const page = h("div", { class: "page model-details" });
  fill(root, page);
  let closed = false;
  let shown = null;
  const redraw = async () => {
    if (!closed) shown = await show(page, id, redraw);
  };
  const unsubscribe = downloads.onChange((changed, download) => {
    if (changed !== id || closed || !shown) return;
    if (download.finished && !download.running) {
      downloads.forget(id);
      if (download.error) toast(download.error, { error: true }); else toast(`${shown.entry.model.name} is installed`);
      redraw();
    } else {
      shown.update();
    }
  });
  redraw();
  return () => {
    closed = true;
    unsubscribe();
  };
}

/**
 * Draws the page (`redraw` draws it again, after a load or an unload); returns the entry shown
 * and what redraws its download and actions.
 */
async function show(page, id, redraw) {
  let entry, info;
  try {
    [entry, info] = await Promise.all([api(`/api/models/${encodeURIComponent(id)}`), system()]);
  } catch (error) {
    fill(page, h("a", { href: "#/models" }, "‹ Models"), notice("Cannot show this model", error.message, { error: true }));
    return null;
  }
  const { model } = entry;
  document.title = `${model.name} · RunAnywhere`;
  const actionBar = h("div", { class: "model-actions" });
  const progress = h("div", { class: "download-holder" });
  const update = () => {
    const download = downloads.download(id);
    fill(actionBar, modelActions(entry, { onDelete: () => remove(entry), changed: redraw }));
    fill(progress, download ? progressView(download) : null);
  };
  const rows = [
    ["Id", h("code", {}, model.id)],
    ["Category", categoryName(info, model.category)],
    ["Framework", frameworkName(info, model.framework)],
    ["Format", model.format.toUpperCase()],
    ["State", entry.state ?? (entry.installed ? "installed" : "not downloaded")],
    ["Size on disk", entry.installed ? bytes(entry.sizeOnDiskBytes) : null],
    ["Download size", model.downloadSize ? bytes(model.downloadSize) : null],
    ["Context length", model.contextLength ? `${model.contextLength} tokens` : null],
    ["Thinking", model.supportsThinking ? "yes" : null],
    ["License", model.license],
    ["Source", model.downloadURL ? h("a", { href: model.downloadURL, rel: "noreferrer" }, model.downloadURL) : model.source],
    ["SHA-256", model.sha256 ? h("code", {}, model.sha256) : null],
    ["File", model.localPath ? h("code", {}, decodeURI(model.localPath.replace(/^file:\/\//, ""))) : null],
    ["Description", model.description],
  ].filter(([, value]) => value !== null && value !== undefined);
  const gguf = h("section", { class: "gguf", "aria-labelledby": "gguf-title" });
  fill(page, h("a", { href: "#/models" }, "‹ Models"),
    h("div", { class: "page-header" }, h("h1", {}, model.name), actionBar),
    progress,
    h("table", { class: "fields" }, h("tbody", {}, rows.map(([name, value]) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, value))))),
    gguf);
  update();
  if (model.format === "gguf" && entry.installed) showGGUF(gguf, id);
  return { entry, update };
}

async function showGGUF(section, id) {
  try {
    const m = await api(`/api/models/${encodeURIComponent(id)}/gguf`);
    const cards = [
      ["Architecture", m.architecture], ["Parameters", m.parameterCountLabel], ["Quantization", m.quantization],
      ["Context (trained)", m.contextLength], ["Vocabulary", m.vocabularySize], ["Tensors", m.tensorCount], ["GGUF version", m.version],
    ].filter(([, value]) => value !== null && value !== undefined);
    fill(section, h("h2", { id: "gguf-title" }, "GGUF metadata"),
      h("div", { class: "cards" }, cards.map(([name, value]) => h("div", { class: "card metric", "data-gguf": name }, h("strong", {}, String(value)), h("span", {}, name)))),
      m.name ? h("p", { class: "muted" }, `General name: ${m.name}${m.license ? ` · license ${m.license}` : ""}`) : null,
      m.fileSize < m.expectedFileSize ? notice("The file is shorter than its tensors need", `${bytes(m.fileSize)} of ${bytes(m.expectedFileSize)}`, { error: true }) : null,
      m.chatTemplate ? h("details", { class: "chat-template" }, h("summary", {}, "Chat template"), h("pre", {}, m.chatTemplate)) : null);
  } catch (error) {
    fill(section, notice("Cannot read the GGUF metadata", error.message, { error: true }));
  }
}

async function remove(entry) {
  const { model } = entry;
  if (!confirm(`Delete ${model.name} (${bytes(entry.sizeOnDiskBytes)})?`)) return;
  try {
    await api(`/api/models/${encodeURIComponent(model.id)}`, { method: "DELETE" });
    downloads.forget(model.id);
    toast(`${model.name} deleted`);
    location.hash = "#/models";
  } catch (error) {
    toast(error.message, { error: true });
  }
}
