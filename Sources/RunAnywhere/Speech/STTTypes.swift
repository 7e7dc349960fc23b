import Foundation
import ZIPFoundation

/// How audio handed to the SDK is encoded.
public enum AudioFormat: String, Codable, Sendable, CaseIterable {
    /// Raw 16-bit little-endian mono PCM at ``STTOptions/sampleRate``.
    case pcm
    /// A WAV file (any common rate and channel count).
    case wav
}

/// How to transcribe.
public struct STTOptions: Codable, Sendable, Equatable {
    /// The spoken language (ISO 639-1), used unless ``detectLanguage``.
    public var language: String
    /// Detect the language instead (multilingual models only).
    public var detectLanguage: Bool
    /// The spec's punctuation switch; whisper.cpp always punctuates, so it is not read.
    public var enablePunctuation: Bool
    /// Speaker diarization; no Linux engine offers it yet, so it is ignored (and logged).
    public var enableDiarization: Bool
    /// The most speakers diarization may tell apart; ignored with diarization.
    public var maxSpeakers: Int?
    /// Whether segments carry start and end times.
    public var enableTimestamps: Bool
    /// The spec's words to filter out; no Linux engine filters, so it is not read.
    public var vocabularyFilter: [String]
    /// How `Data` input is encoded.
    public var audioFormat: AudioFormat
    /// Sample rate of `.pcm` input.
    public var sampleRate: Int
    /// The spec's engine choice; the model's own framework always transcribes, so it is not read.
    public var preferredFramework: InferenceFramework?
    /// CPU threads; nil uses the SDK's default. Additive.
    public var threads: Int?
    /// Text the model continues from: spellings of names, a style, or the previous part's words
    /// (whisper's initial prompt). Additive.
    public var prompt: String?
    /// Sampling temperature; 0 decodes greedily. Additive.
    public var temperature: Float
    /// Write the speech in English whatever language it is in (whisper's translate task;
    /// multilingual models only), as OpenAI's `/v1/audio/translations` does. Additive.
    public var translateToEnglish: Bool

    /// Creates transcription options.
    public init(
        language: String = "en", detectLanguage: Bool = false, enablePunctuation: Bool = true, enableDiarization: Bool = false,
        maxSpeakers: Int? = nil, enableTimestamps: Bool = true, vocabularyFilter: [String] = [], audioFormat: AudioFormat = .pcm,
        sampleRate: Int = 16_000, preferredFramework: InferenceFramework? = nil, threads: Int? = nil,
        prompt: String? = nil, temperature: Float = 0, translateToEnglish: Bool = false
    ) {
        self.language = language
        self.detectLanguage = detectLanguage
        self.enablePunctuation = enablePunctuation
        self.enableDiarization = enableDiarization
        self.maxSpeakers = maxSpeakers
        self.enableTimestamps = enableTimestamps
        self.vocabularyFilter = vocabularyFilter
        self.audioFormat = audioFormat
        self.sampleRate = sampleRate
        self.preferredFramework = preferredFramework
        self.threads = threads
        self.prompt = prompt
        self.temperature = temperature
        self.translateToEnglish = translateToEnglish
    }
}

/// A stretch of transcribed speech.
public struct TranscriptionSegment: Codable, Sendable, Equatable {
    /// The segment's text.
    public let text: String
    /// Seconds from the start of the audio.
    public let startTime: TimeInterval
    /// Where the segment ends, in seconds.
    public let endTime: TimeInterval
    /// Mean probability of the segment's tokens, 0 to 1.
    public let confidence: Float
    /// The engine's token ids of the segment, its timestamp and special tokens included (whisper's
    /// `tokens`); empty when the engine gives none.
    public let tokens: [Int32]
    /// How likely the segment holds no speech at all, 0 to 1 (whisper's `no_speech_prob`: a
    /// segment above 0.6 whose confidence is low is silence or noise heard as words); nil when
    /// the engine does not say.
    public let noSpeechProbability: Float?

    /// Creates a segment.
    public init(
        text: String, startTime: TimeInterval, endTime: TimeInterval, confidence: Float, tokens: [Int32] = [],
        noSpeechProbability: Float? = nil
    ) {
        self.text = text
        self.startTime = startTime
        self.endTime = endTime
        self.confidence = confidence
        self.tokens = tokens
        self.noSpeechProbability = noSpeechProbability
    }

