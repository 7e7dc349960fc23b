internal import CSherpaOnnx
import Foundation
import RunAnywhere

/// A Piper voice on sherpa-onnx. sherpa-onnx 2.0 reads phonemes, not text: the phonemizer turns
/// each chunk into IPA sentences, passed as Unicode code points.
///
/// `@unchecked Sendable`: the sherpa handle is used only in the voice's turn (the runtime's
/// `inTurn(on:)`), one synthesis at a time, and freed once, in `deinit`.
final class PiperTTSService: TTSService, @unchecked Sendable {
    let voiceName: String
    let language: String
    private let library: SherpaLibrary
    private let tts: OpaquePointer
    private let phonemizer: any Phonemizer
    private let espeakVoice: String

    init(library: SherpaLibrary, model: URL, tokens: URL, threads: Int, voiceName: String, phonemizer: any Phonemizer) throws {
        try Self.checkMetadata(model)
        let config = PiperConfig(model: model.path, tokens: tokens.path, threads: threads)
        guard let tts = config.withC({ library.api.SherpaOnnxCreateOfflineTts($0) }) else {
            throw SDKError(.modelLoadFailed, "sherpa-onnx could not load the voice \(model.lastPathComponent)")
        }
        let settings = (try? JSONSerialization.jsonObject(with: Data(contentsOf: model.appendingPathExtension("json")))) as? [String: Any]
        self.espeakVoice = (settings?["espeak"] as? [String: Any])?["voice"] as? String ?? "en-us"
        self.language = ((settings?["language"] as? [String: Any])?["code"] as? String) ?? espeakVoice
        self.library = library
        self.tts = tts
        self.phonemizer = phonemizer
        self.voiceName = voiceName
    }

    deinit {
        library.api.SherpaOnnxDestroyOfflineTts(tts)
        ra_engine_release_free_memory()  // give the freed buffers back to the system
    }

    func synthesize(_ text: String, options: TTSOptions, cancellation: CancellationFlag) throws -> AudioSamples {
        let sentences = try phonemizer.phonemize(text, voice: espeakVoice).filter { !$0.isEmpty }
        guard !sentences.isEmpty else {
            return try AudioSamples(samples: [], sampleRate: Int(library.api.SherpaOnnxOfflineTtsSampleRate(tts)))
        }
        // C ints count the sentences and each one's phonemes: no text that fits in memory comes
        // near 2^31, but a count beyond is refused rather than trapped on.
        guard sentences.count <= Int32.max, sentences.allSatisfy({ $0.unicodeScalars.count <= Int32.max }) else {
            throw SDKError(.invalidInput, "The text is too long to synthesize at once; split it into parts")
        }
        var codepoints = sentences.flatMap { $0.unicodeScalars.map { Int32($0.value) } }  // at most 0x10FFFF
        var lengths = sentences.map { Int32($0.unicodeScalars.count) }
        if cancellation.isCancelled { throw CancellationError() }
        var config = SherpaOnnxGenerationConfig()
        config.speed = options.rate
        config.sid = 0
        let audio = codepoints.withUnsafeMutableBufferPointer { points in
            lengths.withUnsafeMutableBufferPointer { counts in
                config.phoneme_codepoints = UnsafePointer(points.baseAddress)
                config.phoneme_codepoints_lens = UnsafePointer(counts.baseAddress)
                config.phoneme_codepoints_num_sentences = Int32(counts.count)
                return library.api.SherpaOnnxOfflineTtsGenerateWithConfig(tts, "", &config, nil, nil)
            }
        }
        guard let audio else { throw SDKError(.generationFailed, "sherpa-onnx could not synthesize the text") }
        defer { library.api.SherpaOnnxDestroyOfflineTtsGeneratedAudio(audio) }
        let samples = Array(UnsafeBufferPointer(start: audio.pointee.samples, count: Int(audio.pointee.n)))
        return try AudioSamples(samples: samples, sampleRate: Int(audio.pointee.sample_rate))
    }

    /// sherpa-onnx ends the process when a Piper model lacks its metadata, so check first:
    /// `onnx.save` writes the metadata after the graph, at the end of the file.
    static func checkMetadata(_ model: URL) throws {
        guard let handle = try? FileHandle(forReadingFrom: model) else {
            throw SDKError.fileManagement(.fileNotFound, "No such voice file: \(model.path)")
        }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > 262_144 ? size - 262_144 : 0)
        let tail = (try? handle.readToEnd()) ?? Data()
        let missing = ["sample_rate", "n_speakers", "language", "comment"].filter { tail.range(of: Data($0.utf8)) == nil }
        guard missing.isEmpty, tail.range(of: Data("piper".utf8)) != nil else {
            throw SDKError.fileManagement(
                .invalidModelFormat,
                "\(model.lastPathComponent) lacks the Piper metadata sherpa-onnx needs (\(missing.isEmpty ? "comment=piper" : missing.joined(separator: ", "))); prepare it as scripts/setup does"
            )
        }
    }
}

/// The sherpa-onnx configuration of a Piper voice, with its C strings kept alive for a call.
private struct PiperConfig {
    let model: String
    let tokens: String
    let threads: Int

    func withC<T>(_ body: (UnsafePointer<SherpaOnnxOfflineTtsConfig>) -> T) -> T {
        model.withCString { model in
            tokens.withCString { tokens in
                "cpu".withCString { provider in
                    var config = SherpaOnnxOfflineTtsConfig()
                    config.model.vits.model = model
                    config.model.vits.tokens = tokens
                    config.model.num_threads = Int32(threads)  // 1...512: the adapter validates its ModelLoadOptions
                    config.model.provider = provider
                    config.max_num_sentences = 1
                    return withUnsafePointer(to: &config, body)
                }
            }
        }
    }
}
