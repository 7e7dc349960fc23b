import Foundation

extension RunAnywhere {
    /// Loads a speech-to-text model.
    public static func loadSTTModel(_ modelId: String) async throws { try await runtime().loadSTTModel(modelId) }
    /// Unloads the speech-to-text model.
    public static func unloadSTTModel() async throws { try await runtime().unloadSTTModel() }
    /// Whether a speech-to-text model is loaded.
    public static var isSTTModelLoaded: Bool { get async { (try? await runtime().isSTTModelLoaded) ?? false } }
    /// The text of 16 kHz mono 16-bit PCM audio.
    public static func transcribe(_ audioData: Data) async throws -> String { try await runtime().transcribe(audioData) }
    /// A transcription with segments, language and timings.
    public static func transcribeWithOptions(_ audioData: Data, options: STTOptions) async throws -> STTOutput {
        try await runtime().transcribeWithOptions(audioData, options: options)
    }

    /// Loads a text-to-speech voice.
    public static func loadTTSModel(_ voiceId: String) async throws { try await runtime().loadTTSModel(voiceId) }
    /// Unloads the voice.
    public static func unloadTTSVoice() async throws { try await runtime().unloadTTSVoice() }
    /// Whether a voice is loaded.
    public static var isTTSVoiceLoaded: Bool { get async { (try? await runtime().isTTSVoiceLoaded) ?? false } }
    /// Speaks text with the loaded voice.
    public static func synthesize(_ text: String, options: TTSOptions = TTSOptions()) async throws -> TTSOutput {
        try await runtime().synthesize(text, options: options)
    }
    /// Creates a voice pipeline (VAD → STT → LLM → TTS).
    public static func createVoicePipeline(config: ModularPipelineConfig) async throws -> ModularVoicePipeline {
        try await runtime().createVoicePipeline(config: config)
    }
}