    /// The text's UTF-8 size over its size compressed with zlib's default level: whisper's
    /// measure of repetition (a segment above 2.4 is usually the model repeating itself).
    package var compressionRatio: Double {
        let bytes = Data(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        var compressed = 0
        _ = try? Data.compress(
            size: Int64(bytes.count), bufferSize: max(bytes.count, 64),
            provider: { position, size in bytes.subdata(in: Int(position)..<Int(position) + size) },
            consumer: { compressed += $0.count })
        // zlib's own stream adds a 2-byte header and a 4-byte checksum to the raw deflate data.
        return Double(bytes.count) / Double(compressed + 6)
    }
}

/// How long a transcription took.
public struct TranscriptionMetadata: Codable, Sendable, Equatable {
    /// The model that transcribed.
    public let modelId: String
    /// Seconds spent transcribing.
    public let processingTime: TimeInterval
    /// Seconds of audio.
    public let audioLength: TimeInterval
    /// processingTime / audioLength.
    public let realTimeFactor: Double
}

/// A transcription.
public struct STTOutput: Codable, Sendable, Equatable {
    /// The whole transcript.
    public let text: String
    /// Mean confidence over the segments, 0 to 1.
    public let confidence: Float
    /// The transcript in timed segments.
    public let segments: [TranscriptionSegment]
    /// The language whisper.cpp detected, when asked to detect one: the spoken language, also
    /// when the text is its English translation.
    public let detectedLanguage: String?
    /// The model, durations and speed of the transcription.
    public let metadata: TranscriptionMetadata
}

/// What a streamed transcription reports
/// (``RunAnywhereRuntime/transcribeStream(_:model:options:loadOptions:)``).
public enum TranscriptionEvent: Sendable, Equatable {
    /// A part of the transcript, as soon as the engine has heard it; segments come in order.
    case segment(TranscriptionSegment)
    /// The whole transcription (the same segments, the text and the timings); the last event.
    case completed(STTOutput)
}

/// A speech-to-text model an engine has loaded.
public protocol STTService: AnyObject, Sendable {
    /// Transcribes 16 kHz mono samples; blocking. Calls `onSegment` with each segment as soon as
    /// the engine has it, in order (the segments returned are the same ones), so a caller can
    /// show the transcript while the rest is heard. Stops early once `cancellation` is raised.
    func transcribe(
        _ audio: AudioSamples, options: STTOptions, cancellation: CancellationFlag,
        onSegment: @escaping @Sendable (TranscriptionSegment) -> Void
    ) throws -> (segments: [TranscriptionSegment], language: String?)

    /// Frees the model's memory, returning once it is freed (after its running work has ended
    /// as cancelled); the runtime calls it when it unloads the model, and uses the model no
    /// more. The default does nothing: the memory goes with the last reference.
    func unload() async
}

extension STTService {
    /// Does nothing: the model's memory is freed with its last reference.
    public func unload() async {}
}

/// A part of the audio that holds speech.
public struct SpeechSegment: Codable, Sendable, Equatable {
    /// Seconds from the start.
    public let start: TimeInterval
    /// Where speech ends, in seconds from the start of the audio.
    public let end: TimeInterval

    /// Creates a segment from its start and end, in seconds.
    public init(start: TimeInterval, end: TimeInterval) {
        self.start = start
        self.end = end
    }
}

/// How to detect speech.
public struct VADOptions: Codable, Sendable, Equatable {
    /// Speech probability above which a frame counts as speech.
    public var threshold: Float
    /// Shorter speech is ignored.
    public var minSpeechDurationMs: Int
    /// Silence shorter than this does not end a segment.
    public var minSilenceDurationMs: Int
    /// Padding added around each segment.
    public var speechPadMs: Int

    /// Creates voice activity options; the defaults are Silero's.
    public init(threshold: Float = 0.5, minSpeechDurationMs: Int = 250, minSilenceDurationMs: Int = 100, speechPadMs: Int = 30) {
        self.threshold = threshold
        self.minSpeechDurationMs = minSpeechDurationMs
        self.minSilenceDurationMs = minSilenceDurationMs
        self.speechPadMs = speechPadMs
    }
}

/// A voice activity detector an engine has loaded.
public protocol VADService: AnyObject, Sendable {
    /// The speech segments of 16 kHz mono samples; blocking.
    func detectSpeech(_ audio: AudioSamples, options: VADOptions) throws -> [SpeechSegment]

    /// Frees the model's memory, returning once it is freed (after its running work has ended
    /// as cancelled); the runtime calls it when it unloads the model, and uses the model no
    /// more. The default does nothing: the memory goes with the last reference.
    func unload() async
}

extension VADService {
    /// Does nothing: the model's memory is freed with its last reference.
    public func unload() async {}
}

/// A voice activity detector that gives the speech probability of each window of audio, for
/// a caller that follows a stream (a realtime session) and reads only its new windows, with a
/// little of what came before to settle the detector's state.
package protocol VADProbabilities: VADService {
    /// The speech probability of each ``VADWindow/samples``-sample window of 16 kHz mono `audio`
    /// (a partial last window padded with silence), from a fresh state; blocking.
    func speechProbabilities(_ audio: AudioSamples) throws -> [Float]
}

extension VADService {
    /// The speech probability of each ``VADWindow`` of 16 kHz `audio`: the detector's own
    /// (``VADProbabilities``), or for a detector that gives only segments, 1 for the windows
    /// inside them and 0 for the others; blocking.
    package func windowProbabilities(_ audio: AudioSamples) throws -> [Float] {
        if let scorer = self as? any VADProbabilities { return try scorer.speechProbabilities(audio) }
        let windows = (audio.samples.count + VADWindow.samples - 1) / VADWindow.samples
        let segments = try detectSpeech(audio, options: VADOptions(minSpeechDurationMs: 0, minSilenceDurationMs: 0, speechPadMs: 0))
        return (0..<windows).map { window in
            let middle = (Double(window) + 0.5) * Double(VADWindow.samples) / 16_000
            return segments.contains { $0.start <= middle && middle < $0.end } ? 1 : 0
        }
    }
}

/// The window ``VADProbabilities`` scores: Silero's, 32 ms at 16 kHz.
package enum VADWindow {
    /// Samples in a window, at 16 kHz.
    package static let samples = 512
    /// A window's length.
    package static let milliseconds = 32
}
