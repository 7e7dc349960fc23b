// What the server says about its machine (GET /api/system): hardware, frameworks, the kinds of
// work each can do, and the model categories. Read once per page load; it changes only when
// the server restarts.
import { api } from "./api.js";

let pending = null;

/** The server's SystemInfo. */
export function system() {
  pending ??= api("/api/system").catch((error) => {
    pending = null;
    throw error;
  });
  return pending;
}

/** A framework's display name ("llama.cpp" for "LlamaCpp"). */
export function frameworkName(info, framework) {
  return info.frameworks.find((f) => f.framework === framework)?.displayName ?? framework;
}

/** A category's display name. */
export function categoryName(info, category) {
  return info.categories.find((c) => c.category === category)?.displayName ?? category;
}

/** Why a framework cannot run here, or null when it can. */
export function unavailableReason(status) {
  return status.availability.unavailable?.reason ?? null;
}
