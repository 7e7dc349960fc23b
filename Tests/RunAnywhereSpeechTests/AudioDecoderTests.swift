import Foundation
import RunAnywhere
import RunAnywhereFFmpeg
import RunAnywhereTestSupport
import Testing

/// FFmpeg's decoding of the compressed files clients send, on files Debian's ffmpeg command
/// encodes from a generated tone: every format must give back the same sound.
@Suite(
    .inProcessLane,
    .enabled(if: TestEnvironment.ffmpeg != nil, "needs Debian's ffmpeg and FFmpeg libraries: run scripts/setup --tests --build tests"))
struct AudioDecoderTests {
    let decoder = FFmpegAudioDecoder()

    /// 1.5 s of a 440 Hz tone at 44.1 kHz in stereo (both channels alike), as a 16-bit WAV file.
    static let tone: Data = {
        let frames = 66_150
        var pcm = Data(capacity: frames * 4)
        for index in 0..<frames {
            let value = Int16(sin(2 * Double.pi * 440 * Double(index) / 44_100) * 0.5 * 32767)
            for _ in 0..<2 { withUnsafeBytes(of: value.littleEndian) { pcm.append(contentsOf: $0) } }
        }
        var header = Data()
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { header.append(contentsOf: $0) } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { header.append(contentsOf: $0) } }
        header.append(contentsOf: Array("RIFF".utf8))
        u32(36 + pcm.count)
        header.append(contentsOf: Array("WAVE".utf8))
        header.append(contentsOf: Array("fmt ".utf8))
        u32(16)
        u16(1)
        u16(2)
        u32(44_100)
        u32(44_100 * 4)
        u16(4)
        u16(16)
        header.append(contentsOf: Array("data".utf8))
        u32(pcm.count)
        return header + pcm
    }()

    /// The tone's frequency, from the zero crossings of the middle second.
    static func frequency(_ audio: AudioSamples) -> Double {
        let middle = audio.samples[audio.sampleRate / 4..<audio.sampleRate * 5 / 4]
        let crossings = zip(middle, middle.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        return Double(crossings) / 2
    }

    static func rms(_ audio: AudioSamples) -> Double {
        sqrt(audio.samples.reduce(0) { $0 + Double($1 * $1) } / Double(max(1, audio.samples.count)))
    }

    @Test(arguments: [
        ("mp3", [String]()), ("flac", []), ("ogg", ["-c:a", "libvorbis"]), ("ogg", ["-c:a", "libopus", "-ar", "48000"]),
        ("webm", ["-c:a", "libopus", "-ar", "48000"]), ("ipod", ["-c:a", "aac"]), ("wav", ["-c:a", "pcm_mulaw"]),
    ])
    func everyFormatGivesBackTheTone(container: String, codec: [String]) throws {
        let file = try TestEnvironment.encodeAudio(Self.tone, as: container, codec)
        let audio = try AudioSamples(fileData: file, name: "tone.\(container)", decoder: decoder, sampleRate: 16_000)
        #expect(audio.sampleRate == 16_000)
        #expect(abs(audio.duration - 1.5) < 0.1, "\(container) \(codec): \(audio.duration) s")
        #expect(abs(Self.frequency(audio) - 440) <= 4, "\(container) \(codec): \(Self.frequency(audio)) Hz")
        // The two channels are alike, so the mono mix keeps the level: 0.5 / √2 RMS.
        #expect(abs(Self.rms(audio) - 0.5 / 2.0.squareRoot()) < 0.03, "\(container) \(codec): RMS \(Self.rms(audio))")
    }

    @Test func losslessFilesDecodeToTheSamplesTheSDKReadsFromWAV() throws {
        let flac = try TestEnvironment.encodeAudio(Self.tone, as: "flac")
        let decoded = try decoder.decode(flac, name: "tone.flac", sampleRate: nil, maxDuration: nil)
        let reference = try AudioSamples(fileData: Self.tone, name: "tone.wav", decoder: nil)
        #expect(decoded.sampleRate == 44_100)
        #expect(decoded.samples.count == reference.samples.count)
        let worst = zip(decoded.samples, reference.samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-4, "largest difference \(worst)")
    }

    @Test func whatIsNotAudioIsAClearError() throws {
        func expectError(_ data: Data, _ name: String, mentions: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let error = #expect(throws: SDKError.self, sourceLocation: sourceLocation) {
                try AudioSamples(fileData: data, name: name, decoder: decoder, sampleRate: 16_000)
            }
            #expect(error?.message.contains(mentions) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        }
        expectError(Data(), "empty.mp3", mentions: "empty.mp3 is empty")
        expectError(
            Data("these are not the sounds you are looking for".utf8), "notes.mp3", mentions: "notes.mp3 could not be read as audio")
        var noise = SystemRandomNumberGenerator()
        expectError(
            Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &noise) }), "noise.ogg",
            mentions: "noise.ogg could not be read as audio")
        let video = try #require(
            try? {
                let folder = try TestEnvironment.temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: folder) }
                let process = Process()
                process.executableURL = TestEnvironment.ffmpeg
                let path = folder.appendingPathComponent("video.webm").path
                process.arguments = ["-loglevel", "error", "-f", "lavfi", "-i", "color=c=blue:s=32x32:d=1", "-c:v", "libvpx", path]
                try process.run()
                process.waitUntilExit()
                return try Data(contentsOf: URL(fileURLWithPath: path))
            }())
        expectError(video, "video.webm", mentions: "it holds no audio stream")
        let mp3 = try TestEnvironment.encodeAudio(Self.tone, as: "mp3")
        #expect(throws: SDKError.self) { try decoder.decode(mp3, name: "long.mp3", sampleRate: 16_000, maxDuration: 1) }
        #expect(throws: SDKError.self) { try decoder.decode(mp3, name: "long.mp3", sampleRate: nil, maxDuration: 1) }
        #expect(try decoder.decode(mp3, name: "ok.mp3", sampleRate: 16_000, maxDuration: 2).duration > 1.4)
    }

    /// Seeded damage (1 to 8 bytes, half of them in the first 256 bytes: headers, chunk sizes,
    /// stream setup) to each kind of file: every case decodes or ends in an `SDKError`, never a
    /// signal or a hang. `RUNANYWHERE_FUZZ_CASES` sets the number per kind (40 by default; 500 for
    /// the long run).
    @Test(arguments: [("wav", [String]()), ("mp3", []), ("flac", []), ("ogg", ["-c:a", "libvorbis"])])
    func damagedFilesDecodeOrFailClearly(container: String, codec: [String]) throws {
        let cases = TestEnvironment.fuzzCases()
        let original = container == "wav" ? Self.tone : try TestEnvironment.encodeAudio(Self.tone, as: container, codec)
        var random = SeededGenerator(seed: 20_261_127)
        var outcomes: [String: Int] = [:]
        for index in 0..<cases {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let at = Int.random(in: 0..<(Bool.random(using: &random) ? 256 : bytes.count), using: &random)
                bytes[at] = [0x00, 0xFF, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
            }
            do {
                let audio = try AudioSamples(
                    fileData: bytes, name: "case-\(index).\(container)", decoder: decoder, sampleRate: 16_000, maxDuration: 60)
                #expect(audio.sampleRate == 16_000 && audio.samples.allSatisfy(\.isFinite), "case \(index): \(audio.samples.count) samples")
                outcomes["decoded", default: 0] += 1
            } catch let error as SDKError {
                #expect(error.message.contains("case-\(index).\(container)"), "case \(index): \(error.message)")
                outcomes["refused", default: 0] += 1
            }
        }
        print("damaged \(container) files: \(outcomes)")
    }

    @Test func aTruncatedFileGivesWhatItHolds() throws {
        let mp3 = try TestEnvironment.encodeAudio(Self.tone, as: "mp3")
        let audio = try decoder.decode(mp3.prefix(mp3.count / 2), name: "half.mp3", sampleRate: 16_000, maxDuration: nil)
        #expect(audio.duration > 0.5 && audio.duration < 1.0, "\(audio.duration) s")
    }

    @Test func withoutADecoderOnlyWAVIsRead() throws {
        let mp3 = try TestEnvironment.encodeAudio(Self.tone, as: "mp3")
        let error = #expect(throws: SDKError.self) { try AudioSamples(fileData: mp3, name: "tone.mp3", decoder: nil) }
        #expect(error?.message.contains("tone.mp3 is not a WAV file, and no decoder for other audio formats is registered") == true)
        let mulaw = try TestEnvironment.encodeAudio(Self.tone, as: "wav", ["-c:a", "pcm_mulaw"])
        let unsupported = #expect(throws: SDKError.self) { try AudioSamples(fileData: mulaw, name: "tone.wav", decoder: nil) }
        #expect(unsupported?.message.contains("µ-law") == true, "\(String(describing: unsupported))")
    }
}
