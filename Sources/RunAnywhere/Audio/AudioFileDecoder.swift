import Foundation

/// Reads compressed audio files (MP3, FLAC, Ogg/Vorbis, Ogg/Opus, WebM/Opus, AAC…) for the SDK,
/// which reads WAV itself. An engine target provides one (`RunAnywhereFFmpeg`); register it with
/// ``RunAnywhere/registerAudioDecoder(_:)``.
public protocol AudioFileDecoder: Sendable {
    /// The first audio stream of the file held in `data`, mixed down to mono, at `sampleRate`
    /// (nil: the file's own rate). Throws ``SDKError`` (`.invalidInput`, naming the file as
    /// `name`) for data it cannot read, and when the audio is longer than `maxDuration`.
    func decode(_ data: Data, name: String, sampleRate: Int?, maxDuration: TimeInterval?) throws -> AudioSamples
}

extension AudioSamples {
    /// Reads the audio file held in `data`: PCM or float WAV by the SDK's own reader, anything
    /// else (and WAV encodings it does not read, such as µ-law or ADPCM) by `decoder`. The result
    /// is at `sampleRate` when one is given, else at the file's own rate.
    public init(
        fileData data: Data, name: String, decoder: (any AudioFileDecoder)?, sampleRate: Int? = nil, maxDuration: TimeInterval? = nil
    ) throws {
        guard !data.isEmpty else { throw SDKError(.emptyInput, "\(name) is empty") }
        // Not NaN nor negative: then a duration beyond it is finite, and Int(maxDuration) below cannot trap.
        guard maxDuration.map({ $0 >= 0 }) ?? true else { throw SDKError(.invalidInput, "The longest duration taken must be 0 s or more") }
        let isWAV = data.count >= 12 && data.prefix(4).elementsEqual("RIFF".utf8) && data.dropFirst(8).prefix(4).elementsEqual("WAVE".utf8)
        let wav: Result<AudioSamples, any Error>? = isWAV ? Result { try WAVCodec.decode(data, name: name) } : nil
        switch (wav, decoder) {
        case (.success(var audio)?, _):
            if let maxDuration, audio.duration > maxDuration {
                throw SDKError(.invalidInput, "\(name) holds \(Int(audio.duration)) s of audio; at most \(Int(maxDuration)) s are taken")
            }
            if let sampleRate { audio = audio.resampled(to: sampleRate) }
            self = audio
        case (.failure(let error)?, nil):
            throw error
        case (nil, nil):
            throw SDKError(
                .invalidInput,
                "\(name) is not a WAV file, and no decoder for other audio formats is registered (RunAnywhereFFmpeg reads MP3, FLAC, Ogg and WebM)"
            )
        case (_, let decoder?):
            self = try decoder.decode(data, name: name, sampleRate: sampleRate, maxDuration: maxDuration)
        }
    }
}
