import Foundation
import Hummingbird
import MultipartKit
import RunAnywhere

/// `POST /v1/audio/transcriptions`, multipart as OpenAI takes it: `file` (WAV, MP3, FLAC, Ogg,
/// WebM, M4A…: whatever the registered audio decoder reads), `model` (a speech-to-text model id;
/// OpenAI's `whisper-1` means the default one), `language`, `prompt`, `temperature`,
/// `response_format` (`json`, `text`, `verbose_json`, `srt`, `vtt`) and
/// `timestamp_granularities[]` (`segment`).
struct TranscriptionRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    struct TranscriptionForm: Decodable, Sendable {
        let file: UploadedFile
        let model: String
        let language: String?
        let prompt: String?
        let temperature: Float?
        let responseFormat: String?
        let timestampGranularities: [String]?
        enum CodingKeys: String, CodingKey {
            case file, model, language, prompt, temperature
            case responseFormat = "response_format", timestampGranularities = "timestamp_granularities"
        }
    }

    static let formats: Set<String> = ["json", "text", "verbose_json", "srt", "vtt"]

    func register(on router: Router<BasicRequestContext>) {
        router.post("v1/audio/transcriptions") { request, _ in
            let form = try await decodeForm(request)
            let format = form.responseFormat ?? "json"
            guard Self.formats.contains(format) else {
                throw OpenAIError(.badRequest, "response_format '\(format)' is not supported; use json, text, verbose_json, srt or vtt", param: "response_format")
            }
            if let other = form.timestampGranularities?.first(where: { $0 != "segment" }) {
                throw OpenAIError(.badRequest, "timestamp_granularities '\(other)' is not supported; segments carry their times", param: "timestamp_granularities")
            }
            if let temperature = form.temperature, !(0...1).contains(temperature) {
                throw OpenAIError(.badRequest, "temperature must be between 0 and 1", param: "temperature")
            }
            let model = form.model == "whisper-1" ? SDKConstants.Models.defaultSpeechRecognitionModelID : form.model
            let audio = try await runtime.decodeAudio(form.file.data, name: form.file.displayName, maxDuration: configuration.maxAudioDuration)
            let language = form.language.flatMap { $0.isEmpty ? nil : $0.lowercased() }
            let options = STTOptions(language: language ?? "en", detectLanguage: language == nil, threads: configuration.threads,
                                     prompt: form.prompt, temperature: form.temperature ?? 0)
            let output = try await runtime.transcribe(audio, model: model, options: options, loadOptions: ModelLoadOptions(threads: configuration.threads))
            return try TranscriptionResponse(output: output, duration: audio.duration).response(format: format, temperature: options.temperature)
        }
    }

    /// The form in the request body, read up to the size limit.
    private func decodeForm(_ request: Request) async throws -> TranscriptionForm {
        guard let header = request.headers[.contentType], let type = MediaType(from: header), type.isType(.multipartForm),
              let boundary = type.parameter.flatMap({ $0.name.lowercased() == "boundary" ? $0.value : nil }) else {
            throw OpenAIError(.badRequest, "The body must be multipart/form-data with a boundary")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: configuration.maxBodySize)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw OpenAIError(.contentTooLarge, "The upload is larger than \(configuration.maxBodySize) bytes")
        }
        do {
            return try FormDataDecoder().decode(TranscriptionForm.self, from: body, boundary: boundary)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty { throw OpenAIError(.badRequest, "The body is not well-formed multipart/form-data") }
            throw error  // a 400 naming the field
        } catch {
            throw OpenAIError(.badRequest, "The body is not well-formed multipart/form-data")
        }
    }
}

/// A file part of a form: its bytes and the name the client gave it (shown in errors only,
/// never used as a path).
struct UploadedFile: Decodable, Sendable, MultipartPartConvertible {
    let data: Data
    let filename: String?

    var multipart: MultipartPart? { MultipartPart(body: data) }

    init?(multipart: MultipartPart) {
        data = Data(buffer: multipart.body)
        filename = multipart.headers.first(name: "Content-Disposition").flatMap(Self.filename(inDisposition:))
    }

    init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(UploadedFile.self, .init(codingPath: decoder.codingPath, debugDescription: "A file is read from a multipart form only"))
    }

    /// The file's name as the client gave it, or "The upload".
    var displayName: String {
        guard let filename, !filename.isEmpty else { return "The upload" }
        return String(filename.prefix(100).map { $0.isASCII && !$0.isNewline ? $0 : "?" })
    }

    /// `filename="…"` in a Content-Disposition header.
    static func filename(inDisposition header: String) -> String? {
        for parameter in header.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "filename" { return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }
}
