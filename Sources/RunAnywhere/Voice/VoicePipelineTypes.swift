import Foundation

/// What a voice pipeline uses.
public struct ModularPipelineConfig: Sendable {
    public var sttModelId: String
    public var llmModelId: String
    public var ttsVoiceId: String
    /// Detect speech first and transcribe only that part.
    public var useVAD: Bool
    /// Ask for speaker diarization; no Linux engine offers it yet, so the pipeline logs that and
    /// runs the standard way.
    public var enableSpeakerDiarization: Bool
    public var systemPrompt: String?
    public var generationOptions: LLMGenerationOptions
    public var ttsOptions: TTSOptions
    /// CPU threads for every stage; nil uses the SDK's default.
    public var threads: Int?

    public init(
        sttModelId: String = SDKConstants.Models.defaultSpeechRecognitionModelID, llmModelId: String = SDKConstants.Models.defaultModelID,
        ttsVoiceId: String = SDKConstants.Models.defaultVoiceID, useVAD: Bool = true, enableSpeakerDiarization: Bool = false,
        systemPrompt: String? = "You are a helpful voice assistant. Answer in one or two short sentences.",
        generationOptions: LLMGenerationOptions = LLMGenerationOptions(maxTokens: 60, temperature: 0.7, streamingEnabled: true),
        ttsOptions: TTSOptions = TTSOptions(audioFormat: .wav), threads: Int? = nil
    ) {
        self.sttModelId = sttModelId
        self.llmModelId = llmModelId
        self.ttsVoiceId = ttsVoiceId
        self.useVAD = useVAD
        self.enableSpeakerDiarization = enableSpeakerDiarization
        self.systemPrompt = systemPrompt
        self.generationOptions = generationOptions
        self.ttsOptions = ttsOptions
        self.threads = threads
    }
}

/// Milliseconds each stage of a voice turn took.
public struct VoiceTurnTimings: Codable, Sendable, Equatable {
    public let vadMs: Double?
    public let sttMs: Double
    public let llmMs: Double
    public let timeToFirstTokenMs: Double?
    public let ttsMs: Double
    public let totalMs: Double
}

/// One voice turn: what was heard, what was answered, and the spoken answer.
public struct VoiceTurn: Codable, Sendable, Equatable {
    public let speechSegments: [SpeechSegment]
    public let transcript: String
    public let response: String
    public let audio: TTSOutput?
    public let timings: VoiceTurnTimings
}

/// What a voice turn reports as it goes.
public enum VoicePipelineEvent: Sendable, Equatable {
    /// Diarization was asked for and is unavailable; the standard pipeline runs.
    case diarizationUnavailable
    case speechDetected([SpeechSegment])
    /// The audio holds no speech; the turn ends without an answer.
    case noSpeech
    case transcribed(STTOutput)
    /// A piece of the answer's text.
    case responseText(String)
    case responded(LLMGenerationResult)
    case synthesized(TTSOutput)
    case completed(VoiceTurn)
}
