// One benchmark run (spec benchmarks.md 2.9.2 and 2.10.1): its times, status and device; its
// results grouped by category, each with its model (id, name, framework, quantization) and
// every metric; Copy Report (Markdown to the clipboard), the JSON and CSV files to download,
// and Save to the exports folder with the file name confirmed.
import { api, attachment } from "../../lib/api.js";
import { bytes, download, fill, h, notice, seconds, toast } from "../../lib/dom.js";
import { metricList, statusBadge } from "./results.js";

/** Shows run `id`. */
export function mount(root, id) {
  const page = h("div", { class: "page benchmark-run" });
  fill(root, page);
  show(page, id);
}

async function show(page, id) {
  let run, categories;
  try {
    [run, { categories }] = await Promise.all([api(`/api/benchmarks/${encodeURIComponent(id)}`), api("/api/benchmarks")]);
  } catch (error) {
    fill(page, h("a", { href: "#/benchmarks" }, "‹ Benchmarks"), notice("Cannot show this run", error.message, { error: true }));
    return;
  }
  const started = new Date(run.startedAt);
  const duration = run.completedAt ? (new Date(run.completedAt) - started) / 1000 : null;
  const device = run.deviceInfo;
  const facts = [["Started", started.toLocaleString()], ["Finished", run.completedAt ? new Date(run.completedAt).toLocaleString() : "–"],
    ["Duration", seconds(duration)], ["Results", String(run.results.length)], ["Device", device.modelName], ["Chip", device.chipName],
    ["Memory", `${bytes(device.totalMemoryBytes)} (${bytes(device.availableMemoryBytes)} free at the start)`], ["System", device.osVersion],
    ["App", device.appVersion], ["SDK", device.sdkVersion]];
  const saved = h("p", { class: "saved muted", role: "status" });
  const groups = categories.map((c) => [c, run.results.filter((r) => r.category === c.category)]).filter(([, results]) => results.length > 0);
  fill(page, h("a", { href: "#/benchmarks" }, "‹ Benchmarks"),
    h("div", { class: "page-header" }, h("h1", {}, `Run of ${started.toLocaleString()}`), statusBadge(run.status)),
    h("div", { class: "row export-actions" },
      h("button", { class: "primary copy-report", onclick: () => copyReport(run) }, "Copy Report"),
      h("button", { class: "download-json", onclick: () => downloadExport(run, "json") }, "Download JSON"),
      h("button", { class: "download-csv", onclick: () => downloadExport(run, "csv") }, "Download CSV"),
      h("button", { class: "save-json", onclick: () => save(run, "json", saved) }, "Save JSON to exports"),
      h("button", { class: "save-csv", onclick: () => save(run, "csv", saved) }, "Save CSV to exports")),
    saved,
    h("table", { class: "fields run-facts" }, h("tbody", {}, facts.map(([name, value]) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, value))))),
    groups.length === 0 ? notice("No results", run.status === "cancelled" ? "The run was cancelled before its first result." : "No category had a downloaded model.") : null,
    groups.map(([c, results]) => h("section", { class: "result-group", "data-category": c.category, "aria-labelledby": `group-${c.category}` },
      h("h2", { id: `group-${c.category}` }, c.displayName),
      h("ul", { class: "results" }, results.map((r) => h("li", { class: `card result${r.metrics.error ? " failed" : ""}`, "data-result": r.id },
        h("div", { class: "result-head" },
          h("strong", {}, r.scenarioName), " ",
          h("span", { class: "model" }, `${r.componentModelInfo.modelName} (${r.componentModelInfo.modelId})`), " ",
          h("span", { class: "badge framework" }, r.componentModelInfo.framework), " ",
          r.componentModelInfo.formatOrQuantization ? h("span", { class: "badge quantization" }, r.componentModelInfo.formatOrQuantization) : null),
        metricList(r.metrics)))))));
}

const exportText = (run, format) => attachment(`/api/benchmarks/${encodeURIComponent(run.id)}/export?format=${format}`, `benchmark.${format}`);

async function copyReport(run) {
  try {
    const { blob } = await exportText(run, "md");
    await navigator.clipboard.writeText(await blob.text());
    toast("Copied to clipboard");
  } catch (error) {
    toast(`Cannot copy the report: ${error.message}`, { error: true });
  }
}

async function downloadExport(run, format) {
  try {
    const { name, blob } = await exportText(run, format);
    download(name, blob);
  } catch (error) {
    toast(error.message, { error: true });
  }
}

async function save(run, format, status) {
  try {
    const { fileName, path } = await api(`/api/benchmarks/${encodeURIComponent(run.id)}/export?format=${format}`, { method: "POST" });
    fill(status, "Saved to ", h("strong", { class: "file-name" }, fileName), " ", h("code", {}, path));
    toast(`Saved to ${fileName}`);
  } catch (error) {
    toast(error.message, { error: true });
  }
}
