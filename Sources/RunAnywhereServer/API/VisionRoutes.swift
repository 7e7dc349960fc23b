import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// The web app's Vision screen.
///
/// `POST /api/vision/describe`, multipart: `file` (a PNG, JPEG, GIF or BMP image), `prompt`, and
/// optionally `model` (a vision-language model; by default the first downloaded one),
/// `maxTokens` and `temperature`. The answer streams as server-sent events: `delta` (pieces of
/// it), then `done` with the ``RunAnywhere/VLMResult``; a bad image or model is a 400 before anything runs.
///
/// `POST /api/vision/imagine`, JSON: `prompt`, and optionally `model` (an image-generation model;
/// by default the first downloaded one) and the ``RunAnywhere/DiffusionGenerationOptions`` fields
/// (`negativePrompt`, `width`, `height`, `steps`, `guidanceScale`, `seed`, `scheduler`). The
/// steps stream as `progress` events (``RunAnywhere/DiffusionProgress``), then `done` with the
/// ``RunAnywhere/DiffusionResult`` (its PNG base64 in `imageData`); bad options or model are a 400 first.
///
/// A client that goes away stops either.
struct VisionRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    struct DescribeForm: MultipartForm, Sendable {
        let file: UploadedFile
        let prompt: String
        let model: String?
        @NumberField var maxTokens: Int?
        @NumberField var temperature: Float?
        enum CodingKeys: String, CodingKey, CaseIterable { case file, prompt, model, maxTokens, temperature }
    }

    struct ImagineRequest: Decodable, Sendable {
        let prompt: String
        let model: String?
        let negativePrompt: String?
        @NumberField var width: Int?
        @NumberField var height: Int?
        @NumberField var steps: Int?
        @NumberField var guidanceScale: Float?
        @NumberField var seed: Int64?
        let scheduler: DiffusionScheduler?

        /// The options asked for over Stable Diffusion 1.5's defaults, checked.
        func options() throws -> DiffusionGenerationOptions {
            let options = DiffusionGenerationOptions.defaults(for: .sd15, prompt: prompt).with(
                negativePrompt: negativePrompt, width: width, height: height, steps: steps, guidanceScale: guidanceScale, seed: seed,
                scheduler: scheduler
            )
            try options.check(fields: [:])  // the request's fields are the options' names
            return options
        }
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("api/vision/describe") { request, _ in
            let form = try await decodeMultipartForm(DescribeForm.self, from: request, limit: configuration.maxBodySize)
            let model = try form.model.map { try runtime.model(id: $0, category: .multimodal) } ?? runtime.defaultVisionModel()
            let image = VLMImage(data: form.file.data)
            _ = try image.load()  // a bad image is a 400 before the model loads
            var options = LLMGenerationOptions(threads: configuration.threads)
            model.defaults?.apply(to: &options)
            if let maxTokens = form.maxTokens { options.maxTokens = maxTokens }
            if let temperature = form.temperature { options.temperature = temperature }
            let generation = try await runtime.generateEvents(
                form.prompt, images: [image], context: nil, options: options, model: model.id, loadOptions: configuration.loadOptions,
                keepAlive: configuration.keepAlive
            )
            return ServerSentEvents.response { writer in
                var pending: [ServerSentEvent] = []
                try await generation.relay(
                    to: &writer,
                    event: { event, writer in
                        if case .completed(let result) = event {
                            pending.append(try ServerSentEvents.event(VLMResult(result), name: "done"))
                        } else if let delta = try ServerSentEvents.delta(event) {
                            pending.append(delta)
                        }
                        try await ServerSentEvents.send(&pending, to: &writer)
                    },
                    failure: { error, _ in pending.append(try ServerSentEvents.error(error)) },
                    closing: { writer in try await ServerSentEvents.send(&pending, to: &writer) }
                )
            }
        }
        router.post("api/vision/imagine") { request, _ in
            let body = try await decodeJSON(ImagineRequest.self, from: request, limit: configuration.maxBodySize)
            let model = try body.model.map { try runtime.model(id: $0, category: .imageGeneration) } ?? runtime.defaultDiffusionModel()
            let progress = try await runtime.generateImageStream(
                prompt: body.prompt, options: body.options(), model: model,
                configuration: DiffusionConfiguration(modelId: model.id, threads: configuration.threads)
            )
            return ServerSentEvents.response { send in
                for try await step in progress {
                    try await send([
                        try step.result.map { try ServerSentEvents.event($0, name: "done") }
                            ?? ServerSentEvents.event(step, name: "progress")
                    ])
                }
            }
        }
    }
}
