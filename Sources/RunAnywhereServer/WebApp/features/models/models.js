// The Models screen: every catalog model by category with its size, format, framework and
// state; downloads with live percent, bytes, speed and ETA, cancel and resume; load and unload
// of a language model; delete with confirmation; storage used and free; and the way to a model's details and to adding one
// from a URL.
import { api } from "../../lib/api.js";
import { bytes, fill, h, notice, seconds, toast } from "../../lib/dom.js";
import { categoryName, frameworkName, system } from "../../lib/system.js";
import * as downloads from "./downloads.js";

/** Shows the Models screen; returns what unmounts it. */
export function mount(root) {
  const screen = new ModelsScreen(root);
  screen.start();
  return () => screen.close();
}

class ModelsScreen {
  constructor(root) {
    this.root = root;
    this.rows = new Map();
  }

  async start() {
    this.storage = h("p", { class: "muted storage", role: "status" });
    this.list = h("div", { class: "model-list" });
    fill(this.root, h("div", { class: "page" },
      h("div", { class: "page-header" }, h("h1", {}, "Models"),
        h("a", { class: "button primary add-model", href: "#/models/add" }, "Add from URL")),
      this.storage, this.list));
    this.unsubscribe = downloads.onChange((id, state) => this.downloadChanged(id, state));
    await this.load();
  }

  close() {
    this.unsubscribe?.();
  }

  async load() {
    try {
      const [info, { models }, storage] = await Promise.all([system(), api("/api/models"), api("/api/storage")]);
      this.info = info;
      this.showStorage(storage);
      this.showModels(models);
    } catch (error) {
      fill(this.list, notice("Cannot list the models", error.message, { error: true }));
    }
  }

  showStorage(storage) {
    fill(this.storage, `Models use ${bytes(storage.totalModelBytes)} · ${storage.freeBytes === null ? "free space unknown" : `${bytes(storage.freeBytes)} free`} · `,
      h("code", {}, storage.directory));
  }

  showModels(models) {
    this.rows.clear();
    const groups = this.info.categories.map(({ category }) => [category, models.filter((m) => m.model.category === category)]).filter(([, list]) => list.length > 0);
    fill(this.list, groups.map(([category, list]) => h("section", { "aria-labelledby": `category-${category}` },
      h("h2", { id: `category-${category}` }, categoryName(this.info, category), h("span", { class: "muted count" }, ` ${list.filter((m) => m.installed).length}/${list.length} installed`)),
      h("ul", { class: "models" }, list.map((entry) => this.row(entry))))));
  }

  row(entry) {
    const { model } = entry;
    const element = h("li", { class: "model", "data-model": model.id });
    const row = { entry, element };
    this.rows.set(model.id, row);
    this.render(row);
    return element;
  }

  /** Draws a model's row from its catalog entry and its download, if one is under way. */
  render(row) {
    const { entry, element } = row;
    const { model } = entry;
    const download = downloads.download(model.id);
    const size = entry.installed ? entry.sizeOnDiskBytes : model.downloadSize;
    const state = download?.running ? h("span", { class: "badge warn" }, "downloading")
      : entry.state ? h("span", { class: `badge ${entry.state === "failed" ? "bad" : "ok"}` }, entry.state)
        : entry.installed ? h("span", { class: "badge ok" }, "installed") : h("span", { class: "badge" }, "not downloaded");
    fill(element,
      h("div", { class: "model-name" }, h("a", { href: `#/models/info/${encodeURIComponent(model.id)}` }, model.name), h("small", { class: "muted" }, model.id)),
      h("div", { class: "model-meta muted" }, [model.format.toUpperCase(), frameworkName(this.info, model.framework), size ? bytes(size) : null].filter(Boolean).join(" · ")),
      h("div", { class: "model-state" }, state),
      h("div", { class: "model-actions" }, modelActions(entry, { onDelete: () => this.remove(entry), changed: () => this.refresh(row) })),
      download ? progressView(download) : null);
  }

