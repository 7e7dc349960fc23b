import Foundation
import Testing

@testable import RunAnywhere

@Suite struct AudioTests {
    /// A WAV file with the given format code, bits, channels and interleaved sample bytes.
    func wav(code: UInt16, bits: UInt16, channels: UInt16, rate: UInt32, payload: [UInt8], extensible: Bool = false) -> Data {
        var out = Data("RIFF".utf8)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        let fmtSize: UInt32 = extensible ? 40 : 16
        u32(4 + 8 + fmtSize + 8 + UInt32(payload.count))
        out.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(fmtSize)
        u16(extensible ? 0xFFFE : code)
        u16(channels)
        u32(rate)
        u32(rate * UInt32(channels) * UInt32(bits / 8))
        u16(channels * bits / 8)
        u16(bits)
        if extensible {
            u16(22)
            u16(bits)
            u32(0)
            u16(code)
            out.append(contentsOf: [UInt8](repeating: 0, count: 14))
        }
        out.append(contentsOf: Array("LIST".utf8))
        u32(3)
        out.append(contentsOf: [1, 2, 3, 0])  // an odd-sized chunk to skip
        out.append(contentsOf: Array("data".utf8))
        u32(UInt32(payload.count))
        out.append(contentsOf: payload)
        return out
    }

    func bytes<T: FixedWidthInteger>(_ values: [T]) -> [UInt8] { values.flatMap { v in withUnsafeBytes(of: v.littleEndian, Array.init) } }

    @Test func readsEveryCommonEncodingAndMixesChannels() throws {
        let int16 = try WAVCodec.decode(
            wav(code: 1, bits: 16, channels: 2, rate: 44_100, payload: bytes([Int16(16384), Int16(-16384), Int16(8192), Int16(8192)])),
            name: "s16")
        #expect(int16.sampleRate == 44_100 && int16.samples == [0, 0.25])
        let int8 = try WAVCodec.decode(wav(code: 1, bits: 8, channels: 1, rate: 8_000, payload: [128, 192, 64]), name: "u8")
        #expect(int8.samples == [0, 0.5, -0.5])
        let int24 = try WAVCodec.decode(
            wav(code: 1, bits: 24, channels: 1, rate: 16_000, payload: [0x00, 0x00, 0x40, 0x00, 0x00, 0xC0]), name: "s24")
        #expect(int24.samples == [0.5, -0.5])
        let int32 = try WAVCodec.decode(wav(code: 1, bits: 32, channels: 1, rate: 16_000, payload: bytes([Int32.min / 2])), name: "s32")
        #expect(int32.samples == [-0.5])
        let float32 = try WAVCodec.decode(
            wav(code: 3, bits: 32, channels: 1, rate: 48_000, payload: bytes([Float(0.75).bitPattern])), name: "f32")
        #expect(float32.samples == [0.75])
        let float64 = try WAVCodec.decode(
            wav(code: 3, bits: 64, channels: 1, rate: 48_000, payload: bytes([Double(-0.25).bitPattern])), name: "f64")
        #expect(float64.samples == [-0.25])
        let extensible = try WAVCodec.decode(
            wav(code: 1, bits: 16, channels: 1, rate: 16_000, payload: bytes([Int16(-32768)]), extensible: true), name: "ext")
        #expect(extensible.samples == [-1])
    }

    @Test func badAudioIsAClearError() throws {
        let cases: [(Data, String)] = [
            (Data(), "empty"),
            (Data("ID3 this is an mp3".utf8), "RIFF/WAVE"),
            (wav(code: 7, bits: 8, channels: 1, rate: 8_000, payload: [1, 2]), "µ-law"),
            (wav(code: 0x55, bits: 16, channels: 1, rate: 8_000, payload: [1, 2]), "MP3"),
            (wav(code: 1, bits: 12, channels: 1, rate: 8_000, payload: [1, 2]), "12-bit"),
            (wav(code: 1, bits: 16, channels: 1, rate: 8_000, payload: []), "no audio"),
            // 76 KB at 1 Hz would be ten hours: 2.4 GB once resampled for Whisper.
            (wav(code: 1, bits: 16, channels: 1, rate: 1, payload: [1, 2]), "declares 1 Hz"),
        ]
        for (data, fragment) in cases {
            let error = try #require(throws: SDKError.self, "\(fragment)") { try WAVCodec.decode(data, name: "x.wav") }
            #expect(error.message.contains(fragment), "\(error.message)")
        }
        #expect((try #require(throws: SDKError.self) { try AudioSamples(pcm16: Data([1, 2, 3])) }).message.contains("even number"))
        #expect((try #require(throws: SDKError.self) { try AudioSamples(pcm16: Data()) }).code == .emptyInput)
        // Whisper hears NaN as "!!!!": samples that are not numbers are refused, from a file or not.
        let nan = wav(code: 3, bits: 32, channels: 1, rate: 16_000, payload: [0, 0, 0xC0, 0x7F, 0, 0, 0x80, 0x3F])
        #expect((try #require(throws: SDKError.self) { try WAVCodec.decode(nan, name: "x.wav") }).message.contains("not numbers"))
        #expect(throws: SDKError.self) { try AudioSamples(samples: [0, .infinity], sampleRate: 16_000) }
    }

    @Test func pcmAndWavRoundTrip() throws {
        let audio = try AudioSamples(samples: [0, 0.5, -0.5, 1, -1], sampleRate: 22_050)
        let back = try AudioSamples(pcm16: audio.pcm16Data, sampleRate: 22_050)
        #expect(zip(back.samples, audio.samples).allSatisfy { abs($0 - $1) < 1.0 / 16_000 })
        let wav = try WAVCodec.decode(audio.wavData, name: "round")
        #expect(wav.sampleRate == 22_050 && wav.samples == back.samples)
    }

