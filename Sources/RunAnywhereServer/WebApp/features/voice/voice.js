// The Voice screen: a live spoken conversation (/v1/realtime); speech to text (a WAV or other audio file, or the microphone) with the
// transcript's segments and timings; text to speech with the Piper voice or eSpeak NG, played
// and downloadable; and one full voice turn (speech in → transcript → answer → speech out)
// with each stage's timing. It uses the server's OpenAI audio routes and /api/voice.
import { api, send } from "../../lib/api.js";
import { fill, h, notice, seconds, toast } from "../../lib/dom.js";
import { pcmBuffer, wavFile } from "./pcm.js";
import { recordButton } from "./recorder.js";
import { conversation } from "./conversation.js";
import { voiceTurn } from "./voice-turn.js";

/** Shows the Voice screen; returns what unmounts it. */
export function mount(root) {
  const page = h("div", { class: "page voice" }, h("h1", {}, "Voice"));
  fill(root, page);
  const urls = [];
  const closers = [];
  build(page, urls, closers);
  return () => {
    urls.forEach((url) => URL.revokeObjectURL(url));
    closers.forEach((close) => close());
  };
}

/** The installed models of a category, as a function that makes a picker of them (the first selected). */
async function picker(category, label, name) {
  const { models } = await api(`/api/models?category=${category}`);
  const installed = models.filter((m) => m.installed);
  const make = () => h("select", { "aria-label": label, name }, installed.map((m) => h("option", { value: m.model.id }, m.model.name)));
  make.count = installed.length;
  return make;
}

async function build(page, urls, closers) {
  let stt, tts, llm;
  try {
    [stt, tts, llm] = await Promise.all([picker("speech-recognition", "Speech-to-text model", "stt"), picker("speech-synthesis", "Voice", "voice"),
      picker("language", "Language model", "model")]);
  } catch (error) {
    page.append(notice("Cannot list the voice models", error.message, { error: true }));
    return;
  }
  page.append(conversation({ llm: llm(), tts: tts(), ready: stt.count > 0 && tts.count > 0 && llm.count > 0 }),
    transcription(stt(), stt.count > 0), speech(tts(), tts.count > 0, urls, closers),
    voiceTurn({ stt: stt(), tts: tts(), llm: llm(), ready: stt.count > 0 && tts.count > 0 && llm.count > 0, urls }));
}

function transcription(model, ready) {
  const file = h("input", { type: "file", accept: "audio/*,.wav,.mp3,.flac,.ogg,.webm", "aria-label": "Audio file", name: "audio" });
  const result = h("div", { class: "transcription", "aria-live": "polite" });
  const button = h("button", { class: "primary transcribe", disabled: !ready }, "Transcribe");
  const run = async (audio) => {
    button.disabled = true;
    fill(result, h("p", { class: "muted" }, `Transcribing ${audio.name}…`));
    const form = new FormData();
    form.append("file", audio, audio.name);
    form.append("model", model.value);
    form.append("response_format", "verbose_json");
    const started = performance.now();
    try {
      const transcript = await api("/v1/audio/transcriptions", { method: "POST", body: form });
      const elapsed = (performance.now() - started) / 1000;
      fill(result, h("blockquote", { class: "transcript" }, transcript.text.trim() || "(no speech)"),
        h("p", { class: "muted timing" }, `${seconds(transcript.duration)} of audio (${transcript.language}) transcribed in ${seconds(elapsed)} · ${(transcript.duration / elapsed).toFixed(1)}× real time`),
        transcript.segments.length ? h("table", { class: "segments" },
          h("thead", {}, h("tr", {}, h("th", {}, "Start"), h("th", {}, "End"), h("th", {}, "Text"))),
          h("tbody", {}, transcript.segments.map((s) => h("tr", {}, h("td", {}, `${s.start.toFixed(2)}s`), h("td", {}, `${s.end.toFixed(2)}s`), h("td", {}, s.text.trim()))))) : null);
    } catch (error) {
      fill(result, notice("Cannot transcribe this audio", error.message, { error: true }));
    } finally {
      button.disabled = !ready;
    }
  };
  button.addEventListener("click", () => file.files[0] ? run(file.files[0]) : toast("Choose an audio file first", { error: true }));
  const record = recordButton("Record", "Stop recording", run, { disabled: !ready })
    ?? h("small", { class: "muted" }, "Recording needs a secure page (localhost or HTTPS) and a microphone.");
  return h("section", { class: "card voice-card", "aria-labelledby": "stt-title" },
    h("h2", { id: "stt-title" }, "Speech to text"),
    ready ? null : notice("No speech-to-text model is installed", "Download one on the Models page."),
    h("div", { class: "row" }, model, file, button, record), result);
}

