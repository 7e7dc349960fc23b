// Small helpers the screens share: building elements, formatting numbers, telling the user.

/**
 * Creates an element: `h("button", {class: "primary", onclick}, "Send")`. Attributes starting
 * with "on" become listeners; `null`, `undefined` and `false` children and attributes are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (name in element && typeof value !== "string") element[name] = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** "1.2s", "340ms". */
export function seconds(value) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  return value < 1 ? `${Math.round(value * 1000)}ms` : `${value.toFixed(1)}s`;
}

/** "45 tok/s". */
export function rate(value) {
  return value === null || value === undefined ? "–" : `${value >= 10 ? Math.round(value) : value.toFixed(1)} tok/s`;
}

/** "1.2 GB", "340 KB": bytes in decimal units, as the CLI writes them. */
export function bytes(value) {
  if (value === null || value === undefined) return "–";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let amount = value;
  let unit = 0;
  while (amount >= 1000 && unit < units.length - 1) {
    amount /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? amount : amount.toFixed(amount >= 100 ? 0 : 1)} ${units[unit]}`;
}

/** A date as the user's locale writes it, short. */
export function when(iso) {
  const date = new Date(iso);
  const today = new Date();
  return date.toDateString() === today.toDateString()
    ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString([], { month: "short", day: "numeric", year: date.getFullYear() === today.getFullYear() ? undefined : "numeric" });
}

/** Shows a message for a few seconds; errors stay until dismissed. */
export function toast(message, { error = false } = {}) {
  const item = h("div", { class: `toast${error ? " error" : ""}`, role: error ? "alert" : "status" }, h("span", {}, message),
    h("button", { class: "icon", "aria-label": "Dismiss", onclick: () => item.remove() }, "×"));
  document.getElementById("toasts").append(item);
  if (!error) setTimeout(() => item.remove(), 4000);
}

/** Saves `content` as a file named `name`. */
export function download(name, content, type) {
  const url = URL.createObjectURL(content instanceof Blob ? content : new Blob([content], { type }));
  const link = h("a", { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** An empty-state or error panel. */
export function notice(title, detail, { error = false } = {}) {
  return h("div", { class: `notice${error ? " error" : ""}`, role: error ? "alert" : null },
    h("strong", {}, title), detail ? h("p", {}, detail) : null);
}