    func tone(_ frequency: Double, rate: Int, seconds: Double = 1) throws -> AudioSamples {
        try AudioSamples(
            samples: (0..<Int(Double(rate) * seconds)).map { Float(0.5 * sin(2 * .pi * frequency * Double($0) / Double(rate))) },
            sampleRate: rate)
    }

    func rms(_ samples: ArraySlice<Float>) -> Float { (samples.map { $0 * $0 }.reduce(0, +) / Float(samples.count)).squareRoot() }

    @Test func resamplingKeepsPitchAndLevelAndFiltersAliases() throws {
        let down = try tone(440, rate: 44_100).resampled(to: 16_000)
        #expect(down.sampleRate == 16_000 && down.samples.count == 16_000)
        let middle = down.samples[2_000..<14_000]
        let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect((329...331).contains(crossings), "440 Hz stays 440 Hz (\(crossings) cycles in 0.75 s)")
        #expect(abs(rms(middle) - 0.3536) < 0.01, "the level is kept")
        let alias = try tone(10_000, rate: 44_100).resampled(to: 16_000)
        #expect(rms(alias.samples[2_000..<14_000]) < 0.01, "a tone above the new Nyquist frequency is filtered out")
        let up = try tone(1_000, rate: 16_000).resampled(to: 22_050)
        #expect(up.samples.count == 22_050 && abs(rms(up.samples[2_000..<20_000]) - 0.3536) < 0.01)
    }

    /// The precomputed filters give each output sample as computing every tap's weight does,
    /// for the conversions the SDK makes, and nearly so for one of more phases than it keeps.
    @Test(arguments: [(22_050, 24_000), (44_100, 16_000), (48_000, 16_000), (8_000, 24_000), (16_000, 22_050), (44_100, 44_101)])
    func precomputedFiltersResampleAsEachTapsWeightDoes(from source: Int, to rate: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let noise = try AudioSamples(samples: (0..<source / 5).map { _ in Float.random(in: -1...1, using: &generator) }, sampleRate: source)
        let resampled = noise.resampled(to: rate)
        let filter = Resampler.Filter(from: source, to: rate)
        #expect(resampled.samples.count == Int((Double(noise.samples.count) * filter.ratio).rounded()))
        let direct = noise.samples.withUnsafeBufferPointer { input in
            resampled.samples.indices.map { filter.sample(at: Double($0) / filter.ratio, of: input) }
        }
        let worst = zip(resampled.samples, direct).map { abs($0 - $1) }.max() ?? 0
        // Beyond the phases kept, the nearest is at most 1/8192 of a sample off.
        let tolerance: Float = filter.phaseCount <= Resampler.maxPhases ? 1e-5 : 2e-3
        #expect(worst < tolerance, "\(source) Hz to \(rate) Hz: \(worst)")
    }

    @Test func aStreamsChunksStartWithOneSentenceAndGrow() {
        let sentence = "This sentence is about forty characters."
        let chunks = SentenceSplitter.chunks(String(repeating: sentence + " ", count: 30), limit: 400, growing: true)
        #expect(chunks.map { $0.split(separator: ".").count } == [1, 1, 3, 7, 9, 9])
        #expect(chunks.joined(separator: " ") == String(repeating: sentence + " ", count: 30).trimmingCharacters(in: .whitespaces))
    }

    @Test func longTextIsSplitIntoSentencesInOrder() {
        let chunks = SentenceSplitter.chunks(
            "One. Two? Three!\nFour and 3.5 stays together. " + String(repeating: "word ", count: 200), limit: 100)
        #expect(chunks.first == "One. Two? Three! Four and 3.5 stays together.")
        #expect(chunks.allSatisfy { $0.count <= 100 })
        #expect(chunks.joined(separator: " ").split(separator: " ").count == 8 + 200)
    }

    @Test func speechOptionsAreChecked() throws {
        try TTSOptions().validate()
        for options in [
            TTSOptions(rate: 0), TTSOptions(rate: 9), TTSOptions(pitch: 3), TTSOptions(volume: -1), TTSOptions(sampleRate: 100),
        ] {
            #expect(throws: SDKError.self) { try options.validate() }
        }
    }

    /// G.711 as the standard defines it: every byte decodes to the middle of its step and
    /// encodes back to itself (µ-law's two zeros to one), the ends of the scale are where the
    /// standard puts them, and a sample comes back within its step.
    @Test(arguments: [G711.muLaw, .aLaw]) func g711RoundTrips(_ law: G711) {
        let bytes = Data(0...255)
        let decoded = law.decode(bytes)
        let again = law.encode(decoded)
        for (byte, back) in zip(bytes, again) where !(law == .muLaw && byte == 0x7F) {
            #expect(byte == back, "\(law) \(byte) came back as \(back)")
        }
        let ends: [UInt8: Int] =
            law == .muLaw ? [0x00: -32124, 0x80: 32124, 0xFF: 0, 0x7F: 0] : [0x2A: -32256, 0xAA: 32256, 0x55: -8, 0xD5: 8]
        for (byte, linear) in ends { #expect(Int(law.decode(Data([byte]))[0] * 32768) == linear, "\(law) \(byte)") }
        let ramp = stride(from: -1.0, through: 1.0, by: 0.001).map { Float($0) }
        for (sample, back) in zip(ramp, law.decode(law.encode(ramp))) {
            #expect(abs(back - sample) <= max(abs(sample) / 15, 0.0005), "\(law): \(sample) came back as \(back)")
        }
    }
}
