// The Benchmarks dashboard (spec benchmarks.md 2.9.1): the device, category chips with their
// downloaded models, Run All and Run Selected, the live progress of the run with Cancel, the
// runs' tokens/second and latency across runs, and the history, newest first, with Clear All.
// The run belongs to the server: leaving or reloading the page does not stop it, and the page
// shows it again from its start (GET /api/benchmarks/current replays its events).
import { api, APIError, events } from "../../lib/api.js";
import { lineChart } from "../../lib/chart.js";
import { bytes, fill, h, notice, seconds, toast, when } from "../../lib/dom.js";
import { system } from "../../lib/system.js";
import { llmSummary, statusBadge } from "./results.js";

const selectionKey = "runanywhere.benchmarks.categories";

/** Shows the dashboard; returns what unmounts it. */
export function mount(root) {
  const screen = new Dashboard(root);
  screen.start();
  return () => screen.close();
}

class Dashboard {
  constructor(root) {
    this.root = root;
    this.controller = null;
    this.selected = new Set(JSON.parse(localStorage.getItem(selectionKey) ?? "[]"));
  }

  async start() {
    this.device = h("section", { class: "device", "aria-labelledby": "device-title" });
    this.controls = h("section", { class: "card run-controls", "aria-label": "Run benchmarks" });
    this.progress = h("section", { class: "card run-progress", hidden: true, "aria-labelledby": "progress-title", "aria-live": "polite" });
    this.charts = h("section", { class: "run-charts", "aria-label": "Across runs" });
    this.history = h("section", { "aria-labelledby": "history-title" });
    this.clear = h("button", { class: "danger clear-all", onclick: () => this.clearAll() }, "Clear All");
    fill(this.root, h("div", { class: "page benchmarks" },
      h("div", { class: "page-header" }, h("h1", {}, "Benchmarks"), this.clear),
      this.device, this.controls, this.progress, this.charts, this.history));
    system().then((info) => this.showDevice(info)).catch((error) => fill(this.device, notice("Cannot read the device", error.message, { error: true })));
    const state = await this.load();
    if (state?.running) this.follow();
  }

  close() {
    this.controller?.abort();  // stops listening; the run goes on
    this.controller = null;
  }

  async load() {
    try {
      const state = await api("/api/benchmarks");
      this.categories = state.categories;
      this.showControls(state.running);
      this.showHistory(state.runs);
      return state;
    } catch (error) {
      fill(this.history, notice("Cannot read the benchmark runs", error.message, { error: true }));
      return null;
    }
  }

  showDevice(info) {
    const hw = info.hardware;
    const cards = [["Device", info.hostname], ["Chip", `${hw.cpuModel} · ${hw.cores} cores`], ["Memory", bytes(hw.totalMemoryBytes)],
      ["System", hw.operatingSystem], ["SDK", info.sdkVersion]];
    fill(this.device, h("h2", { id: "device-title" }, "This device"),
      h("div", { class: "cards" }, cards.map(([name, value]) => h("div", { class: "card metric", "data-device": name }, h("strong", {}, value), h("span", {}, name)))));
  }

  showControls(running) {
    const chips = this.categories.map((c) => {
      const pressed = this.selected.has(c.category);
      return h("button", { class: `chip${c.models.length === 0 ? " empty" : ""}`, "aria-pressed": String(pressed), "data-category": c.category,
        title: c.models.length ? c.models.join(", ") : "No downloaded model", onclick: () => this.toggle(c.category) },
      c.displayName, h("small", {}, c.models.length ? ` ${c.models.length}` : " –"));
    });
    this.repetitions ??= h("input", { type: "number", min: "1", max: "20", step: "1", value: "3", name: "repetitions", "aria-label": "Repetitions" });
    const chosen = this.selected.size ? this.categories.filter((c) => this.selected.has(c.category)) : this.categories;
    const missing = chosen.filter((c) => c.models.length === 0);
    fill(this.controls,
      h("div", { class: "chips", role: "group", "aria-label": "Categories" }, chips),
      h("div", { class: "row" },
        h("button", { class: "primary run-all", disabled: running, onclick: () => this.run([]) }, "Run All"),
        h("button", { class: "run-selected", disabled: running || this.selected.size === 0, onclick: () => this.run([...this.selected]) }, "Run Selected"),
        h("label", { class: "inline" }, "Repetitions", this.repetitions)),
      missing.length ? h("ul", { class: "warnings" }, missing.map((c) => h("li", { class: "warning", "data-category": c.category },
        `${c.displayName}: no downloaded model, so ${this.selected.size ? "it" : "Run All"} will skip it.`))) : null);
  }

