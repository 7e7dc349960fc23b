// The Vision screen: describing an image with a vision-language model (describe.js) and
// generating one with a diffusion model (generate.js). A card whose engine this server lacks says
// so with the SDK's own reason (GET /api/system) rather than offering what cannot run.
import { api } from "../../lib/api.js";
import { fill, h, notice } from "../../lib/dom.js";
import { system } from "../../lib/system.js";
import { describeCard } from "./describe.js";
import { generateCard } from "./generate.js";

/** Shows the Vision screen. */
export function mount(root) {
  const page = h("div", { class: "page vision" }, h("h1", {}, "Vision"));
  fill(root, page);
  Promise.all([system(), api("/api/models?category=multimodal"), api("/api/models?category=image-generation")]).then(([info, readers, drawers]) => {
    const reading = info.modalities.find((m) => m.modality === "image-to-text");
    page.append(reading.reason ? unavailable("image-to-text", "Describe an image", reading.reason) : describeCard(readers.models));
    const drawing = info.modalities.find((m) => m.modality === "text-to-image");
    page.append(drawing.reason ? unavailable("text-to-image", "Generate an image", drawing.reason) : generateCard(drawers.models));
  }).catch((error) => page.append(notice("Cannot read what this server runs", error.message, { error: true })));
}

function unavailable(modality, title, reason) {
  return h("section", { class: "card", "aria-labelledby": `${modality}-title`, "data-modality": modality },
    h("h2", { id: `${modality}-title` }, title), notice("Not available on this server", reason));
}
