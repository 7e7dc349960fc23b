// Recording from the microphone, where the browser allows it (a secure page: localhost or
// HTTPS) and the user agrees. What it records (WebM/Opus in Chromium) is decoded by the server.

/** Whether this page may ask for the microphone. */
export function canRecord() {
  return Boolean(window.isSecureContext && navigator.mediaDevices?.getUserMedia && window.MediaRecorder);
}

/** A button that records while pressed once and stops on the second press, then calls `done(file)`. */
export class Recorder {
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
