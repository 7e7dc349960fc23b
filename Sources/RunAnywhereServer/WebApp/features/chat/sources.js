// The numbered sources under an answer from documents, as the saved message keeps them (its
// `grounding`): each opens the passage it came from.
import { h } from "../../lib/dom.js";
import { openPassage } from "../documents/passage.js";

/** The numbered sources of `grounding` ({collection, sources}), each opening its passage, with
 * its cosine score (and its reranker's score when reranked). */
export function sourcesView(grounding) {
  return h("ol", { class: "sources", "aria-label": "Sources" }, grounding.sources.map((source, index) => {
    const numbered = { document: source.documentPath, ordinal: source.ordinal, number: index + 1 };
    const name = source.documentPath.split("/").pop();
    return h("li", {},
      h("button", { class: "source", title: source.text, onclick: () => openPassage(grounding.collection, numbered) },
        h("span", { class: "source-number" }, `[${index + 1}]`), " ", name),
      h("span", { class: "muted" }, ` ${source.score.toFixed(2)}`
        + (source.rerankScore === undefined || source.rerankScore === null ? "" : ` · rerank ${source.rerankScore.toFixed(2)}`)));
  }));
}
