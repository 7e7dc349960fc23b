import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/audio/transcriptions`, multipart as OpenAI takes it: `file` (WAV, MP3, FLAC, Ogg,
/// WebM, M4A…: whatever the registered audio decoder reads), `model` (a speech-to-text model id;
/// OpenAI's `whisper-1` means the default one), `language`, `prompt`, `temperature`,
/// `response_format` (`json`, `text`, `verbose_json`, `srt`, `vtt`),
/// `timestamp_granularities[]` (`segment`) and `stream` (Server-Sent Events as each segment is
/// heard: ``TranscriptionStream``); and `POST /v1/audio/translations`, the speech written in
/// English whatever its language (whisper's translate task, a multilingual model's), with the
/// same fields less `language`, `timestamp_granularities[]` and `stream`, as OpenAI takes them.
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

    struct TranslationForm: MultipartForm, Sendable {
        let file: UploadedFile
        let model: String
        let prompt: String?
        let temperature: Float?
        let responseFormat: String?
        enum CodingKeys: String, CodingKey, CaseIterable {
            case file, model, prompt, temperature
            case responseFormat = "response_format"
        }
    }

    static let formats: Set<String> = ["json", "text", "verbose_json", "srt", "vtt"]

    /// `response_format`, json when absent; one OpenAI does not answer in is a 400.
    static func format(_ field: String?) throws -> String {
        let format = field ?? "json"
        guard formats.contains(format) else {
            throw APIError(
                .badRequest, "response_format '\(format)' is not supported; use json, text, verbose_json, srt or vtt",
                param: "response_format")
        }
        return format
    }

    /// The speech-to-text model `field` names, checked before the audio is decoded. OpenAI's
    /// `whisper-1` is the default model, or to translate the multilingual one where it is
    /// downloaded (the English-only default cannot translate, and says so).
    func model(_ field: String, temperature: Float?, translating: Bool = false) throws -> String {
        if let temperature, !(0...1).contains(temperature) {
            throw APIError(.badRequest, "temperature must be between 0 and 1", param: "temperature")
        }
        var model = field
        if field == "whisper-1" {
            let multilingual = SDKConstants.Models.multilingualSpeechRecognitionModelID
            model =
                translating && (try? runtime.model(id: multilingual))?.isDownloaded == true
                ? multilingual : SDKConstants.Models.defaultSpeechRecognitionModelID
        }
        _ = try runtime.model(id: model, category: .speechRecognition)
        return model
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/audio/transcriptions") { request, _ in
            let form = try await decodeMultipartForm(TranscriptionForm.self, from: request, limit: configuration.maxBodySize)
            let format = try Self.format(form.responseFormat)
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
            let model = try model(form.model, temperature: form.temperature)
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
        router.post("v1/audio/translations") { request, _ in
            let form = try await decodeMultipartForm(TranslationForm.self, from: request, limit: configuration.maxBodySize)
            let format = try Self.format(form.responseFormat)
            let model = try model(form.model, temperature: form.temperature, translating: true)
            let audio = try await form.file.audio(decodedBy: runtime, maxDuration: configuration.maxAudioDuration)
            let options = STTOptions(
                detectLanguage: true, enableTimestamps: !["json", "text"].contains(format), threads: configuration.threads,
                prompt: form.prompt, temperature: form.temperature ?? 0, translateToEnglish: true)
            let output = try await runtime.transcribe(
                audio, model: model, options: options, loadOptions: ModelLoadOptions(threads: configuration.threads))
            return try TranscriptionResponse(output: output, duration: audio.duration, translated: true).response(
                format: format, temperature: options.temperature)
        }
    }
}
