internal import CFFmpeg
import Foundation
import RunAnywhere

/// Reads compressed audio with FFmpeg (Debian's libavformat, libavcodec and libswresample, opened
/// privately at run time like the engines): MP3, FLAC, Ogg/Vorbis, Ogg/Opus, WebM/Opus (what
/// browsers record), AAC/M4A and every other container and codec the installed FFmpeg reads.
/// Register it with ``RunAnywhere/RunAnywhere/registerAudioDecoder(_:)``.
///
/// A separate product because Debian builds FFmpeg under the GPL.
public struct FFmpegAudioDecoder: AudioFileDecoder {
    private let directory: String?

    /// A decoder that opens FFmpeg from `$RUNANYWHERE_FFMPEG_LIB` (a folder) when it is set, else
    /// from the system's library path. Nothing is opened until the first decode.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        directory = environment["RUNANYWHERE_FFMPEG_LIB"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Decodes the first audio stream of `data` to mono float samples (see ``RunAnywhere/AudioFileDecoder``).
    public func decode(_ data: Data, name: String, sampleRate: Int?, maxDuration: TimeInterval?) throws -> AudioSamples {
        guard !data.isEmpty else { throw SDKError(.emptyInput, "\(name) is empty") }
        let rate = sampleRate ?? 0
        guard (0...768_000).contains(rate) else { throw SDKError(.invalidInput, "Invalid sample rate \(rate)") }  // as AudioSamples takes it
        guard maxDuration.map({ $0 >= 0 }) ?? true else { throw SDKError(.invalidInput, "The longest duration taken must be 0 s or more") }
        var api = try FFmpegLibraries.load(directory: directory)
        // Stops decoding early at the target rate; at the file's own rate the length is checked after.
        // Capped at 2^52 samples (no file holds more), so that a huge or infinite limit converts.
        let maxSamples = rate > 0 ? maxDuration.map { Int(min($0 * Double(rate), 0x1p52)) + 1 } ?? 0 : 0
        var samples: UnsafeMutablePointer<Float>?
        var count = 0
        var decodedRate: Int32 = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = data.withUnsafeBytes { raw in
            ra_ffmpeg_decode(
                &api, raw.bindMemory(to: UInt8.self).baseAddress!, raw.count, Int32(rate), maxSamples,
                &samples, &count, &decodedRate, &message, message.count)
        }
        guard status == 0, let samples else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SDKError(.invalidInput, "\(name) could not be read as audio: \(reason)")
        }
        defer { free(samples) }
        let audio = try AudioSamples(samples: Array(UnsafeBufferPointer(start: samples, count: count)), sampleRate: Int(decodedRate))
        if let maxDuration, audio.duration > maxDuration {
            throw SDKError(.invalidInput, "\(name) holds \(Int(audio.duration)) s of audio; at most \(Int(maxDuration)) s are taken")
        }
        return audio
    }
}

/// FFmpeg's libraries, opened once per process.
enum FFmpegLibraries {
    private static let libraries = EngineLibraryCache<ra_ffmpeg_api>(
        engine: "FFmpeg", hint: "apt-get install libavformat59 libavcodec59 libswresample4"
    )

    /// The function tables of the libraries in `directory`, or on the system's library path.
    static func load(directory: String?) throws -> ra_ffmpeg_api {
        try libraries.library(
            candidates: [directory ?? ""],
            load: { path, table, error, size in
                let folder = String(cString: path)
                return folder.isEmpty ? ra_ffmpeg_api_load(nil, table, error, size) : ra_ffmpeg_api_load(path, table, error, size)
            }, setup: { api, _ in api })
    }
}
