import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// `POST /api/vision/describe`, the web app's Vision screen, multipart: `file` (a PNG, JPEG,
/// GIF or BMP image), `prompt`, and optionally `model` (a vision-language model; by default the
/// first downloaded one), `maxTokens` and `temperature`. The answer streams as server-sent
/// events: `delta` (pieces of it), then `done` with the ``VLMResult``; a bad image or model is
/// a 400 before anything runs. A client that goes away stops the generation.
struct VisionRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    struct DescribeForm: Decodable, Sendable {
        let file: UploadedFile
        let prompt: String
        let model: String?
        let maxTokens: Int?
        let temperature: Float?
    }

    struct Delta: Encodable, Sendable { let content: String }

    func register(on router: Router<BasicRequestContext>) {
        router.post("api/vision/describe") { request, _ in
            let form = try await decodeMultipartForm(DescribeForm.self, from: request, limit: configuration.maxBodySize)
            let model = try form.model.map { try runtime.model(id: $0, category: .multimodal) } ?? runtime.defaultVisionModel()
            let image = VLMImage(data: form.file.data)
            _ = try image.load()  // a bad image is a 400 before the model loads
            var options = LLMGenerationOptions(threads: configuration.threads)
            if let maxTokens = form.maxTokens { options.maxTokens = maxTokens }
            if let temperature = form.temperature { options.temperature = temperature }
            let generation = try await runtime.generateStream(
                form.prompt, images: [image], context: nil, options: options, model: model.id, loadOptions: configuration.loadOptions,
                keepAlive: configuration.keepAlive
            )
            return ServerSentEvents.response { writer in
                var pending: [ServerSentEvent] = []
                do {
                    for try await piece in generation.stream {
                        pending.append(try ServerSentEvents.event(Delta(content: piece), name: "delta"))
                        try await ServerSentEvents.send(&pending, to: &writer)
                    }
                    pending.append(try ServerSentEvents.event(VLMResult(try await generation.result.value), name: "done"))
                } catch let error as SDKError {
                    pending.append(try ServerSentEvents.event(OpenAIError.from(error).envelope, name: "error"))
                }
                try await ServerSentEvents.send(&pending, to: &writer)
            }
        }
    }
}