  async downloadChanged(id, download) {
    const row = this.rows.get(id);
    if (!row) return;
    if (download.finished && !download.running) {
      downloads.forget(id);
      if (download.error) toast(download.error, { error: true }); else toast(`${row.entry.model.name} is installed`);
      try {
        row.entry = await api(`/api/models/${encodeURIComponent(id)}`);
        this.showStorage(await api("/api/storage"));
      } catch (error) {
        toast(error.message, { error: true });
      }
    }
    this.render(row);
  }

  /** Reads a model's entry again (its state after a load, say) and redraws its row. */
  async refresh(row) {
    try {
      row.entry = await api(`/api/models/${encodeURIComponent(row.entry.model.id)}`);
    } catch (error) {
      toast(error.message, { error: true });
    }
    this.render(row);
  }

  async remove(entry) {
    const { model } = entry;
    const note = model.source === "remote" ? "Its files are deleted; it stays in the catalog to download again."
      : "Its files in the models folder and its entry are deleted (a file elsewhere is left where it is).";
    if (!confirm(`Delete ${model.name} (${bytes(entry.sizeOnDiskBytes)})? ${note}`)) return;
    try {
      await api(`/api/models/${encodeURIComponent(model.id)}`, { method: "DELETE" });
      downloads.forget(model.id);
      toast(`${model.name} deleted`);
      await this.load();
    } catch (error) {
      toast(error.message, { error: true });
    }
  }
}

/**
 * A model's buttons now: Cancel while it downloads, else Download (or Resume); once installed,
 * Load or Unload for a language model, and Delete. `changed` runs after a load or an unload.
 */
export function modelActions(entry, { onDelete, changed }) {
  const { model } = entry;
  const download = downloads.download(model.id);
  const actions = [];
  if (download?.running) {
    actions.push(h("button", { class: "cancel", onclick: () => downloads.cancel(model.id) }, "Cancel"));
  } else if (!entry.installed && model.downloadURL) {
    actions.push(h("button", { class: "primary download", onclick: () => downloads.start(model.id) }, download?.cancelled || download?.error ? "Resume" : "Download"));
  }
  if (entry.installed && model.category === "language") {
    const loaded = entry.state === "loaded" || entry.state === "loading";
    const button = h("button", { class: loaded ? "unload" : "load", onclick: async () => {
      button.disabled = true;
      button.textContent = loaded ? "Unloading…" : "Loading…";
      try {
        await api(`/api/models/${encodeURIComponent(model.id)}/load`, { method: loaded ? "DELETE" : "POST" });
        toast(`${model.name} ${loaded ? "unloaded" : "loaded"}`);
      } catch (error) {
        toast(`${model.name} did not ${loaded ? "unload" : "load"}: ${error.message}`, { error: true });
      }
      changed();
    } }, loaded ? "Unload" : "Load");
    actions.push(button);
  }
  if (entry.installed) actions.push(h("button", { class: "danger delete", onclick: onDelete }, "Delete"));
  return actions;
}

/** A download's bar and figures: percent, bytes, speed and time left, or how it ended. */
export function progressView(download) {
  const p = download.progress;
  const percent = p ? Math.round(p.fraction * 100) : 0;
  const figures = p
    ? [`${percent}%`, `${bytes(p.bytesDownloaded)}${p.totalBytes ? ` / ${bytes(p.totalBytes)}` : ""}`,
      p.bytesPerSecond ? `${bytes(p.bytesPerSecond)}/s` : null, p.secondsRemaining !== null && p.secondsRemaining !== undefined ? `ETA ${seconds(p.secondsRemaining)}` : null,
      p.state !== "downloading" ? p.state : null].filter(Boolean).join(" · ")
    : "Starting…";
  const status = download.error ? h("span", { class: "error" }, download.error)
    : download.cancelled ? "Cancelled; Resume continues where it stopped."
      : download.loading ? "Downloaded; loading the model…" : figures;
  return h("div", { class: "download" },
    h("progress", { max: "100", value: String(percent), "aria-label": "Download progress" }),
    h("span", { class: "download-figures", role: "status" }, status));
}
