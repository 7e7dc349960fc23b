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
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
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
