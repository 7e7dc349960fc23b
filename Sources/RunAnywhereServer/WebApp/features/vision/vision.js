// The Vision screen. Describing images needs an image-to-text engine and generating them a
// text-to-image one; until one is in this build, the page says so with the SDK's own reason
// (GET /api/system), rather than offering what cannot run.
import { fill, h, notice } from "../../lib/dom.js";
import { system } from "../../lib/system.js";

/** Shows the Vision screen. */
export function mount(root) {
  const page = h("div", { class: "page vision" }, h("h1", {}, "Vision"));
  fill(root, page);
  system().then((info) => {
    for (const [modality, title] of [["image-to-text", "Describe an image"], ["text-to-image", "Generate an image"]]) {
      const status = info.modalities.find((m) => m.modality === modality);
      page.append(h("section", { class: "card", "aria-labelledby": `${modality}-title`, "data-modality": modality },
        h("h2", { id: `${modality}-title` }, title),
        status.reason
          ? notice(`Not available on this server`, status.reason)
          : notice("An engine is available", `${status.frameworks.join(", ")} can run ${modality} models; install one on the Models page.`)));
    }
  }).catch((error) => page.append(notice("Cannot read what this server runs", error.message, { error: true })));
}
