// The Telemetry page: the BenchRunner runs a fleet posted (`runanywhere benchrunner` to this
// server's or a collector's /telemetry): per device model, OS, model and backend, the run count,
// median fps with its spread, median latency and cold start; the regressions (latest runs worse
// than the ones before them); one group's fps and latency across its runs; and its newest runs.
import { api, attachment } from "../../lib/api.js";
import { lineChart } from "../../lib/chart.js";
import { download, fill, h, notice, toast, when } from "../../lib/dom.js";

/** Shows the page; returns nothing to unmount (it holds no connection). */
export function mount(root) {
  const page = new TelemetryPage(root);
  page.start();
}

/** Downloads every stored run as CSV, fetched with the tab's API key (a plain link would send none). */
async function exportCSV() {
  try {
    const { name, blob } = await attachment("/telemetry/export?format=csv", "telemetry.csv");
    download(name, blob);
  } catch (error) {
    toast(`Cannot export the runs: ${error.message}`, { error: true });
  }
}

const number = (value, digits = 1) => (value === null || value === undefined ? "–" : value >= 100 ? Math.round(value).toString() : value.toFixed(digits));
const groupKey = (g) => [g.device_model, g.os_version, g.model_id, g.backend].join("\u0000");

class TelemetryPage {
  constructor(root) {
    this.root = root;
  }

  async start() {
    this.summary = h("section", { class: "card telemetry-summary", "aria-labelledby": "groups-title" });
    this.regressions = h("section", { class: "telemetry-regressions", "aria-live": "polite" });
    this.detail = h("section", { class: "telemetry-detail", "aria-labelledby": "detail-title" });
    fill(this.root, h("div", { class: "page telemetry" },
      h("div", { class: "page-header" }, h("h1", {}, "Telemetry"),
        h("button", { class: "export-csv", onclick: () => exportCSV() }, "Export CSV")),
      h("p", { class: "muted" }, "Runs that ", h("code", {}, "runanywhere benchrunner"), " posted to ",
        h("code", {}, `${location.origin}/telemetry`), " (set BENCH_TELEMETRY_URL), or that a collector stored in the same database."),
      this.regressions, this.summary, this.detail));
    let body;
    try {
      body = await api("/telemetry/summary");
    } catch (error) {
      fill(this.summary, notice("Cannot read the telemetry", error.message, { error: true }));
      return;
    }
    if (body.groups.length === 0) {
      fill(this.summary, notice("No runs yet", "Run `runanywhere benchrunner` with BENCH_TELEMETRY_URL pointing here, and its run shows up on this page."));
      return;
    }
    this.groups = body.groups;
    this.showRegressions(body.regressions);
    this.showSummary(body.runs);
    this.select(this.groups[0]);
  }

  showRegressions(regressions) {
    if (regressions.length === 0) {
      fill(this.regressions, h("p", { class: "telemetry-ok" }, "No regressions: every group's latest runs are within 10 % of the runs before them."));
      return;
    }
    fill(this.regressions, h("div", { class: "notice error", role: "alert" }, h("strong", {}, `${regressions.length} regression${regressions.length === 1 ? "" : "s"}`),
      h("ul", {}, regressions.map((r) => h("li", { class: "regression" },
        `${r.device_model} · ${r.model_id} · ${r.backend}: ${r.metric === "fps" ? "fps" : "p95 latency"} ${number(r.baseline)} → ${number(r.latest)}`,
        ` (${r.change_percent} % worse; latest ${r.latest_runs} runs against ${r.baseline_runs} before)`)))));
  }

  showSummary(runs) {
    const header = ["Device", "OS", "Model", "Backend", "Runs", "fps (median)", "fps p25–p75", "p50 ms", "p95 ms", "Cold start ms", "Latest"];
    const rows = this.groups.map((g) => h("tr", { class: "group", tabindex: "0", "data-key": groupKey(g), onclick: () => this.select(g),
      onkeydown: (event) => { if (event.key === "Enter") this.select(g); } },
    h("td", {}, g.device_model), h("td", {}, g.os_version), h("td", {}, g.model_id), h("td", {}, g.backend), h("td", { class: "number" }, g.runs),
    h("td", { class: "number" }, number(g.fps_median)), h("td", { class: "number" }, `${number(g.fps_spread.p25)}–${number(g.fps_spread.p75)}`),
    h("td", { class: "number" }, number(g.latency_p50_median_ms, 2)), h("td", { class: "number" }, number(g.latency_p95_median_ms, 2)),
    h("td", { class: "number" }, number(g.cold_start_median_ms)), h("td", {}, when(g.latest))));
    fill(this.summary, h("h2", { id: "groups-title" }, `${runs} run${runs === 1 ? "" : "s"} in ${this.groups.length} group${this.groups.length === 1 ? "" : "s"}`),
      h("div", { class: "table-scroll" }, h("table", {}, h("thead", {}, h("tr", {}, header.map((name) => h("th", { scope: "col" }, name)))), h("tbody", {}, rows))));
  }

  async select(group) {
    for (const row of this.summary.querySelectorAll("tr.group")) row.setAttribute("aria-selected", String(row.dataset.key === groupKey(group)));
    const query = new URLSearchParams({ model_id: group.model_id, device_model: group.device_model, backend: group.backend, limit: "200" });
    let body;
    try {
      body = await api(`/telemetry/runs?${query}`);
    } catch (error) {
      fill(this.detail, notice("Cannot read the runs", error.message, { error: true }));
      return;
    }
    const runs = body.runs.filter((r) => r.metrics.os_version === group.os_version);
    const oldestFirst = [...runs].reverse();
    const metric = (name) => oldestFirst.map((r) => r.metrics[name]);
    fill(this.detail, h("h2", { id: "detail-title" }, `${group.model_id} on ${group.device_model} (${group.backend})`),
      h("div", { class: "chart-pair" },
        lineChart({ series: [{ label: "fps", values: metric("fps_avg"), color: "var(--accent)" }], xLabel: "runs, oldest to newest", yLabel: "Frames per second" }),
        lineChart({ series: [{ label: "p50", values: metric("latency_p50_ms"), color: "var(--accent)" }, { label: "p95", values: metric("latency_p95_ms"), color: "var(--red)" }],
          xLabel: "runs, oldest to newest", yLabel: "Frame latency (ms)" })),
      h("h3", {}, "Newest runs"),
      h("div", { class: "table-scroll" }, h("table", { class: "telemetry-runs" },
        h("thead", {}, h("tr", {}, ["Time", "Platform", "Frames", "fps", "min–max", "p50 ms", "p95 ms", "Thermal", "Run"].map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, runs.slice(0, 50).map((r) => h("tr", { class: "run" },
          h("td", {}, when(r.metrics.timestamp)), h("td", {}, r.platform), h("td", { class: "number" }, r.metrics.frames_processed),
          h("td", { class: "number" }, number(r.metrics.fps_avg)), h("td", { class: "number" }, `${number(r.metrics.fps_min)}–${number(r.metrics.fps_max)}`),
          h("td", { class: "number" }, number(r.metrics.latency_p50_ms, 2)), h("td", { class: "number" }, number(r.metrics.latency_p95_ms, 2)),
          h("td", {}, r.metrics.thermal_state), h("td", { title: r.metrics.run_id }, h("code", {}, r.metrics.run_id.slice(0, 8)))))))));
  }
}
