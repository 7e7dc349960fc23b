import Foundation
import Hummingbird
import RunAnywhere

/// The OpenAI-compatible routes: models, chat completions and completions.
struct OpenAIRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration
    let adapters: ServedLoRAAdapters

    func register(on router: some RouterMethods<ServerContext>) {
        let v1 = router.group("v1")
        v1.get("models") { _, _ in try jsonResponse(ModelList(data: servedModels().map(ModelObject.init))) }
        v1.get("models/{id}") { _, context in
            let id = try modelIDParameter(context)
            guard let model = servedModels().first(where: { $0.id == id }) else {
                throw APIError(
                    .notFound, "The model '\(id)' does not exist or is not installed", param: "model", code: "model_not_found")
            }
            return try jsonResponse(ModelObject(model))
        }
        v1.post("chat/completions") { request, _ in
            let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            var body = try decodeJSON(ChatCompletionRequest.self, from: data)
            let ordered = try? JSONValue(parsing: data)
            body.fields.keepSchemaOrder(from: ordered)
            body.tools.keepSchemaOrder(from: ordered)
            return try await complete(body.fields, tools: body.tools, conversation: try body.conversation())
        }
        v1.post("completions") { request, _ in
            let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            var body = try decodeJSON(CompletionRequest.self, from: data)
            body.fields.keepSchemaOrder(from: try? JSONValue(parsing: data))
            return try await complete(body.fields, prompt: body.prompt)
        }
    }

    /// The installed models a client can name on the `/v1` routes: language models, and
    /// vision-language models with their projector (chat and completions), embedding models
    /// (`/v1/embeddings`), rerankers (`/v1/rerank`), text-to-speech voices (`/v1/audio/speech`),
    /// speech recognition (`/v1/audio/transcriptions`) and image-generation models (`/v1/images/generations`).
    private func servedModels() -> [ModelInfo] {
        let served: Set<ModelCategory> = [.language, .embedding, .reranking, .speechSynthesis, .speechRecognition, .imageGeneration]
        return runtime.availableModels().filter {
            ($0.category == .multimodal && $0.projectorFile != nil) || (served.contains($0.category) && $0.isDownloaded)
        }
    }

    /// Runs one chat completion: the assistant's next message in `conversation`.
    private func complete(_ fields: GenerationFields, tools: ToolFields, conversation: Context) async throws -> Response {
        var options = try fields.options(threads: configuration.threads, applyChatTemplate: true, adapters: adapters)
        try tools.apply(to: &options)
        let generation = try await runtime.generateEvents(
            continuing: conversation, options: options, model: fields.model, loadOptions: configuration.loadOptions,
            keepAlive: fields.keepAlive?.value ?? configuration.keepAlive
        )
        return try await respond(fields, generation: generation, chat: true)
    }

    /// Runs one completion of `prompt`, used verbatim.
    private func complete(_ fields: GenerationFields, prompt: String) async throws -> Response {
        let options = try fields.options(threads: configuration.threads, applyChatTemplate: false, adapters: adapters)
        let generation = try await runtime.generateEvents(
            prompt, context: nil, options: options, model: fields.model, loadOptions: configuration.loadOptions,
            keepAlive: fields.keepAlive?.value ?? configuration.keepAlive
        )
        return try await respond(fields, generation: generation, chat: false)
    }

    /// Answers with the whole result, or streams it as server-sent events.
    private func respond(_ fields: GenerationFields, generation: GenerationEvents, chat: Bool) async throws -> Response {
        let model = fields.model
        let id = (chat ? "chatcmpl-" : "cmpl-") + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let created = Int(Date().timeIntervalSince1970)
        guard fields.stream else {
            let result = try await generation.result()
            if chat {
                let reply = ChatCompletion.Choice.Reply(result)
                return try jsonResponse(
                    ChatCompletion(
                        id: id, created: created, model: result.modelUsed,
                        choices: [
                            .init(
                                message: reply, finishReason: finishReason(result.stopReason),
                                logprobs: result.logprobs.map(ChatLogprobs.init))
                        ],
                        usage: Usage(result),
                        timings: Timings(result)
                    ))
            }
            return try jsonResponse(
                Completion(
                    id: id, created: created, model: result.modelUsed,
                    choices: [
                        .init(
                            text: result.text, finishReason: finishReason(result.stopReason),
                            logprobs: result.logprobs.map { CompletionLogprobs($0) })
                    ],
                    usage: Usage(result),
                    timings: Timings(result)
                ))
        }
        func serverSentEvents(_ framing: some ChunkFraming) -> Response {
            let events = CompletionEvents(framing: framing, includeUsage: fields.includeUsage, generation: generation)
            return ServerSentEvents.response { writer in try await events.write(to: &writer) }
        }
        guard chat else {
            let pattern = (try? runtime.model(id: model))?.thinkingPattern ?? .defaultPattern
            return serverSentEvents(
                try TextChunkFraming(id: id, created: created, model: model, text: LLMStreamingResult.Projection(thinkingPattern: pattern)))
        }
        return serverSentEvents(try ChatChunkFraming(id: id, created: created, model: model))
    }
}