  toggle(category) {
    if (this.selected.has(category)) this.selected.delete(category); else this.selected.add(category);
    localStorage.setItem(selectionKey, JSON.stringify([...this.selected]));
    this.showControls(Boolean(this.controller));
  }

  async run(categories) {
    const repetitions = Number(this.repetitions.value);
    if (!this.repetitions.reportValidity()) return;
    try {
      await api("/api/benchmarks", { method: "POST", body: { categories, repetitions } });
    } catch (error) {
      if (!(error instanceof APIError && error.status === 409)) return toast(error.message, { error: true });
      toast("A run is already going; showing it");
    }
    this.follow();
  }

  /** Shows the run under way from its start, until it ends or the page leaves. */
  async follow() {
    if (this.controller) return;
    this.controller = new AbortController();
    this.showControls(true);
    const scenario = h("p", { class: "scenario" }, "Starting…");
    const bar = h("progress", { max: "1", value: "0", "aria-label": "Benchmark progress" });
    const count = h("p", { class: "count muted" });
    const skipped = h("ul", { class: "warnings" });
    this.progress.hidden = false;
    fill(this.progress, h("h2", { id: "progress-title" }, "Running Benchmarks"), scenario, bar, count, skipped,
      h("button", { class: "danger cancel", onclick: () => this.cancel() }, "Cancel"));
    let finished = null;
    let completed = 0;
    let total = 0;
    const show = () => {
      count.textContent = `${completed} / ${total}`;
      bar.value = total ? completed / total : 0;
    };
    try {
      for await (const { event, data } of events("/api/benchmarks/current", { signal: this.controller.signal })) {
        if (event === "progress") {
          scenario.textContent = data.currentScenario;
          ({ completedCount: completed, totalCount: total } = data);
          show();
        } else if (event === "result") {
          completed = Math.min(completed + 1, total);
          show();
        } else if (event === "skipped") {
          skipped.append(h("li", { class: "warning", "data-category": data.category }, data.reason));
        } else if (event === "done") {
          finished = data;
        }
      }
    } catch (error) {
      if (error.name === "AbortError") return;
      toast(error.message, { error: true });
    }
    this.controller = null;
    this.progress.hidden = true;
    if (finished) toast(`Benchmark run ${finished.status}: ${finished.results.length} result${finished.results.length === 1 ? "" : "s"}`);
    await this.load();
  }

  async cancel() {
    try {
      await api("/api/benchmarks/current", { method: "DELETE" });
    } catch (error) {
      toast(error.message, { error: true });
    }
  }

  showHistory(runs) {
    this.clear.disabled = runs.length === 0;
    this.showCharts(runs);
    fill(this.history, h("h2", { id: "history-title" }, "Past runs"),
      runs.length === 0 ? notice("No runs yet", "Pick categories, or none for all, and press Run All.")
        : h("ul", { class: "runs" }, runs.map((run) => h("li", { class: "run", "data-run": run.id },
          h("a", { href: `#/benchmarks/${encodeURIComponent(run.id)}` },
            h("strong", {}, `${when(run.startedAt)} · ${new Date(run.startedAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`),
            h("span", { class: "muted" }, ` ${seconds(durationOf(run))} · ${run.results.length} result${run.results.length === 1 ? "" : "s"} `),
            statusBadge(run.status))))));
  }

  /** Tokens/second and end-to-end latency of the LLM results, averaged per run, oldest first. */
  showCharts(runs) {
    const points = runs.slice(0, 20).reverse().map(llmSummary).filter((p) => p !== null);
    if (points.length === 0) {
      fill(this.charts);
      return;
    }
    fill(this.charts, h("h2", {}, "Across runs (LLM)"), h("div", { class: "chart-pair" },
      lineChart({ series: [{ label: "tok/s", values: points.map((p) => p.tokensPerSecond), color: "var(--accent)" }], xLabel: "run", yLabel: "Tokens per second" }),
      lineChart({ series: [{ label: "latency", values: points.map((p) => p.latencyMs), color: "var(--orange)" }], xLabel: "run", yLabel: "End-to-end latency (ms)" })));
  }

  async clearAll() {
    if (!confirm("Delete every saved benchmark run? This cannot be undone.")) return;
    try {
      await api("/api/benchmarks", { method: "DELETE" });
      toast("Benchmark history cleared");
      await this.load();
    } catch (error) {
      toast(error.message, { error: true });
    }
  }
}

function durationOf(run) {
  return run.completedAt ? (new Date(run.completedAt) - new Date(run.startedAt)) / 1000 : null;
}
