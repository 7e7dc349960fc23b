// One voice turn: speech in (a file or the microphone) → transcript → answer → speech out,
// streamed by POST /api/voice as each stage finishes, with each stage's timing.
import { events } from "../../lib/api.js";
import { fill, h, notice, seconds, toast } from "../../lib/dom.js";
import { wavFile } from "./pcm.js";
import { recordButton } from "./recorder.js";

/** The voice-turn card, with the pickers of the three models it uses. */
export function voiceTurn({ stt, tts, llm, ready, urls }) {
  const file = h("input", { type: "file", accept: "audio/*,.wav,.mp3,.flac,.ogg,.webm", "aria-label": "Spoken question", name: "turn-audio" });
  const prompt = h("input", { type: "text", "aria-label": "System prompt", placeholder: "System prompt (optional)", name: "systemPrompt" });
  const stages = h("ol", { class: "stages", "aria-live": "polite" });
  const button = h("button", { class: "primary run-turn", disabled: !ready }, "Ask");
  let controller = null;

  const run = async (audio) => {
    controller?.abort();
    controller = new AbortController();
    button.disabled = true;
    const heard = stage("Listening", "…");
    const transcript = stage("Transcript", "");
    const answer = stage("Answer", "");
    const spoken = stage("Spoken answer", "");
    const speech = spokenAnswer(urls);
    fill(stages, heard.element, transcript.element, answer.element, spoken.element);
    const form = new FormData();
    form.append("file", audio, audio.name);
    form.append("model", llm.value);
    form.append("voice", tts.value);
    form.append("stt", stt.value);
    if (prompt.value.trim()) form.append("systemPrompt", prompt.value.trim());
    try {
      for await (const { event, data } of events("/api/voice", { method: "POST", body: form, signal: controller.signal })) {
        if (event === "speech") heard.set(`${data.segments.length} stretch${data.segments.length === 1 ? "" : "es"} of speech`);
        else if (event === "nospeech") heard.set("No speech heard in this audio");
        else if (event === "transcript") transcript.set(data.text.trim());
        else if (event === "delta") answer.add(data.content);
        else if (event === "audio") {
          // Set once: a playing element taken out of the page would pause.
          if (!speech.player.isConnected) spoken.set(speech.player, speech.length);
          speech.add(data);
        } else if (event === "done") {
          const t = data.timings;
          heard.time(t.vadMs);
          transcript.time(t.sttMs);
          answer.time(t.llmMs, t.timeToFirstTokenMs === null ? "" : `first word after ${seconds(t.timeToFirstTokenMs / 1000)}`);
          speech.finish();
          spoken.time(t.ttsMs, t.timeToFirstAudioMs === null ? "" : `first words after ${seconds(t.timeToFirstAudioMs / 1000)}`);
          stages.append(h("li", { class: "total" }, h("strong", {}, "Total "), seconds(t.totalMs / 1000)));
        } else if (event === "error") {
          stages.append(h("li", {}, notice("The turn failed", data.error?.message ?? "", { error: true })));
        }
      }
    } catch (error) {
      if (error.name !== "AbortError") stages.append(h("li", {}, notice("The turn failed", error.message, { error: true })));
    } finally {
      button.disabled = !ready;
    }
  };
  button.addEventListener("click", () => file.files[0] ? run(file.files[0]) : toast("Choose or record what to ask first", { error: true }));
  const record = recordButton("Speak", "Stop and ask", run, { disabled: !ready });
  return h("section", { class: "card voice-card", "aria-labelledby": "turn-title" },
    h("h2", { id: "turn-title" }, "Voice turn"),
    ready ? null : notice("A voice turn needs a speech-to-text model, a language model and a voice", "Download them on the Models page."),
    h("div", { class: "row" }, h("label", { class: "inline" }, "Hear with", stt), h("label", { class: "inline" }, "Answer with", llm), h("label", { class: "inline" }, "Speak with", tts)),
    h("div", { class: "row" }, file, prompt, button, record), stages);
}

/**
 * The spoken answer, which comes as WAV pieces while the model writes (its first phrase, then each
 * sentence): the pieces play in turn as they come, and once they have, the player holds the whole
 * answer (the pieces' samples under one header) to play again.
 */
function spokenAnswer(urls) {
  const player = h("audio", { controls: true, class: "spoken" });
  const length = h("span", { class: "muted" });
  const queue = [];
  const samples = [];
  let rate = 0;
  let whole = null;
  const idle = () => !player.getAttribute("src") || player.ended;
  const next = () => {
    if (queue.length) {
      player.src = queue.shift();
      player.play().catch(() => { /* the user presses play */ });
    } else if (whole) {
      player.src = whole;
      whole = null;
    }
  };
  player.addEventListener("ended", next);
  const url = (bytes) => {
    const made = URL.createObjectURL(new Blob([bytes], { type: "audio/wav" }));
    urls.push(made);
    return made;
  };
  return {
    player,
    length,
    add(data) {
      const bytes = Uint8Array.from(atob(data.data), (c) => c.charCodeAt(0));
      samples.push(bytes.subarray(44));  // the server's WAV header is 44 bytes
      rate = data.sampleRate;
      length.textContent = ` ${seconds(samples.reduce((sum, piece) => sum + piece.length, 0) / 2 / rate)}`;
      queue.push(url(bytes));
      if (idle()) next();
    },
    finish() {
      if (!samples.length) return;
      whole = url(wavFile(samples, rate));
      if (idle()) next();
    },
  };
}

/** One stage of the turn: its name, what it produced, and how long it took. */
function stage(name, initial) {
  const body = h("span", { class: "stage-body" }, initial);
  const timing = h("span", { class: "muted stage-time" });
  const element = h("li", { class: "stage", "data-stage": name }, h("strong", {}, name), " ", timing, h("div", {}, body));
  return {
    element,
    set: (...content) => fill(body, ...content),
    add: (text) => body.append(text),
    time: (ms, extra = "") => {
      if (ms !== null && ms !== undefined) timing.textContent = `${seconds(ms / 1000)}${extra ? ` · ${extra}` : ""}`;
    },
  };
}
