// Model downloads under way, kept outside any screen so that leaving the Models page does not
// stop them. Each is the server's pull stream (POST /api/models/{id}/pull, server-sent events).
// Cancel asks the server to stop the download (DELETE, answered once it has stopped, its
// partial file kept), so that Resume, a new pull, continues where it stopped.
import { api, events } from "../../lib/api.js";

const downloads = new Map();
const listeners = new Set();

/** Calls `listener(id, download)` whenever a download changes; returns what unsubscribes it. */
export function onChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * A model's download as last seen: `{running, progress, error, cancelled, loading, finished}`, where
 * `progress` is the server's last PullProgress; undefined when none started in this page.
 */
export function download(id) {
  return downloads.get(id);
}

function update(id, changes) {
  const next = { ...downloads.get(id), ...changes };
  downloads.set(id, next);
  for (const listener of listeners) listener(id, next);
}

/**
 * Starts (or resumes) downloading model `id`, then loads it when `thenLoad` (a language model
 * added with "Load it after the download"); resolves when it ends, however it ends. It is
 * `finished` once downloaded (and loaded, when asked).
 */
export async function start(id, { thenLoad = false } = {}) {
  if (downloads.get(id)?.running) return;
  const controller = new AbortController();
  update(id, { running: true, controller, error: null, cancelled: false, finished: false, loading: false });
  let done = false;
  try {
    for await (const { event, data } of events(`/api/models/${encodeURIComponent(id)}/pull`, { method: "POST", signal: controller.signal })) {
      if (event === "progress") update(id, { progress: data });
      else if (event === "done") done = true;
      else if (event === "cancelled") update(id, { cancelled: true });
      else if (event === "error") update(id, { error: data.error?.message ?? "The download failed" });
    }
    const ended = downloads.get(id);
    if (!done && !ended.error && !ended.cancelled) update(id, { error: "The server closed the download before it finished" });
  } catch (error) {
    if (error.name === "AbortError" || downloads.get(id).cancelled) update(id, { cancelled: true });
    else update(id, { error: error.message });
  }
  if (done && thenLoad) {
    update(id, { loading: true });
    try {
      await api(`/api/models/${encodeURIComponent(id)}/load`, { method: "POST" });
    } catch (error) {
      update(id, { error: `Downloaded, but it did not load: ${error.message}` });
    }
  }
  update(id, { running: false, controller: null, loading: false, finished: done });
}

/** Cancels model `id`'s download; its partial file stays for a resume. */
export async function cancel(id) {
  const download = downloads.get(id);
  if (!download?.running) return;
  update(id, { cancelled: true });
  try {
    await api(`/api/models/${encodeURIComponent(id)}/pull`, { method: "DELETE" });
  } catch {
    // It had just ended, or the server is gone: closing the stream is all that is left.
  }
  download.controller?.abort();
}

/** Forgets a download that ended (once its model is deleted or shown installed). */
export function forget(id) {
  if (!downloads.get(id)?.running) downloads.delete(id);
}
