import Foundation

/// How to synthesize speech.
public struct TTSOptions: Codable, Sendable, Equatable {
    /// A voice name the engine knows (e.g. "en-us" for eSpeak NG); nil uses the loaded voice's own.
    public var voice: String?
    /// The spec's language; a voice speaks its own language, so it is not read.
    public var language: String
    /// Speaking rate; 1 is normal, 2 twice as fast (0.25 to 4).
    public var rate: Float
    /// Pitch; 1 is normal (0.5 to 2). Piper voices have a fixed pitch and ignore it.
    public var pitch: Float
    /// Loudness; 1 is unchanged (0 to 2, clipped at full scale).
    public var volume: Float
    /// The encoding of the output.
    public var audioFormat: AudioFormat
    /// Requested sample rate; the output keeps the voice's own rate when 0.
    public var sampleRate: Int
    /// The spec's SSML switch; no Linux voice reads SSML, so it is not read and the text is spoken
    /// as written.
    public var useSSML: Bool

    /// Creates speech options.
    public init(
        voice: String? = nil, language: String = "en-US", rate: Float = 1, pitch: Float = 1, volume: Float = 1,
        audioFormat: AudioFormat = .pcm, sampleRate: Int = 0, useSSML: Bool = false
    ) {
        self.voice = voice
        self.language = language
        self.rate = rate
        self.pitch = pitch
        self.volume = volume
        self.audioFormat = audioFormat
        self.sampleRate = sampleRate
        self.useSSML = useSSML
    }

    /// Throws a clear error for values out of range.
    package func validate() throws {
        func bad(_ why: String) -> SDKError { SDKError(.invalidInput, "Invalid speech options: \(why)") }
        guard rate.isFinite, (0.25...4).contains(rate) else { throw bad("rate must be between 0.25 and 4 (got \(rate))") }
        guard pitch.isFinite, (0.5...2).contains(pitch) else { throw bad("pitch must be between 0.5 and 2 (got \(pitch))") }
        guard volume.isFinite, (0...2).contains(volume) else { throw bad("volume must be between 0 and 2 (got \(volume))") }
        guard sampleRate == 0 || (8_000...96_000).contains(sampleRate) else {
            throw bad("sampleRate must be 0 or 8000 to 96000 (got \(sampleRate))")
        }
    }
}

/// How long a synthesis took.
public struct TTSSynthesisMetadata: Codable, Sendable, Equatable {
    /// The voice that spoke.
    public let voice: String
    /// The language of the voice.
    public let language: String
    /// Seconds spent synthesizing.
    public let processingTime: TimeInterval
    /// Characters of the text spoken.
    public let characterCount: Int
    /// characterCount / processingTime.
    public let charactersPerSecond: Double
}

/// Synthesized speech.
public struct TTSOutput: Codable, Sendable, Equatable {
    /// 16-bit little-endian mono PCM (`format` .pcm), or a WAV file (`format` .wav).
    public let audioData: Data
    /// The encoding of `audioData`.
    public let format: AudioFormat
    /// Samples per second of the audio.
    public let sampleRate: Int
    /// Seconds of audio.
    public let duration: TimeInterval
    /// The voice, language, length and timing of the synthesis.
    public let metadata: TTSSynthesisMetadata
}

/// A text-to-speech voice an engine has loaded.
public protocol TTSService: AnyObject, Sendable {
    /// The voice's name and language, for metadata.
    var voiceName: String { get }
    /// The language the loaded voice speaks.
    var language: String { get }
    /// Synthesizes one chunk of text (a few sentences); blocking.
    func synthesize(_ text: String, options: TTSOptions, cancellation: CancellationFlag) throws -> AudioSamples

    /// Frees the model's memory, returning once it is freed (after its running work has ended
    /// as cancelled); the runtime calls it when it unloads the model, and uses the model no
    /// more. The default does nothing: the memory goes with the last reference.
    func unload() async
}

extension TTSService {
    /// Does nothing: the model's memory is freed with its last reference.
    public func unload() async {}
}

/// Turns text into phonemes (IPA), sentence by sentence, for voices that read phonemes.
public protocol Phonemizer: Sendable {
    /// The IPA of each sentence of `text`, spoken by `voice` (e.g. "en-us").
    func phonemize(_ text: String, voice: String) throws -> [String]
}
