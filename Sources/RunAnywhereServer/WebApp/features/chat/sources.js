// A chat question answered from a document collection: the answer streams into the chat like
// any other, with its numbered sources under it; a source opens the passage it came from. These
// answers are shown, not saved in the conversation.
import { events } from "../../lib/api.js";
import { h } from "../../lib/dom.js";
import { collectionPath, openPassage } from "../documents/passage.js";
import { StreamingAnswer } from "./messages.js";

/** The numbered sources under an answer from `collection`, each opening its passage, with its
 * cosine score (and its reranker's score when reranked). */
export function sourcesView(collection, sources) {
  return h("ol", { class: "sources", "aria-label": "Sources" }, sources.map((source) => h("li", {},
    h("button", { class: "source", title: source.text, onclick: () => openPassage(collection, source) },
      h("span", { class: "source-number" }, `[${source.number}]`), " ", source.document),
    h("span", { class: "muted" }, ` ${source.score.toFixed(2)}`
      + (source.rerankScore === undefined ? "" : ` · rerank ${source.rerankScore.toFixed(2)}`)))));
}

/**
 * Asks `question` of `collection` (`options`: model, temperature, maxTokens), appending the
 * question and the streamed answer with its sources to `messages`. Aborting `signal` stops it.
 * Returns the error message when it failed, else null.
 */
export async function askCollection(messages, collection, question, options, signal) {
  messages.querySelector(":scope > .notice")?.remove();
  messages.append(h("article", { class: "message user", "aria-label": "You" }, h("div", { class: "content" }, question)));
  const bubble = new StreamingAnswer();
  bubble.say(`Searching ${collection}…`);
  messages.append(bubble.element);
  messages.scrollTop = messages.scrollHeight;
  let failure = null;
  let done = null;
  try {
    for await (const { event, data } of events(`${collectionPath(collection)}/questions`, { method: "POST", body: { question, ...options }, signal })) {
      if (event === "delta") bubble.add(data);
      else if (event === "done") done = data;
      else if (event === "error") failure = data.error?.message ?? "The answer failed";
      messages.scrollTop = messages.scrollHeight;
    }
  } catch (error) {
    failure = error.name === "AbortError" ? null : error.message;
    if (error.name === "AbortError") bubble.say("stopped");
  }
  bubble.element.classList.remove("streaming");
  if (done) {
    bubble.say(`${done.model} • from ${collection}${done.stopReason === "cancelled" ? " • stopped" : ""}`);
    bubble.element.append(sourcesView(collection, done.sources));
  } else if (failure) {
    bubble.say(`failed: ${failure}`);
  }
  messages.scrollTop = messages.scrollHeight;
  return failure;
}
