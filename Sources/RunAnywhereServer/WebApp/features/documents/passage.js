// The passage a numbered source came from, opened in a dialog with its document's name.
import { api } from "../../lib/api.js";
import { h, toast } from "../../lib/dom.js";

/** The path of collection `name` in the API. */
export function collectionPath(name) {
  return `/api/rag/collections/${encodeURIComponent(name)}`;
}

/** Opens the stored passage of `source` ({document, ordinal, number}) of collection `collection`. */
export async function openPassage(collection, source) {
  let passage;
  try {
    passage = await api(`${collectionPath(collection)}/passages?document=${encodeURIComponent(source.document)}&ordinal=${source.ordinal}`);
  } catch (error) {
    return toast(`Cannot open source ${source.number}: ${error.message}`, { error: true });
  }
  const dialog = h("dialog", { class: "card passage", "aria-labelledby": "passage-title", onclose: () => dialog.remove() },
    h("h2", { id: "passage-title" }, `[${source.number}] `, h("span", { class: "passage-document" }, passage.documentPath)),
    h("p", { class: "muted" }, `Passage ${passage.ordinal + 1} of ${passage.documentChunkCount} · characters ${passage.start}–${passage.end} · collection ${passage.collection}`),
    h("blockquote", { class: "passage-text" }, passage.text),
    h("form", { method: "dialog", class: "form-actions" }, h("button", { class: "primary", autofocus: true }, "Close")));
  document.body.append(dialog);
  dialog.showModal();
}
