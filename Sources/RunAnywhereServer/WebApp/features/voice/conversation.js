// A live spoken conversation over the server's /v1/realtime (OpenAI's Realtime API): the
// microphone streams PCM16 at 24 kHz through an AudioWorklet, the server hears when you stop
// speaking (server VAD), writes your words, answers, and speaks the answer sentence by sentence;
// speaking over the answer stops it. No button to hold: press Start, talk, press Stop.
import { apiKey } from "../../lib/api.js";
import { fill, h, notice, toast } from "../../lib/dom.js";
import { pcmBuffer } from "./pcm.js";

const rate = 24000;

/** The conversation card, with the language model and voice pickers it uses. */
export function conversation({ llm, tts, ready }) {
  const log = h("div", { class: "conversation", "aria-live": "polite" });
  const status = h("p", { class: "muted converse-status" }, "Press Start and speak.");
  const card = h("section", { class: "card voice-card realtime", "aria-labelledby": "converse-title", "data-audio-chunks": "0" });
  let session = null;
  const button = h("button", { class: "primary converse", disabled: !ready || !canListen(), onclick: async () => {
    if (session) {
      session.stop();
      session = null;
      button.textContent = "Start";
      status.textContent = "Stopped.";
      return;
    }
    try {
      fill(log);
      session = await start({ model: llm.value, voice: tts.value, log, status, card });
      button.textContent = "Stop";
    } catch (error) {
      session = null;
      toast(`Cannot start the conversation: ${error.message}`, { error: true });
    }
  } }, "Start");
  fill(card, h("h2", { id: "converse-title" }, "Conversation"),
    ready ? null : notice("A conversation needs a speech-to-text model, a language model and a voice", "Download them on the Models page."),
    canListen() ? null : h("small", { class: "muted" }, "Listening needs a secure page (localhost or HTTPS) and a microphone."),
    h("div", { class: "row" }, h("label", { class: "inline" }, "Answer with", llm), h("label", { class: "inline" }, "Speak with", tts), button),
    status, log);
  return card;
}

function canListen() {
  return Boolean(window.isSecureContext && navigator.mediaDevices?.getUserMedia && window.AudioWorkletNode);
}

/** Opens the session and the microphone; returns what stops both. */
async function start({ model, voice, log, status, card }) {
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } });
  const context = new AudioContext({ sampleRate: rate });
  await context.audioWorklet.addModule(new URL("./microphone-worklet.js", import.meta.url));
  const url = new URL(`/v1/realtime?model=${encodeURIComponent(model)}`, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  const key = apiKey();
  // Browsers cannot set headers on a WebSocket: the key goes as OpenAI's subprotocol does.
  const socket = new WebSocket(url, key ? ["realtime", `openai-insecure-api-key.${key}`] : ["realtime"]);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", () => reject(new Error("the server refused the connection")), { once: true });
  });
  const player = new Player(context, card);
  const turns = new Turns(log);
  socket.addEventListener("message", (message) => {
    const event = JSON.parse(message.data);
    switch (event.type) {
      case "input_audio_buffer.speech_started":
        player.stop();  // you speak over the answer: it stops
        status.textContent = "Listening…";
        break;
      case "input_audio_buffer.speech_stopped": status.textContent = "Thinking…"; break;
      case "conversation.item.input_audio_transcription.completed": turns.user(event.item_id, event.transcript); break;
      case "response.output_audio_transcript.delta": turns.assistant(event.item_id, event.delta); status.textContent = "Answering…"; break;
      case "response.output_audio.delta": player.play(event.delta); break;
      case "response.done":
        if (event.response.status === "cancelled") turns.cut(event.response.output?.[0]?.id);
        status.textContent = "Listening…";
        break;
      case "error": toast(event.error.message, { error: true }); break;
    }
  });
  socket.addEventListener("close", () => { status.textContent = "The conversation ended."; });
  socket.send(JSON.stringify({ type: "session.update", session: { type: "realtime", output_modalities: ["audio"],
    audio: { input: { transcription: { model: "whisper-1" }, turn_detection: { type: "server_vad", silence_duration_ms: 600 } },
      output: { voice } } } }));
  const source = context.createMediaStreamSource(microphone);
  const tap = new AudioWorkletNode(context, "microphone-tap");
  tap.port.onmessage = ({ data }) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "input_audio_buffer.append", audio: pcm16Base64(data) }));
  };
  source.connect(tap);
  status.textContent = "Listening…";
  return {
    stop() {
      source.disconnect();
      for (const track of microphone.getTracks()) track.stop();
      socket.close();
      context.close();
    },
  };
}

/** Float samples as base64 PCM16, little-endian. */
function pcm16Base64(samples) {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  samples.forEach((sample, index) => view.setInt16(index * 2, Math.max(-1, Math.min(1, sample)) * 0x7fff, true));
  let text = "";
  for (let index = 0; index < bytes.length; index += 0x8000) text += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(text);
}

/** Plays the answer's audio deltas back to back; stop() silences what is queued. */
class Player {
  constructor(context, card) {
    this.context = context;
    this.card = card;
    this.next = 0;
    this.sources = new Set();
  }

  play(base64) {
    const buffer = pcmBuffer(this.context, Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)), rate);
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.context.destination);
    this.next = Math.max(this.next, this.context.currentTime);
    source.start(this.next);
    this.next += buffer.duration;
    this.sources.add(source);
    source.addEventListener("ended", () => this.sources.delete(source));
    this.card.dataset.audioChunks = String(Number(this.card.dataset.audioChunks) + 1);
  }

  stop() {
    for (const source of this.sources) source.stop();
    this.sources.clear();
    this.next = 0;
  }
}

/** The conversation's lines: what you said, and each answer as it is written. */
class Turns {
  constructor(log) {
    this.log = log;
    this.lines = new Map();
  }

  line(id, who) {
    if (!this.lines.has(id)) {
      const text = h("span", { class: "turn-text" });
      this.log.append(h("p", { class: `turn ${who}` }, h("strong", {}, who === "user" ? "You " : "Answer "), text));
      this.lines.set(id, text);
    }
    return this.lines.get(id);
  }

  user(id, transcript) { this.line(id, "user").textContent = transcript.trim() || "(nothing heard)"; }

  assistant(id, delta) { this.line(id, "assistant").append(delta); }

  cut(id) { if (this.lines.has(id)) this.lines.get(id).append(" …"); }
}
