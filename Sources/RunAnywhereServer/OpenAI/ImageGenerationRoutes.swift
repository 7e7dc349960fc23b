import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/images/generations`, OpenAI's Images API on the local diffusion engine: `prompt`,
/// `model` (an image-generation model id; by default the first downloaded one), `n` (1 to 4
/// images, drawn one after another, with seeds `seed`, `seed + 1`…), `size` (`WIDTHxHEIGHT`, each
/// a multiple of 8 from 64 to 2048, or `auto` for the model family's), `response_format`
/// `b64_json` (the default) or `url` (a `data:image/png;base64,…` URL: the server keeps no
/// files), `output_format` `png` (the only one), `stream` (each image as an
/// `image_generation.completed` event as it is drawn; `partial_images` is accepted and none are
/// sent, as OpenAI may when the image comes first), and RunAnywhere's own `negative_prompt`,
/// `steps`, `seed`, `guidance_scale` and `sampler`. OpenAI's `quality`, `style` and `user` are
/// accepted and have no effect. Each image also says its `seed`, so that it can be drawn again.
struct ImageGenerationRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    struct GenerationRequest: Decodable, Sendable {
        let prompt: String
        let model: String?
        @NumberField var n: Int?
        let size: String?
        let responseFormat: String?
        let negativePrompt: String?
        @NumberField var steps: Int?
        @NumberField var seed: Int64?
        @NumberField var guidanceScale: Float?
        let sampler: String?
        let outputFormat: String?
        let stream: Bool?
        enum CodingKeys: String, CodingKey {
            case prompt, model, n, size, responseFormat = "response_format", negativePrompt = "negative_prompt", steps, seed
            case guidanceScale = "guidance_scale", sampler, outputFormat = "output_format", stream
        }
    }

    struct ImagesResponse: Encodable, Sendable {
        struct Image: Encodable, Sendable {
            let b64JSON: String?
            let url: String?
            let revisedPrompt: String
            let seed: Int64
            enum CodingKeys: String, CodingKey { case b64JSON = "b64_json", url, revisedPrompt = "revised_prompt", seed }
        }

        let created: Int
        let data: [Image]
        let model: String
        let size: String
        let outputFormat = "png"
        enum CodingKeys: String, CodingKey { case created, data, model, size, outputFormat = "output_format" }
    }

    /// A streamed image, as OpenAI's `image_generation.completed` event has it.
    struct CompletedEvent: Encodable, Sendable {
        let type = "image_generation.completed"
        let b64JSON: String
        let createdAt: Int
        let size: String
        let outputFormat = "png"
        let seed: Int64
        enum CodingKeys: String, CodingKey {
            case type, b64JSON = "b64_json", createdAt = "created_at", size, outputFormat = "output_format", seed
        }
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("v1/images/generations") { request, _ in
            let body = try await decodeJSON(GenerationRequest.self, from: request, limit: configuration.maxBodySize)
            let format = body.responseFormat ?? "b64_json"
            guard format == "b64_json" || format == "url" else {
                throw APIError(
                    .badRequest, "response_format '\(format)' is not supported; use b64_json or url", param: "response_format")
            }
            let count = body.n ?? 1
            guard (1...4).contains(count) else { throw APIError(.badRequest, "n must be 1 to 4 (got \(count))", param: "n") }
            // Image i is drawn with seed + i: the last of them must still be a seed.
            if let seed = body.seed, seed > Int64.max - Int64(count - 1) {
                throw APIError(
                    .badRequest, "seed must be at most \(Int64.max - Int64(count - 1)) for n = \(count) (the images take seed, seed + 1…)",
                    param: "seed")
            }
            if let output = body.outputFormat, output != "png" {
                throw APIError(.badRequest, "output_format '\(output)' is not supported; images are PNG", param: "output_format")
            }
            let streamed = body.stream ?? false
            if streamed, format == "url" {
                throw APIError(.badRequest, "a streamed image comes as b64_json; response_format url cannot stream", param: "stream")
            }
            let model = try body.model.map { try runtime.model(id: $0, category: .imageGeneration) } ?? runtime.defaultDiffusionModel()
            let options = try Self.options(body)
            let size = "\(options.width)x\(options.height)"
            // Image i is drawn with seed + i (checked above: no overflow).
            let draw = { @Sendable (index: Int) async throws -> DiffusionResult in
                var options = options
                if let seed = body.seed, seed >= 0 { options.seed = seed + Int64(index) }
                let progress = try await runtime.generateImageStream(
                    prompt: body.prompt, options: options, model: model,
                    configuration: DiffusionConfiguration(modelId: model.id, threads: configuration.threads))
                return try await RunAnywhereRuntime.image(from: progress)
            }
            if streamed {
                return ServerSentEvents.response { send in
                    for index in 0..<count {
                        let result = try await draw(index)
                        try await send([
                            try ServerSentEvents.event(
                                CompletedEvent(
                                    b64JSON: result.imageData.base64EncodedString(), createdAt: Int(Date().timeIntervalSince1970),
                                    size: size, seed: result.seedUsed),
                                name: "image_generation.completed")
                        ])
                    }
                }
            }
            var images: [ImagesResponse.Image] = []
            for index in 0..<count {
                let result = try await draw(index)
                let base64 = result.imageData.base64EncodedString()
                images.append(
                    .init(
                        b64JSON: format == "b64_json" ? base64 : nil, url: format == "url" ? "data:image/png;base64,\(base64)" : nil,
                        revisedPrompt: body.prompt, seed: result.seedUsed
                    ))
            }
            return try jsonResponse(ImagesResponse(created: Int(Date().timeIntervalSince1970), data: images, model: model.id, size: size))
        }
    }

    /// The generation options a request asks for; unset ones are Stable Diffusion 1.5's defaults.
    static func options(_ body: GenerationRequest) throws -> DiffusionGenerationOptions {
        var sides: [Int]?
        if let size = body.size, size != "auto" {
            let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            sides = parts.compactMap { Int($0) }
            guard parts.count == 2, sides?.count == 2 else {
                throw APIError(.badRequest, "size must be WIDTHxHEIGHT, e.g. 512x512 (got '\(size)')", param: "size")
            }
        }
        let scheduler = try body.sampler.map { sampler in
            guard let scheduler = DiffusionScheduler(caseInsensitive: sampler) else {
                throw APIError(
                    .badRequest,
                    "unknown sampler '\(sampler)'; choose one of \(DiffusionScheduler.allCases.map(\.rawValue).joined(separator: ", "))",
                    param: "sampler")
            }
            return scheduler
        }
        let options = DiffusionGenerationOptions.defaults(for: .sd15, prompt: body.prompt).with(
            negativePrompt: body.negativePrompt, width: sides?[0], height: sides?[1], steps: body.steps, guidanceScale: body.guidanceScale,
            seed: body.seed, scheduler: scheduler
        )
        try options.check(fields: [
            "width": "size", "height": "size", "guidanceScale": "guidance_scale", "negativePrompt": "negative_prompt",
        ])
        return options
    }
}
