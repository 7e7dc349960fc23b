import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/audio/transcriptions`, multipart as OpenAI takes it: `file` (WAV, MP3, FLAC, Ogg,
/// WebM, M4A…: whatever the registered audio decoder reads), `model` (a speech-to-text model id;
/// OpenAI's `whisper-1` means the default one), `language`, `prompt`, `temperature`,
/// `response_format` (`json`, `text`, `verbose_json`, `srt`, `vtt`),
/// `timestamp_granularities[]` (`segment`) and `stream` (Server-Sent Events as each segment is
/// heard: ``TranscriptionStream``).
struct TranscriptionRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    struct TranscriptionForm: MultipartForm, Sendable {
        let file: UploadedFile
        let model: String
        let language: String?
        let prompt: String?
        let temperature: Float?
        let responseFormat: String?
        let timestampGranularities: [String]?
        let stream: Bool?
        enum CodingKeys: String, CodingKey, CaseIterable {
            case file, model, language, prompt, temperature, stream
            case responseFormat = "response_format", timestampGranularities = "timestamp_granularities"
        }
    }

    static let formats: Set<String> = ["json", "text", "verbose_json", "srt", "vtt"]

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/audio/transcriptions") { request, _ in
            let form = try await decodeMultipartForm(TranscriptionForm.self, from: request, limit: configuration.maxBodySize)
            let format = form.responseFormat ?? "json"
            guard Self.formats.contains(format) else {
                throw APIError(
                    .badRequest, "response_format '\(format)' is not supported; use json, text, verbose_json, srt or vtt",
                    param: "response_format")
            }
            let stream = form.stream ?? false
            if stream, format != "json", format != "text" {
                throw APIError(
                    .badRequest,
                    "stream=true sends the text as transcript.text events; response_format must be json or text, not \(format)",
                    param: "response_format")
            }
            if let other = form.timestampGranularities?.first(where: { $0 != "segment" }) {
                throw APIError(
                    .badRequest, "timestamp_granularities '\(other)' is not supported; segments carry their times",
                    param: "timestamp_granularities")
            }
            if let temperature = form.temperature, !(0...1).contains(temperature) {
                throw APIError(.badRequest, "temperature must be between 0 and 1", param: "temperature")
            }
            let model = form.model == "whisper-1" ? SDKConstants.Models.defaultSpeechRecognitionModelID : form.model
            _ = try runtime.model(id: model, category: .speechRecognition)  // refused before the audio is decoded
            let audio = try await form.file.audio(decodedBy: runtime, maxDuration: configuration.maxAudioDuration)
            let language = form.language.flatMap { $0.isEmpty ? nil : $0.lowercased() }
            // Only segments' times need whisper's timestamps (and its whole 30 s window).
            let options = STTOptions(
                language: language ?? "en", detectLanguage: language == nil,
                enableTimestamps: stream || !["json", "text"].contains(format), threads: configuration.threads,
                prompt: form.prompt, temperature: form.temperature ?? 0)
            let loadOptions = ModelLoadOptions(threads: configuration.threads)
            if stream {
                return try await TranscriptionStream.response(
                    try await runtime.transcribeStream(audio, model: model, options: options, loadOptions: loadOptions))
            }
            let output = try await runtime.transcribe(audio, model: model, options: options, loadOptions: loadOptions)
            return try TranscriptionResponse(output: output, duration: audio.duration).response(
                format: format, temperature: options.temperature)
        }
    }
}
