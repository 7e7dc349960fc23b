// The "Generate an image" card: a prompt and the options go to POST /api/vision/imagine; each
// denoising step moves the progress bar (step n of N, elapsed, time to go), then the image shows
// with its measurements and a download link. Stop ends it at the next step.
import { events } from "../../lib/api.js";
import { fill, h, notice, seconds, toast } from "../../lib/dom.js";

/** The fixture scripts/setup writes: random weights, so its images are noise. */
const FIXTURE = "sd-fixture";

/** The card, for the image-generation models `models` ({model, installed} entries). */
export function generateCard(models) {
  const installed = models.filter((m) => m.installed);
  const picker = h("select", { "aria-label": "Image-generation model", name: "model" },
    installed.map((m) => h("option", { value: m.model.id }, m.model.name)));
  const fixtureNote = h("div", { class: "fixture-note" });
  const showFixtureNote = () => fill(fixtureNote, picker.value === FIXTURE
    ? notice("This model is a test fixture", "Its weights are random, so it draws noise, not the prompt. Download Stable Diffusion 1.5 on the Models page for real images.")
    : null);
  picker.addEventListener("change", showFixtureNote);
  showFixtureNote();

  const prompt = h("input", { type: "text", "aria-label": "Prompt", name: "prompt", value: "A red circle on a white background" });
  const negative = h("input", { type: "text", "aria-label": "Negative prompt", name: "negativePrompt", placeholder: "What the image should not show" });
  const number = (name, label, value, attributes) =>
    h("label", { class: "inline" }, `${label} `, h("input", { type: "number", name, "aria-label": label, value, ...attributes }));
  const fields = h("div", { class: "row options" },
    number("width", "Width", "512", { min: "64", max: "2048", step: "8" }), number("height", "Height", "512", { min: "64", max: "2048", step: "8" }),
    number("steps", "Steps", "20", { min: "1", max: "150" }), number("guidanceScale", "Guidance", "7.5", { min: "0", max: "30", step: "0.5" }),
    number("seed", "Seed", "", { min: "-1", placeholder: "random" }));
  const generate = h("button", { class: "primary generate", disabled: installed.length === 0 }, "Generate");
  const stop = h("button", { class: "stop", hidden: true }, "Stop");
  const output = h("div", { class: "drawing", "aria-live": "polite" });
  let controller = null;

  const value = (name) => fields.querySelector(`input[name=${name}]`).value.trim();
  const run = async () => {
    if (!prompt.value.trim()) return toast("Say what the image shows", { error: true });
    const body = { prompt: prompt.value.trim(), model: picker.value };
    for (const name of ["width", "height", "steps", "guidanceScale", "seed"]) {
      if (value(name) !== "") body[name] = Number(value(name));
    }
    if (negative.value.trim()) body.negativePrompt = negative.value.trim();
    controller = new AbortController();
    generate.disabled = true;
    stop.hidden = false;
    const bar = h("progress", { max: "1", value: "0", "aria-label": "Progress" });
    const status = h("p", { class: "muted timing" }, "Reading the prompt…");
    fill(output, bar, status);
    try {
      const request = { method: "POST", body, signal: controller.signal };
      for await (const { event, data } of events("/api/vision/imagine", request)) {
        if (event === "progress") {
          bar.value = data.progress;
          const eta = data.etaMs === null ? "" : `, about ${seconds(data.etaMs / 1000)} to go`;
          status.textContent = `Step ${data.currentStep} of ${data.totalSteps} · ${seconds(data.elapsedMs / 1000)}${eta}`;
        } else if (event === "done") {
          const url = `data:image/png;base64,${data.imageData}`;
          const picture = h("img", { class: "generated", src: url, alt: `Generated: ${body.prompt}`, width: data.width, height: data.height });
          const link = h("a", { class: "download-image", href: url, download: `runanywhere-${data.seedUsed}.png` }, "Download PNG");
          fill(output, picture, h("p", { class: "muted timing" }, measurements(data), " · ", link));
        } else if (event === "error") {
          fill(output, notice("The image failed", data.error?.message ?? "", { error: true }));
        }
      }
    } catch (error) {
      if (error.name === "AbortError") status.textContent = "Stopped.";
      else fill(output, notice("The image failed", error.message, { error: true }));
    } finally {
      generate.disabled = installed.length === 0;
      stop.hidden = true;
      controller = null;
    }
  };
  generate.addEventListener("click", run);
  prompt.addEventListener("keydown", (event) => { if (event.key === "Enter") run(); });
  stop.addEventListener("click", () => controller?.abort());

  return h("section", { class: "card", "aria-labelledby": "text-to-image-title", "data-modality": "text-to-image" },
    h("h2", { id: "text-to-image-title" }, "Generate an image"),
    installed.length ? null : notice("No image-generation model is downloaded", "Download Stable Diffusion 1.5 on the Models page (1.8 GB)."),
    h("label", { class: "inline" }, "Model ", picker), fixtureNote,
    h("div", { class: "row" }, prompt, generate, stop), h("div", { class: "row" }, negative), fields, output);
}

/** What a finished image measured. */
function measurements(result) {
  return `${result.width}×${result.height} · ${result.steps} steps · seed ${result.seedUsed} · ${seconds(result.generationTimeMs / 1000)}`;
}
