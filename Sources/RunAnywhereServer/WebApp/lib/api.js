// The server's JSON and server-sent-events API, as the screens use it. Every failure becomes an
// APIError with the server's own message (or "the server is not answering").

/** An HTTP or network failure, with the message to show. */
export class APIError extends Error {
  constructor(status, message, code, param) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }
}

const keyName = "runanywhere.apiKey";

/** The API key this tab sends, when the server asks for one (kept for the session only). */
export function setAPIKey(key) {
  if (key) sessionStorage.setItem(keyName, key); else sessionStorage.removeItem(keyName);
}

/** The API key this tab sends, if it has one. */
export function apiKey() {
  return sessionStorage.getItem(keyName);
}

/**
 * Sends a request and returns the response itself (for downloads); throws APIError when it
 * fails, with the field the server blamed (`param`) when it names one. A FormData body goes as
 * multipart, anything else as JSON.
 */
export async function send(path, { method = "GET", body, signal, headers = {} } = {}) {
  const key = apiKey();
  const init = { method, signal, headers: { ...headers } };
  if (key) init.headers.Authorization = `Bearer ${key}`;
  if (body instanceof FormData) {
    init.body = body;  // the browser writes the multipart boundary
  } else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    window.dispatchEvent(new CustomEvent("server-gone"));
    throw new APIError(0, "The server is not answering. Is `runanywhere serve` still running?");
  }
  window.dispatchEvent(new CustomEvent("server-back"));
  if (response.ok) return response;
  let message = `${response.status} ${response.statusText}`;
  let code;
  let param;
  try {
    const payload = await response.json();
    message = payload.error?.message ?? message;
    code = payload.error?.code;
    param = payload.error?.param;
  } catch { /* not JSON: keep the status line */ }
  if (response.status === 401) window.dispatchEvent(new CustomEvent("api-key-needed"));
  throw new APIError(response.status, message, code, param);
}

/** Fetches a file the server offers as an attachment, with this tab's API key: `{name, blob}`,
 * the name from its Content-Disposition, else `fallback`. */
export async function attachment(path, fallback) {
  const response = await send(path);
  const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? fallback;
  return { name, blob: await response.blob() };
}

/** Sends a request and returns its JSON (null when the answer has no body, as 202 and 204 may). */
export async function api(path, options) {
  const text = await (await send(path, options)).text();
  return text ? JSON.parse(text) : null;
}


/**
 * Sends a request whose answer is server-sent events and yields each as {event, data}, data
 * parsed as JSON when it is. Aborting `options.signal` closes the stream.
 */
export async function* events(path, options) {
  const response = await send(path, options);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const parsed = parseEvent(block);
        if (parsed) yield parsed;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function parseEvent(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join("\n");
  try {
    return { event, data: JSON.parse(text) };
  } catch {
    return { event, data: text };
  }
}
