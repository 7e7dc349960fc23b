// Line charts drawn as SVG: no library, the page works offline.

const svgNS = "http://www.w3.org/2000/svg";

function node(tag, attributes = {}, text) {
  const element = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * A line chart of `series` ([{label, values: [number], color}]) over a shared x axis, with the
 * y axis from 0 to the largest value; `xLabel` and `yLabel` name the axes for screen readers too.
 */
export function lineChart({ series, xLabel, yLabel, height = 180 }) {
  const width = 560;
  const pad = { left: 44, right: 12, top: 12, bottom: 28 };
  const all = series.flatMap((s) => s.values).filter((v) => Number.isFinite(v));
  const count = Math.max(...series.map((s) => s.values.length), 0);
  const figure = document.createElement("figure");
  figure.className = "chart";
  const title = document.createElement("div");
  title.className = "chart-title";
  title.textContent = yLabel;
  figure.append(title);
  const svg = node("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${yLabel} by ${xLabel}` });
  figure.append(svg);
  if (all.length === 0) {
    svg.append(node("text", { x: width / 2, y: height / 2, "text-anchor": "middle", class: "chart-empty" }, "No data yet"));
    return figure;
  }
  const top = niceCeiling(Math.max(...all));
  const x = (i) => pad.left + (count <= 1 ? 0.5 : i / (count - 1)) * (width - pad.left - pad.right);
  const y = (v) => height - pad.bottom - (v / top) * (height - pad.top - pad.bottom);
  for (let step = 0; step <= 4; step++) {
    const value = (top * step) / 4;
    svg.append(node("line", { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value), class: "chart-grid" }));
    svg.append(node("text", { x: pad.left - 6, y: y(value) + 4, "text-anchor": "end", class: "chart-tick" }, formatTick(value)));
  }
  svg.append(node("text", { x: width / 2, y: height - 6, "text-anchor": "middle", class: "chart-tick" }, xLabel));
  for (const s of series) {
    const points = s.values.map((v, i) => (Number.isFinite(v) ? `${x(i).toFixed(1)},${y(v).toFixed(1)}` : null)).filter(Boolean);
    if (points.length === 1) svg.append(node("circle", { cx: points[0].split(",")[0], cy: points[0].split(",")[1], r: 3, fill: s.color }));
    svg.append(node("polyline", { points: points.join(" "), fill: "none", stroke: s.color, "stroke-width": 2, "stroke-linejoin": "round" }));
  }
  if (series.length > 1) {
    const legend = document.createElement("figcaption");
    legend.className = "chart-legend";
    for (const s of series) {
      const item = document.createElement("span");
      item.innerHTML = `<i style="background:${s.color}"></i>`;
      item.append(s.label);
      legend.append(item);
    }
    figure.append(legend);
  }
  return figure;
}

function niceCeiling(value) {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((n) => n >= value);
}

function formatTick(value) {
  return value >= 100 ? Math.round(value) : Number(value.toFixed(value >= 10 ? 0 : 1));
}