/**
 * The text-to-speech card. The speech comes as PCM (16-bit, 24 kHz) read piece by piece as the
 * server speaks it (the first sentence alone, then longer runs), each piece played after the one
 * before through an AudioContext, so that the first words sound before the rest is spoken; then
 * the whole is one WAV to play again and download. `closers` gets what silences it when the
 * screen is left.
 */
function speech(voice, ready, urls, closers) {
  const rate = 24000;
  const text = h("textarea", { rows: 3, "aria-label": "Text to speak", name: "input" }, "Hello! This is RunAnywhere, speaking on this machine.");
  const speed = h("input", { type: "number", min: "0.25", max: "4", step: "0.25", value: "1", "aria-label": "Speed", name: "speed" });
  const result = h("div", { class: "speech", "aria-live": "polite" });
  let context = null;
  closers.push(() => context?.close());  // leaving the screen silences what is still queued
  const button = h("button", { class: "primary speak", disabled: !ready, onclick: async () => {
    if (!text.value.trim()) return toast("Type something to speak", { error: true });
    button.disabled = true;
    context?.close();
    context = new AudioContext({ sampleRate: rate });
    const started = performance.now();
    const timing = h("p", { class: "muted timing" }, "Speaking…");
    fill(result, timing);
    try {
      const response = await send("/v1/audio/speech", { method: "POST", body: { model: voice.value, input: text.value, speed: Number(speed.value) || 1, response_format: "pcm" } });
      const reader = response.body.getReader();
      const pieces = [];
      let odd = new Uint8Array(0);  // a sample split between two reads
      let next = 0;
      let first = null;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const bytes = new Uint8Array(odd.length + value.length);
        bytes.set(odd);
        bytes.set(value, odd.length);
        const whole = bytes.length - (bytes.length % 2);
        odd = bytes.slice(whole);
        if (!whole) continue;
        const piece = bytes.slice(0, whole);
        pieces.push(piece);
        const source = context.createBufferSource();
        source.buffer = pcmBuffer(context, piece, rate);
        source.connect(context.destination);
        next = Math.max(next, context.currentTime);
        source.start(next);
        next += source.buffer.duration;
        result.dataset.pieces = String(pieces.length);
        if (first === null) {
          first = (performance.now() - started) / 1000;
          timing.textContent = `First words after ${seconds(first)}…`;
        }
      }
      const elapsed = (performance.now() - started) / 1000;
      const url = URL.createObjectURL(new Blob([wavFile(pieces, rate)], { type: "audio/wav" }));
      urls.push(url);
      const duration = pieces.reduce((sum, piece) => sum + piece.length, 0) / 2 / rate;
      const audio = h("audio", { controls: true, src: url, class: "spoken" });
      timing.textContent = `${seconds(duration)} of speech synthesized in ${seconds(elapsed)} · ${(duration / elapsed).toFixed(1)}× real time · first words after ${seconds(first ?? elapsed)}`;
      fill(result, h("div", { class: "row" }, audio, h("a", { class: "button", href: url, download: `${voice.value}.wav` }, "Download WAV")), timing);
    } catch (error) {
      fill(result, notice("Cannot speak this text", error.message, { error: true }));
    } finally {
      button.disabled = !ready;
    }
  } }, "Speak");
  return h("section", { class: "card voice-card", "aria-labelledby": "tts-title" },
    h("h2", { id: "tts-title" }, "Text to speech"),
    ready ? null : notice("No voice is installed", "Download one on the Models page."),
    text, h("div", { class: "row" }, voice, h("label", { class: "inline" }, "Speed", speed), button), result);
}
