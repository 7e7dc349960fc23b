import Foundation
import Hummingbird
import RunAnywhere

/// A transcription or translation in the shapes OpenAI answers with: `json`, `verbose_json`
/// (language, duration and timed segments), `text`, and the subtitle formats `srt` and `vtt`.
struct TranscriptionResponse {
    let output: STTOutput
    /// Seconds of audio transcribed.
    let duration: Double
    /// Whether the text is the speech's English translation (`/v1/audio/translations`).
    var translated = false

    /// OpenAI bills transcriptions by the second, and reports them so.
    struct Usage: Encodable {
        let type = "duration"
        let seconds: Int
    }

    struct Simple: Encodable {
        let text: String
        let usage: Usage
    }

    struct Verbose: Encodable {
        let task: String
        let language: String
        let duration: Double
        let text: String
        let segments: [Segment]
        let usage: Usage
    }

    struct Segment: Encodable {
        let id: Int
        /// Where the segment starts, in whisper's 10 ms frames.
        let seek: Int
        let start: Double
        let end: Double
        let text: String
        let temperature: Float
        /// The log of the segment's mean token probability.
        let avgLogprob: Double
        /// The engine's token ids of the segment.
        let tokens: [Int32]
        /// The text's UTF-8 size over its zlib-compressed size (high: the model repeating itself).
        let compressionRatio: Double
        /// How likely the segment holds no speech (0 where the engine does not say).
        let noSpeechProb: Float
        enum CodingKeys: String, CodingKey {
            case id, seek, start, end, text, temperature, tokens, avgLogprob = "avg_logprob", compressionRatio = "compression_ratio"
            case noSpeechProb = "no_speech_prob"
        }
    }

    /// The response in `format` (one of ``TranscriptionRoutes/formats``).
    func response(format: String, temperature: Float) throws -> Response {
        let usage = Usage(seconds: Int(duration.rounded(.up)))
        switch format {
        case "text": return bodyResponse(ByteBuffer(string: output.text + "\n"), contentType: "text/plain; charset=utf-8")
        case "srt": return bodyResponse(ByteBuffer(string: subtitles(separator: ",")), contentType: "application/x-subrip; charset=utf-8")
        case "vtt":
            return bodyResponse(ByteBuffer(string: "WEBVTT\n\n" + subtitles(separator: ".")), contentType: "text/vtt; charset=utf-8")
        case "verbose_json":
            let segments = output.segments.enumerated().map { index, segment in
                Segment(
                    id: index, seek: Int((segment.startTime * 100).rounded()), start: segment.startTime, end: segment.endTime,
                    text: segment.text, temperature: temperature, avgLogprob: log(Double(max(segment.confidence, 1e-6))),
                    tokens: segment.tokens, compressionRatio: segment.compressionRatio, noSpeechProb: segment.noSpeechProbability ?? 0)
            }
            return try jsonResponse(
                Verbose(
                    // A translation's language is its text's, as OpenAI says: always English.
                    task: translated ? "translate" : "transcribe",
                    language: translated ? "english" : Self.languageName(output.detectedLanguage),
                    duration: duration,
                    text: output.text, segments: segments, usage: usage))
        default: return try jsonResponse(Simple(text: output.text, usage: usage))
        }
    }

    /// Numbered (SRT) or plain (WebVTT) cues, one a segment.
    private func subtitles(separator: String) -> String {
        output.segments.enumerated().map { index, segment in
            let cue =
                "\(Self.timestamp(segment.startTime, separator)) --> \(Self.timestamp(segment.endTime, separator))\n"
                + segment.text.trimmingCharacters(in: .whitespaces) + "\n"
            return separator == "," ? "\(index + 1)\n" + cue : cue
        }.joined(separator: "\n")
    }

    /// `hh:mm:ss,mmm` (SRT) or `hh:mm:ss.mmm` (WebVTT).
    static func timestamp(_ seconds: Double, _ separator: String) -> String {
        let milliseconds = Int((max(0, seconds) * 1000).rounded())
        let (hours, minutes, secs) = (milliseconds / 3_600_000, milliseconds / 60_000 % 60, milliseconds / 1000 % 60)
        return String(format: "%02d:%02d:%02d%@%03d", hours, minutes, secs, separator, milliseconds % 1000)
    }

    /// The language's English name in lower case, as OpenAI gives it ("en" → "english").
    static func languageName(_ code: String?) -> String {
        guard let code else { return "unknown" }
        return Locale(identifier: "en_US").localizedString(forLanguageCode: code)?.lowercased() ?? code
    }
}
