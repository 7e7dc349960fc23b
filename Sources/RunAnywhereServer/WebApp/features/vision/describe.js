// The "Describe an image" card: an image (chosen, dropped or pasted) and a question go to
// POST /api/vision/describe; the answer streams in, then its measurements (prompt tokens with
// the image's, image encoding time, first token, tokens per second). Stop ends it early.
import { events } from "../../lib/api.js";
import { fill, h, notice, seconds, toast } from "../../lib/dom.js";

/** The fixture scripts/setup writes: random weights, so its answers are noise. */
const FIXTURE = "smolvlm-fixture";

/** The card, for the installed vision-language models `models` ({model, installed} entries). */
export function describeCard(models) {
  const installed = models.filter((m) => m.installed);
  const picker = h("select", { "aria-label": "Vision-language model", name: "model" },
    installed.map((m) => h("option", { value: m.model.id }, m.model.name)));
  const fixtureNote = h("div", { class: "fixture-note" });
  const showFixtureNote = () => fill(fixtureNote, picker.value === FIXTURE
    ? notice("This model is a test fixture", "Its weights are random, so it reads the image but its answers are noise, not descriptions. Download SmolVLM 256M on the Models page for real ones.")
    : null);
  picker.addEventListener("change", showFixtureNote);
  showFixtureNote();

  const file = h("input", { type: "file", accept: "image/png,image/jpeg,image/gif,image/bmp", "aria-label": "Image", name: "image" });
  const preview = h("img", { class: "preview", alt: "", hidden: true });
  const drop = h("div", { class: "drop", tabindex: "0" }, h("span", { class: "muted" }, "Drop or paste an image here, or choose one: "), file, preview);
  const prompt = h("input", { type: "text", "aria-label": "Question", name: "prompt", value: "Describe this image." });
  const describe = h("button", { class: "primary describe", disabled: installed.length === 0 }, "Describe");
  const stop = h("button", { class: "stop", hidden: true }, "Stop");
  const output = h("div", { class: "description", "aria-live": "polite" });
  let image = null, controller = null, previewURL = null;

  const choose = (blob) => {
    if (!blob || !blob.type.startsWith("image/")) return toast("That is not an image", { error: true });
    image = blob;
    if (previewURL) URL.revokeObjectURL(previewURL);
    previewURL = URL.createObjectURL(blob);
    preview.src = previewURL;
    preview.hidden = false;
    preview.alt = blob.name ? `The image ${blob.name}` : "The pasted image";
  };
  file.addEventListener("change", () => choose(file.files[0]));
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    choose(event.dataTransfer.files[0]);
  });
  drop.addEventListener("paste", (event) => choose([...event.clipboardData.files][0]));

  const run = async () => {
    if (!image) return toast("Choose an image first", { error: true });
    if (!prompt.value.trim()) return toast("Ask something about the image", { error: true });
    controller = new AbortController();
    describe.disabled = true;
    stop.hidden = false;
    const answer = h("blockquote", { class: "answer" });
    const facts = h("p", { class: "muted timing" }, "Reading the image…");
    fill(output, answer, facts);
    const form = new FormData();
    form.append("file", image, image.name || "pasted.png");
    form.append("prompt", prompt.value.trim());
    form.append("model", picker.value);
    try {
      for await (const { event, data } of events("/api/vision/describe", { method: "POST", body: form, signal: controller.signal })) {
        if (event === "delta") {
          if (data.content) answer.append(data.content);
          facts.textContent = "Answering…";
        } else if (event === "done") {
          fill(facts, measurements(data));
        } else if (event === "error") {
          output.append(notice("The description failed", data.error?.message ?? "", { error: true }));
        }
      }
    } catch (error) {
      if (error.name === "AbortError") facts.textContent = "Stopped.";
      else fill(output, notice("The description failed", error.message, { error: true }));
    } finally {
      describe.disabled = installed.length === 0;
      stop.hidden = true;
      controller = null;
    }
  };
  describe.addEventListener("click", run);
  prompt.addEventListener("keydown", (event) => { if (event.key === "Enter") run(); });
  stop.addEventListener("click", () => controller?.abort());

  return h("section", { class: "card", "aria-labelledby": "image-to-text-title", "data-modality": "image-to-text" },
    h("h2", { id: "image-to-text-title" }, "Describe an image"),
    installed.length ? null : notice("No vision-language model is downloaded", "Download SmolVLM 256M (or 500M) on the Models page."),
    h("label", { class: "inline" }, "Model ", picker), fixtureNote, drop,
    h("div", { class: "row" }, prompt, describe, stop), output);
}

/** What a finished description measured. */
function measurements(result) {
  const parts = [
    `${result.promptTokens} prompt tokens (image included)`,
    result.imageEncodeTimeMs === null ? null : `image encoded in ${seconds(result.imageEncodeTimeMs / 1000)}`,
    result.timeToFirstTokenMs === null ? null : `first token after ${seconds(result.timeToFirstTokenMs / 1000)}`,
    `${result.completionTokens} tokens at ${result.tokensPerSecond.toFixed(1)} tok/s`,
    `${seconds(result.totalTimeMs / 1000)} in all`,
    result.stopReason === "length" ? "stopped at the token limit" : null,
  ];
  return parts.filter(Boolean).join(" · ");
}
