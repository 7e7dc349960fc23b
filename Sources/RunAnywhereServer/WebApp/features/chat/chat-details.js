// Chat Details: the spec's analytics dashboard for one conversation, with Overview, Messages and
// Performance tabs, read from the analytics the server saved with each answer.
import { api } from "../../lib/api.js";
import { lineChart } from "../../lib/chart.js";
import { fill, h, notice, rate, seconds, when } from "../../lib/dom.js";

/** Shows the details of conversation `id`. */
export function mount(root, id) {
  const page = h("div", { class: "page details" });
  fill(root, page);
  show(page, id);
}

async function show(page, id) {
  let conversation;
  try {
    conversation = await api(`/api/conversations/${encodeURIComponent(id)}`);
  } catch (error) {
    fill(page, notice("Cannot open this conversation", error.message, { error: true }));
    return;
  }
  document.title = `Details · ${conversation.title} · RunAnywhere`;
  const answers = conversation.messages.filter((m) => m.role === "assistant" && m.analytics);
  const panel = h("div", { role: "tabpanel", id: "details-panel" });
  const tabs = [["overview", "Overview", () => overview(conversation, answers)], ["messages", "Messages", () => messagesTable(answers)],
    ["performance", "Performance", () => performance(answers)]];
  const buttons = tabs.map(([key, label, render]) => h("button", { role: "tab", id: `tab-${key}`, "aria-controls": "details-panel", "aria-selected": "false",
    onclick: () => select(key, render) }, label));
  function select(key, render) {
    for (const button of buttons) button.setAttribute("aria-selected", String(button.id === `tab-${key}`));
    panel.setAttribute("aria-labelledby", `tab-${key}`);
    fill(panel, answers.length === 0 ? notice("No answers yet", "Analytics appear once the model has answered.") : render());
  }
  fill(page, h("p", {}, h("a", { href: `#/chat/${conversation.id}` }, "← Back to the conversation")),
    h("h1", {}, conversation.title), h("div", { class: "segmented", role: "tablist", "aria-label": "Details" }, buttons), panel);
  select(tabs[0][0], tabs[0][2]);
}

function card(label, value, key) {
  return h("div", { class: "card metric", "data-metric": key }, h("strong", {}, value), h("span", {}, label));
}

function overview(conversation, answers) {
  const a = conversation.analytics;
  const s = conversation.performanceSummary;
  return [
    h("div", { class: "cards" },
      card("Messages", String(a?.messageCount ?? conversation.messages.length), "messageCount"),
      card("Answers", String(s?.messageCount ?? answers.length), "answerCount"),
      card("Average first token", seconds(a?.averageTTFT), "averageTTFT"),
      card("Average speed", rate(a?.averageGenerationSpeed), "averageGenerationSpeed"),
      card("Total tokens", String(a?.totalTokensUsed ?? 0), "totalTokensUsed"),
      card("Completion rate", `${Math.round((a?.completionRate ?? 0) * 100)}%`, "completionRate"),
      card("Thinking used", `${Math.round((a?.thinkingModeUsage ?? 0) * 100)}%`, "thinkingModeUsage"),
      card("Average length", `${a?.averageMessageLength ?? 0} chars`, "averageMessageLength")),
    h("h2", {}, "Conversation"),
    h("table", {}, h("tbody", {},
      row("Started", when(conversation.createdAt)), row("Last message", when(conversation.updatedAt)),
      row("Models used", (s?.modelsUsed ?? []).join(", ") || "–"), row("Average response time", seconds(s?.averageResponseTime)))),
  ];
}

function row(label, value) {
  return h("tr", {}, h("th", { scope: "row" }, label), h("td", {}, value));
}

function messagesTable(answers) {
  return h("table", { class: "answers" },
    h("thead", {}, h("tr", {}, ["#", "Model", "First token", "Total", "Tokens in / out", "Speed", "Context", "Status"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, answers.map((m, i) => {
      const a = m.analytics;
      return h("tr", { "data-message": m.id },
        h("td", {}, String(i + 1)), h("td", {}, a.modelName), h("td", {}, seconds(a.timeToFirstToken)), h("td", {}, seconds(a.totalGenerationTime)),
        h("td", { class: "tokens" }, `${a.inputTokens} / ${a.outputTokens}`), h("td", {}, rate(a.averageTokensPerSecond)),
        h("td", {}, `${(a.contextWindowUsage * 100).toFixed(1)}%`),
        h("td", {}, h("span", { class: `badge ${a.completionStatus === "complete" ? "ok" : a.completionStatus === "interrupted" ? "warn" : "bad"}` }, a.completionStatus)));
    })));
}

function performance(answers) {
  const last = answers[answers.length - 1].analytics;
  const picker = h("select", { "aria-label": "Answer" }, answers.map((m, i) => h("option", { value: String(i) }, `Answer ${i + 1}`)));
  picker.value = String(answers.length - 1);
  const within = h("div", {});
  const draw = () => fill(within, lineChart({ series: [{ label: "tok/s", values: answers[Number(picker.value)].analytics.tokensPerSecondHistory, color: "#FF5500" }],
    xLabel: "tokens into the answer", yLabel: "tok/s" }));
  picker.addEventListener("change", draw);
  draw();
  return [
    h("div", { class: "cards" },
      card("Last first token", seconds(last.timeToFirstToken), "lastTTFT"), card("Last speed", rate(last.averageTokensPerSecond), "lastSpeed"),
      card("Fastest", rate(Math.max(...answers.map((m) => m.analytics.averageTokensPerSecond))), "fastest"),
      card("Slowest", rate(Math.min(...answers.map((m) => m.analytics.averageTokensPerSecond))), "slowest")),
    h("h2", {}, "Speed during an answer"), picker, within,
    h("h2", {}, "Across the conversation"),
    lineChart({ series: [
      { label: "tok/s", values: answers.map((m) => m.analytics.averageTokensPerSecond), color: "#FF5500" },
      { label: "first token (ms)", values: answers.map((m) => (m.analytics.timeToFirstToken ?? NaN) * 1000), color: "#8e8e93" },
    ], xLabel: "answer", yLabel: "tok/s · ms" }),
  ];
}
