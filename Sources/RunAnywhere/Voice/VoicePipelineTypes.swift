import Foundation

/// What a voice pipeline uses.
public struct ModularPipelineConfig: Sendable {
    /// The speech-to-text model that hears.
    public var sttModelId: String
    /// The language model that answers.
    public var llmModelId: String
    /// The voice that speaks the answer.
    public var ttsVoiceId: String
    /// Detect speech first and transcribe only that part.
    public var useVAD: Bool
    /// Ask for speaker diarization; no Linux engine offers it yet, so the pipeline logs that and
    /// runs the standard way.
    public var enableSpeakerDiarization: Bool
    /// Instructions for the language model, if any.
    public var systemPrompt: String?
    /// How the language model answers.
    public var generationOptions: LLMGenerationOptions
    /// How the answer is spoken.
    public var ttsOptions: TTSOptions
    /// CPU threads for every stage; nil uses the SDK's default.
    public var threads: Int?

    /// Creates a pipeline configuration.
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
    /// Milliseconds voice activity detection took, when it ran.
    public let vadMs: Double?
    /// Milliseconds speech recognition took.
    public let sttMs: Double
    /// Milliseconds the language model took.
    public let llmMs: Double
    /// Milliseconds until the answer's first token.
    public let timeToFirstTokenMs: Double?
    /// Milliseconds speech synthesis took, all sentences together (while the model wrote).
    public let ttsMs: Double
    /// Milliseconds from the turn's start until its first sentence was spoken, when one was.
    public let timeToFirstAudioMs: Double?
    /// Milliseconds for the whole turn.
    public let totalMs: Double
}

/// One voice turn: what was heard, what was answered, and the spoken answer.
public struct VoiceTurn: Codable, Sendable, Equatable {
    /// Where speech was heard in the input.
    public let speechSegments: [SpeechSegment]
    /// What was heard.
    public let transcript: String
    /// The language model's answer.
    public let response: String
    /// The spoken answer, when a voice spoke it.
    public let audio: TTSOutput?
    /// How long each stage took.
    public let timings: VoiceTurnTimings
}

/// What a voice turn reports as it goes.
public enum VoicePipelineEvent: Sendable, Equatable {
    /// Diarization was asked for and is unavailable; the standard pipeline runs.
    case diarizationUnavailable
    /// Voice activity detection found speech.
    case speechDetected([SpeechSegment])
    /// The audio holds no speech; the turn ends without an answer.
    case noSpeech
    /// The speech was transcribed.
    case transcribed(STTOutput)
    /// A piece of the answer's text.
    case responseText(String)
    /// The language model answered.
    case responded(LLMGenerationResult)
    /// A piece of the answer was spoken while the model wrote the rest: its first phrase, then
    /// each sentence, in order, in the configuration's audio format.
    case spoke(TTSOutput)
    /// The whole answer was spoken: its pieces put together.
    case synthesized(TTSOutput)
    /// The turn is over.
    case completed(VoiceTurn)
}

extension ModularPipelineConfig {
    /// Applies the answering model's `defaults` (a Modelfile's, ``ModelDefaults``) over this
    /// configuration's own: its generation settings over ``generationOptions``, and its system
    /// prompt in place of ``systemPrompt`` unless `keepingSystemPrompt` (the caller chose one).
    /// What a caller sets afterwards goes over both.
    package mutating func apply(_ defaults: ModelDefaults?, keepingSystemPrompt: Bool) {
        guard let defaults else { return }
        defaults.apply(to: &generationOptions)
        // Nil leaves the conversation without one, so that the model's own is read.
        if !keepingSystemPrompt, defaults.systemPrompt != nil { systemPrompt = nil }
    }
}
