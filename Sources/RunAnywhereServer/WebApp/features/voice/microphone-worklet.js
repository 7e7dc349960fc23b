// Runs on the audio thread: hands each block of microphone samples (Float32, at the context's
// rate) to the page, which sends them to the realtime session.
class MicrophoneTap extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0]?.[0];
    if (channel?.length) this.port.postMessage(channel.slice(0));
    return true;
  }
}

registerProcessor("microphone-tap", MicrophoneTap);
