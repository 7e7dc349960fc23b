import Foundation
import Logging
import RunAnywhere

/// A speech-to-text engine whose transcriptions are known in advance, for tests of what sits
/// above an engine (the server's transcription route and its formats): it hears one segment
/// a started second of audio, " second N" from N-1 to N seconds (the last one ends with the
/// audio), in the language asked for, or "de" when asked to detect it; translated to English,
/// " second N in English".
package struct ScriptedSpeechAdapter: FrameworkAdapter {
    package let framework = InferenceFramework.whisperCpp
    package let supportedModalities: Set<FrameworkModality> = [.voiceToText]

    /// Creates the adapter.
    package init() {}

    package func availability() -> FrameworkAvailability { .available(detail: "scripted") }
    package func canHandle(model: ModelInfo) -> Bool { model.category == .speechRecognition }
    package func estimateMemoryUsage(for model: ModelInfo) -> Int64 { 1 << 20 }
    package func loadSpeechRecognitionModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any STTService {
        ScriptedSTTService()
    }
}

/// The scripted speech-to-text model.
final class ScriptedSTTService: STTService {
    func transcribe(
        _ audio: AudioSamples, options: STTOptions, cancellation: CancellationFlag,
        onSegment: @escaping @Sendable (TranscriptionSegment) -> Void
    ) throws -> (segments: [TranscriptionSegment], language: String?) {
        let seconds = Int(audio.duration.rounded(.up))
        let segments = (0..<seconds).map { second in
            TranscriptionSegment(
                text: " second \(second + 1)\(options.translateToEnglish ? " in English" : "")", startTime: Double(second),
                endTime: min(Double(second + 1), audio.duration), confidence: 0.5,
                tokens: [Int32(second), 7], noSpeechProbability: 0.25)
        }
        segments.forEach(onSegment)
        return (segments, options.detectLanguage ? "de" : options.language)
    }
}

/// Adds the scripted speech engine and a speech-to-text model `id` (whose file is a placeholder)
/// to `runtime`.
package func addScriptedSpeech(to runtime: RunAnywhereRuntime, id: String = "scripted-stt") throws {
    runtime.frameworks.register(ScriptedSpeechAdapter())
    let file = runtime.configuration.modelsDirectory.deletingLastPathComponent().appendingPathComponent("\(id).bin")
    try Data("scripted".utf8).write(to: file)
    try runtime.registerModel(id: id, name: id, url: file, framework: .whisperCpp, modality: .speechRecognition)
}
