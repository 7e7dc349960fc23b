import Foundation
import RunAnywhere
import RunAnywhereEspeak
import RunAnywhereLlamaCpp
import RunAnywhereSherpaOnnx
import RunAnywhereTestSupport
import RunAnywhereWhisperCpp

/// A runtime with every engine registered and whisper tiny.en and the Piper voice loaded, 1 thread.
enum SpeechRuntime {
    static let shared = Task { () throws -> RunAnywhereRuntime in
        let runtime = RunAnywhereRuntime(configuration: RuntimeConfiguration(
            modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: FileManager.default.temporaryDirectory
        ))
        runtime.frameworks.register(LlamaCppAdapter())
        runtime.frameworks.register(WhisperCppAdapter())
        runtime.frameworks.register(SherpaOnnxAdapter(phonemizer: EspeakPhonemizer()))
        runtime.frameworks.register(EspeakAdapter())
        try await runtime.loadSTTModel(SDKConstants.Models.defaultSpeechRecognitionModelID, options: ModelLoadOptions(threads: 1))
        try await runtime.loadTTSModel(SDKConstants.Models.defaultVoiceID, options: ModelLoadOptions(threads: 1))
        return runtime
    }

    /// Speech of `text` by the Piper voice.
    static func speech(_ text: String) async throws -> AudioSamples {
        let output = try await shared.value.synthesize(text, options: TTSOptions(audioFormat: .pcm))
        return try AudioSamples(pcm16: output.audioData, sampleRate: output.sampleRate)
    }
}

/// Word error rate: word-level edit distance over the reference's length, ignoring case and punctuation.
func wordErrors(_ reference: String, _ hypothesis: String) -> (errors: Int, words: Int) {
    func words(_ text: String) -> [String] {
        text.lowercased().replacingOccurrences(of: "-", with: " ").split(whereSeparator: { $0 == " " })
            .map { $0.filter { $0.isLetter || $0.isNumber || $0 == "'" } }.filter { !$0.isEmpty }
    }
    let r = words(reference), h = words(hypothesis)
    var previous = Array(0...h.count)
    for (i, word) in r.enumerated() {
        var current = [i + 1] + Array(repeating: 0, count: h.count)
        for j in 0..<h.count {
            current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (word == h[j] ? 0 : 1))
        }
        previous = current
    }
    return (previous[h.count], r.count)
}
