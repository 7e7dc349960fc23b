// How benchmark results read: each metric with its label and unit (only the ones a result
// has), status badges, and the LLM summary of a run that the charts draw.
import { bytes, h } from "../../lib/dom.js";

const ms = (value) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(value >= 100 ? 0 : 1)} ms`);
const perSecond = (value) => `${value.toFixed(1)} tok/s`;
const sentencesPerSecond = (value) => `${value.toFixed(1)} sentences/s`;
const range = (low, high, format) => (low === undefined || low === null || high === undefined || high === null ? null : `${format(low)} – ${format(high)}`);

/** The metrics a result may have, in the order the spec lists them for its category. */
const metrics = [
  ["loadTimeMs", "Load time", ms],
  ["warmupTimeMs", "Warm-up", ms],
  ["timeToFirstTokenMs", "Time to first token", ms],
  ["tokensPerSecond", "Tokens per second", perSecond],
  ["promptTokensPerSecond", "Prompt tok/s", perSecond],
  ["decodeTokensPerSecond", "Decode tok/s", perSecond],
  ["sentencesPerSecond", "Sentences per second", sentencesPerSecond],
  ["endToEndLatencyMs", "End-to-end latency", ms],
  ["sttTranscriptionTimeMs", "Transcription time", ms],
  ["ttsSynthesisTimeMs", "Synthesis time", ms],
  ["vlmDescriptionTimeMs", "Description time", ms],
  ["imageGenerationTimeMs", "Generation time", ms],
  ["embeddingTimeMs", "Embedding time", ms],
  ["peakMemoryDeltaBytes", "Memory delta", (v) => `${v < 0 ? "−" : ""}${bytes(Math.abs(v))}`],
  ["peakRSSDeltaBytes", "Peak RSS delta", (v) => `${v < 0 ? "−" : ""}${bytes(Math.abs(v))}`],
];

/** A result's metrics as a definition list, with token counts, ranges over repetitions and its error. */
export function metricList(m) {
  const items = metrics.filter(([key]) => m[key] !== undefined && m[key] !== null && !(key === "endToEndLatencyMs" && m.error))
    .map(([key, label, format]) => [key, label, format(m[key])]);
  if (m.inputTokens !== undefined && m.inputTokens !== null) items.push(["tokens", "Tokens in / out", `${m.inputTokens} / ${m.outputTokens ?? "–"}`]);
  if (m.repetitions) items.push(["repetitions", "Repetitions", String(m.repetitions)]);
  const spreads = [["TTFT range", range(m.timeToFirstTokenMinMs, m.timeToFirstTokenMaxMs, ms)],
    ["Tok/s range", range(m.tokensPerSecondMin, m.tokensPerSecondMax, perSecond)],
    ["Sentences/s range", range(m.sentencesPerSecondMin, m.sentencesPerSecondMax, sentencesPerSecond)],
    ["Latency range", range(m.endToEndLatencyMinMs, m.endToEndLatencyMaxMs, ms)]].filter(([, value]) => value);
  return h("dl", { class: "metrics" },
    items.map(([key, label, value]) => h("div", { "data-metric": key }, h("dt", {}, label), h("dd", {}, value))),
    spreads.map(([label, value]) => h("div", {}, h("dt", {}, label), h("dd", {}, value))),
    m.error ? h("div", { class: "error", "data-metric": "error" }, h("dt", {}, "Error"), h("dd", {}, m.error)) : null);
}

/** A run's status as the spec colours it: completed green, cancelled orange, failed red. */
export function statusBadge(status) {
  const tone = { completed: "ok", cancelled: "warn", failed: "bad" }[status] ?? "";
  return h("span", { class: `badge ${tone} status`, "data-status": status }, status);
}

/** A run's LLM results averaged: {tokensPerSecond, latencyMs}; null when it has none. */
export function llmSummary(run) {
  const llm = run.results.filter((r) => r.category === "llm" && !r.metrics.error && r.metrics.tokensPerSecond);
  if (llm.length === 0) return null;
  const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length;
  return { tokensPerSecond: mean(llm.map((r) => r.metrics.tokensPerSecond)), latencyMs: mean(llm.map((r) => r.metrics.endToEndLatencyMs)) };
}
