// 16-bit little-endian mono PCM, as the server speaks it (`response_format: "pcm"`, realtime audio
// deltas, the samples of its WAV pieces): made playable, and put together as one WAV file.

/** An AudioBuffer of `bytes` (an even number of them) at `rate` samples a second. */
export function pcmBuffer(context, bytes, rate) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const buffer = context.createBuffer(1, bytes.length / 2, rate);
  const channel = buffer.getChannelData(0);
  for (let index = 0; index < channel.length; index++) channel[index] = view.getInt16(index * 2, true) / 0x8000;
  return buffer;
}

/** One WAV file (a 44-byte header) of the PCM `pieces`, in order, at `rate` samples a second. */
export function wavFile(pieces, rate) {
  const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const file = new Uint8Array(44 + length);
  const view = new DataView(file.buffer);
  const text = (at, value) => [...value].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  text(0, "RIFF"); view.setUint32(4, 36 + length, true); text(8, "WAVEfmt ");
  view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
  view.setUint32(24, rate, true); view.setUint32(28, rate * 2, true); view.setUint16(32, 2, true); view.setUint16(34, 16, true);
  text(36, "data"); view.setUint32(40, length, true);
  let at = 44;
  for (const piece of pieces) { file.set(piece, at); at += piece.length; }
  return file;
}
