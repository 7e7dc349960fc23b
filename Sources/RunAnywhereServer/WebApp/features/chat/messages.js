// How a chat message looks: the user's bubble, or the answer with its collapsed, dimmed thinking,
// the tools it called (each collapsed, with its arguments and output), the numbered sources of an
// answer from documents, and the spec's footer ("1.2s • 45 tok/s", thinking, how it ended).
import { h, seconds } from "../../lib/dom.js";
import { sourcesView } from "./sources.js";

/** The footer the SDK writes under an answer (ChatMessage.footer in Swift). */
function footerText(message) {
  if (message.error) return `failed: ${message.error}`;
  const a = message.analytics;
  if (!a) return "";
  const parts = [`${a.totalGenerationTime.toFixed(1)}s`];
  if (a.averageTokensPerSecond > 0) parts.push(`${Math.floor(a.averageTokensPerSecond)} tok/s`);
  if (a.wasThinkingMode) parts.push("thinking");
  if (a.completionStatus === "interrupted") parts.push("stopped");
  if (a.completionStatus === "timeout") parts.push("timed out");
  return parts.join(" • ");
}

/** A message as the conversation shows it; `onRetry` adds a Retry button (the last answer). */
export function messageView(message, { onRetry } = {}) {
  const assistant = message.role === "assistant";
  const article = h("article", { class: `message ${message.role}`, "aria-label": assistant ? "Answer" : message.role === "user" ? "You" : "System" });
  if (message.thinkingContent) article.append(thinkingView(message.thinkingContent, message.analytics?.thinkingTime));
  if (message.toolSteps?.length) article.append(h("div", { class: "tool-steps" }, message.toolSteps.map(toolStepView)));
  article.append(h("div", { class: "content" }, message.content));
  if (message.grounding) article.append(sourcesView(message.grounding));
  if (assistant) {
    const footer = h("div", { class: "footer" },
      h("span", { class: message.error ? "error footer-text" : "footer-text" }, footerText(message)),
      message.modelInfo ? h("span", {}, message.modelInfo.modelName) : null,
      onRetry ? h("button", { class: "retry", onclick: onRetry }, "Retry") : null);
    article.append(footer);
  }
  return article;
}

/** A call the answer made: the tool's name, then, opened, its arguments and what it gave back. */
function toolStepView(step) {
  return h("details", { class: "tool-step" },
    h("summary", {}, "Used ", h("code", {}, step.call.name)),
    h("div", { class: "tool-label" }, "Arguments"), h("pre", { class: "tool-arguments" }, JSON.stringify(step.call.arguments, null, 2)),
    h("div", { class: "tool-label" }, "Output"), h("pre", { class: "tool-output" }, step.output));
}

function thinkingView(text, time) {
  return h("details", { class: "thinking" }, h("summary", {}, time ? `Thought for ${seconds(time)}` : "Thinking"), h("div", {}, text));
}

/** An answer being streamed, updated piece by piece. */
export class StreamingAnswer {
  constructor() {
    this.content = "";
    this.thinking = "";
    this.text = h("div", { class: "content", "aria-live": "polite" });
    this.details = thinkingView("");
    this.details.hidden = true;
    this.details.firstChild.textContent = "Thinking…";
    this.thoughts = this.details.lastChild;
    this.status = h("span", { class: "footer-text" }, "Waiting for the model…");
    this.calls = h("ul", { class: "tool-calls", hidden: true });
    this.element = h("article", { class: "message assistant streaming", "aria-label": "Answer" },
      this.details, this.text, this.calls, h("div", { class: "footer" }, this.status));
  }

  /** A tool the model called, which the server runs before the model goes on. */
  call(call) {
    this.calls.hidden = false;
    this.calls.append(h("li", {}, "Using ", h("code", {}, call.name), "…"));
    this.status.textContent = `Running ${call.name}…`;
  }

  add(delta) {
    if (delta.reasoning) {
      this.thinking += delta.reasoning;
      this.thoughts.append(delta.reasoning);
      this.details.hidden = false;
    }
    if (delta.content) {
      this.content += delta.content;
      this.text.append(delta.content);
    }
    this.status.textContent = "Answering…";
  }

  say(text) { this.status.textContent = text; }
}
