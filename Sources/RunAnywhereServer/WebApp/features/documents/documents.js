// The Documents screen: the RAG collections (embedding model, documents, chunks), a collection's
// documents, uploading text, Markdown and HTML files into a new or existing collection, and
// deleting a document or a whole collection. Chat answers from a collection picked there.
import { api } from "../../lib/api.js";
import { bytes, fill, h, notice, toast, when } from "../../lib/dom.js";
import { collectionPath } from "./passage.js";

/** Shows the Documents screen, with collection `name` open when given. */
export function mount(root, name) {
  new DocumentsScreen(root, name).start();
}

/** "1 document", "3 documents". */
function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

class DocumentsScreen {
  constructor(root, name) {
    this.root = root;
    this.selected = name ?? null;
  }

  async start() {
    this.collections = h("ul", { class: "collections", "aria-label": "Collections" });
    this.documents = h("section", { class: "collection-documents", "aria-label": "Documents of the collection" });
    this.nameInput = h("input", { type: "text", name: "collection", required: true, pattern: "[A-Za-z0-9_][A-Za-z0-9._\\-]{0,63}", list: "collection-names",
      value: this.selected ?? "default", "aria-label": "Collection", title: "Letters, digits, '.', '_' and '-'" });
    this.names = h("datalist", { id: "collection-names" });
    this.uploadButton = h("button", { class: "primary", disabled: true }, "Upload");
    this.files = h("input", { type: "file", name: "files", multiple: true, accept: ".txt,.text,.md,.markdown,.html,.htm,.xhtml,.pdf", "aria-label": "Files",
      onchange: () => { this.uploadButton.disabled = this.files.files.length === 0; } });
    this.status = h("span", { class: "muted", role: "status" });
    fill(this.root, h("div", { class: "page documents" },
      h("div", { class: "page-header" }, h("h1", {}, "Documents")),
      h("p", { class: "muted" }, "Text, Markdown, HTML and PDF files are split into passages and embedded; pick a collection in Chat to get answers with numbered sources. Save Word files as PDF or text first."),
      h("form", { class: "card upload", "aria-label": "Upload documents", onsubmit: (e) => { e.preventDefault(); this.upload(); } },
        h("label", {}, "Collection (new or existing)", this.nameInput), this.names,
        h("label", {}, "Files", this.files),
        h("div", { class: "row" }, this.uploadButton, this.status)),
      h("div", { class: "documents-layout" }, this.collections, this.documents)));
    await this.load();
  }

  async load() {
    try {
      const { collections } = await api("/api/rag/collections");
      if (!collections.some((c) => c.name === this.selected)) this.selected = collections[0]?.name ?? null;
      fill(this.names, collections.map((c) => h("option", { value: c.name })));
      fill(this.collections, collections.length === 0
        ? h("li", {}, notice("No collections yet", "Upload files above to make one."))
        : collections.map((c) => this.collectionItem(c)));
      await this.showDocuments();
    } catch (error) {
      fill(this.collections, h("li", {}, notice("Cannot list the collections", error.message, { error: true })));
    }
  }

  collectionItem(collection) {
    const open = () => { this.selected = collection.name; this.nameInput.value = collection.name; this.load(); };
    return h("li", { class: "collection", "aria-current": collection.name === this.selected ? "true" : null, "data-collection": collection.name },
      h("button", { class: "collection-name", onclick: open }, collection.name),
      h("small", { class: "muted" }, `${plural(collection.documentCount, "document")} · ${plural(collection.chunkCount, "passage")}`),
      h("small", { class: "muted embedding-model", title: "Embedding model" }, collection.embeddingModelId),
      h("button", { class: "danger", "aria-label": `Delete collection ${collection.name}`, onclick: () => this.removeCollection(collection.name) }, "Delete"));
  }

  async showDocuments() {
    const name = this.selected;
    if (!name) return fill(this.documents);
    try {
      const { documents } = await api(`${collectionPath(name)}/documents`);
      fill(this.documents, h("h2", {}, name),
        h("div", { class: "table-scroll" }, h("table", {},
          h("thead", {}, h("tr", {}, ["Document", "Format", "Passages", "Size", "Added", ""].map((t) => h("th", {}, t)))),
          h("tbody", {}, documents.map((d) => h("tr", { "data-document": d.path },
            h("td", { class: "document-path" }, d.path), h("td", {}, d.format), h("td", { class: "number" }, d.chunkCount),
            h("td", { class: "number" }, bytes(d.size)), h("td", {}, when(d.ingestedAt)),
            h("td", {}, h("button", { class: "danger", "aria-label": `Delete ${d.path}`, onclick: () => this.removeDocument(name, d.path) }, "Delete"))))))));
    } catch (error) {
      fill(this.documents, notice(`Cannot list the documents of ${name}`, error.message, { error: true }));
    }
  }

  async upload() {
    const name = this.nameInput.value.trim();
    if (!this.nameInput.reportValidity() || this.files.files.length === 0) return;
    const form = new FormData();
    for (const file of this.files.files) form.append("files[]", file, file.name);
    this.uploadButton.disabled = true;
    this.status.textContent = `Reading and embedding ${plural(this.files.files.length, "file")}…`;
    try {
      const report = await api(`${collectionPath(name)}/documents`, { method: "POST", body: form });
      const chunks = report.documents.reduce((sum, d) => sum + d.chunkCount, 0);
      toast(`Added ${plural(report.documents.length, "document")} (${plural(chunks, "passage")}) to ${report.collection}`);
      this.selected = report.collection;
      await this.load();
    } catch (error) {
      toast(`Nothing was added: ${error.message}`, { error: true });
    } finally {
      this.files.value = "";  // a refused batch is chosen again, without the file named
      this.status.textContent = "";
    }
  }

  async removeDocument(name, path) {
    if (!confirm(`Remove "${path}" from ${name}?`)) return;
    try {
      await api(`${collectionPath(name)}/documents?path=${encodeURIComponent(path)}`, { method: "DELETE" });
      toast(`Removed ${path}`);
      await this.load();
    } catch (error) {
      toast(error.message, { error: true });
    }
  }

  async removeCollection(name) {
    if (!confirm(`Delete the collection "${name}" with all its documents? This cannot be undone.`)) return;
    try {
      await api(collectionPath(name), { method: "DELETE" });
      toast(`Deleted ${name}`);
      if (this.selected === name) this.selected = null;
      await this.load();
    } catch (error) {
      toast(error.message, { error: true });
    }
  }
}
