// Recording from the microphone, where the browser allows it (a secure page: localhost or
// HTTPS) and the user agrees. What it records (WebM/Opus in Chromium) is decoded by the server.
import { h, toast } from "../../lib/dom.js";

/** Whether this page may ask for the microphone. */
function canRecord() {
  return Boolean(window.isSecureContext && navigator.mediaDevices?.getUserMedia && window.MediaRecorder);
}

/**
 * A button that starts recording when pressed and stops on the second press, then calls
 * `done(file)`; labelled `idle`, then `recording`. Null where the page may not record.
 */
export function recordButton(idle, recording, done, { disabled = false } = {}) {
  if (!canRecord()) return null;
  const recorder = new Recorder(done);
  const button = h("button", { class: "record", disabled, onclick: async () => {
    try {
      if (recorder.recording) {
        recorder.stop();
        button.textContent = idle;
      } else {
        await recorder.start();
        button.textContent = recording;
      }
    } catch (error) {
      toast(`The microphone is not available: ${error.message}`, { error: true });
    }
  } }, idle);
  return button;
}

/** The microphone's recording, handed over as a File when it stops. */
class Recorder {
  constructor(done) {
    this.done = done;
    this.recorder = null;
  }

  get recording() {
    return this.recorder?.state === "recording";
  }

  async start() {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const chunks = [];
    this.recorder = new MediaRecorder(stream);
    this.recorder.addEventListener("dataavailable", (event) => chunks.push(event.data));
    this.recorder.addEventListener("stop", () => {
      for (const track of stream.getTracks()) track.stop();
      const type = this.recorder.mimeType || "audio/webm";
      const extension = type.includes("ogg") ? "ogg" : type.includes("mp4") ? "m4a" : "webm";
      this.done(new File(chunks, `recording.${extension}`, { type }));
    });
    this.recorder.start();
  }

  stop() {
    if (this.recording) this.recorder.stop();
  }
}
