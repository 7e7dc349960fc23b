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
            let id = try context.pathParameter("id")
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
            return try await complete(body.fields, prompts: body.prompts, echo: body.echo, suffix: body.suffix)
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

    /// Runs one chat completion: the assistant's next message in `conversation` (`n` of them).
    private func complete(_ fields: GenerationFields, tools: ToolFields, conversation: Context) async throws -> Response {
        var options = try fields.options(
            threads: configuration.threads, applyChatTemplate: true, adapters: adapters, defaults: runtime.defaults(of: fields.model))
        try tools.apply(to: &options)
        let generations = try await start(fields, options: options) { options in
            try await runtime.generateEvents(
                continuing: conversation, options: options, model: fields.model, loadOptions: configuration.loadOptions,
                keepAlive: fields.keepAlive?.value ?? configuration.keepAlive)
        }
        return try await respond(fields, generations: generations, chat: true, logprobs: options.logprobs != nil)
    }

    /// Runs the completions of `prompts`, each used verbatim (`n` of each, all side by side);
    /// with `echo`, each choice begins with its prompt (token ids as their text), and with
    /// `logprobs` with the prompt's log-probabilities too. With `suffix`, each fills in the gap
    /// between its prompt and `suffix`.
    private func complete(
        _ fields: GenerationFields, prompts: [CompletionPrompt], echo: Bool, suffix: String?
    ) async throws -> Response {
        var options = try fields.options(
            threads: configuration.threads, applyChatTemplate: false, adapters: adapters, defaults: runtime.defaults(of: fields.model))
        if echo { options.promptLogprobs = options.logprobs }
        let keepAlive = fields.keepAlive?.value ?? configuration.keepAlive
        var generations: [GenerationEvents] = []
        var echoes: [String] = []
        do {
            for prompt in prompts {
                generations += try await start(fields, options: options) { options in
                    try await prompt.generate(
                        on: runtime, suffix: suffix, options: options, model: fields.model, loadOptions: configuration.loadOptions,
                        keepAlive: keepAlive)
                }
                guard echo else { continue }
                let text =
                    switch prompt {
                    case .text(let text): text
                    case .tokens(let tokens):
                        try await runtime.detokenize(
                            tokens, model: fields.model, loadOptions: configuration.loadOptions, keepAlive: keepAlive)
                    }
                echoes += Array(repeating: text, count: fields.choices)
            }
        } catch {
            generations.forEach { $0.cancel() }
            throw error
        }
        return try await respond(
            fields, generations: generations, chat: false, logprobs: options.logprobs != nil, echoes: echo ? echoes : nil)
    }

    /// Starts the request's `n` generations, which the engine runs side by side; with a seed,
    /// choice i draws with seed + i, so that the choices differ and each is reproducible. If one
    /// cannot start (a full queue), those started are cancelled.
    private func start(
        _ fields: GenerationFields, options: LLMGenerationOptions,
        _ generate: (LLMGenerationOptions) async throws -> GenerationEvents
    ) async throws -> [GenerationEvents] {
        var generations: [GenerationEvents] = []
        do {
            for choice in 0..<fields.choices {
                var options = options
                options.seed = options.seed.map { $0 &+ UInt32(choice) }
                generations.append(try await generate(options))
            }
        } catch {
            generations.forEach { $0.cancel() }
            throw error
        }
        return generations
    }

    /// Answers with the whole results, or streams them as server-sent events (`logprobs`: the
    /// request asked for log-probabilities; `echoes`: the prompt each completion begins with).
    private func respond(
        _ fields: GenerationFields, generations: [GenerationEvents], chat: Bool, logprobs: Bool, echoes: [String]? = nil
    ) async throws -> Response {
        let model = fields.model
        let id = (chat ? "chatcmpl-" : "cmpl-") + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let created = Int(Date().timeIntervalSince1970)
        guard fields.stream else {
            var results: [LLMGenerationResult] = []
            do {
                for generation in generations { results.append(try await generation.result()) }
            } catch {
                generations.forEach { $0.cancel() }
                throw error
            }
            let first = results[0]
            if chat {
                return try jsonResponse(
                    ChatCompletion(
                        id: id, created: created, model: first.modelUsed,
                        choices: results.enumerated().map { index, result in
                            .init(
                                index: index, message: ChatCompletion.Choice.Reply(result), finishReason: finishReason(result.stopReason),
                                logprobs: result.logprobs.map(ChatLogprobs.init))
                        },
                        usage: Usage(results), timings: Timings(first)
                    ))
            }
            return try jsonResponse(
                Completion(
                    id: id, created: created, model: first.modelUsed,
                    choices: results.enumerated().map { index, result in
                        let echo = echoes?[index]
                        let logprobs = result.logprobs.map { answer in
                            echo.map { CompletionLogprobs(prompt: $0, result.promptLogprobs ?? [], answer: answer) }
                                ?? CompletionLogprobs(answer)
                        }
                        return .init(
                            text: (echo ?? "") + result.text, index: index, finishReason: finishReason(result.stopReason),
                            logprobs: logprobs)
                    },
                    usage: Usage(results, perPrompt: fields.choices), timings: Timings(first)
                ))
        }
        func serverSentEvents(_ framings: [some ChunkFraming]) -> Response {
            let events = CompletionEvents(framings: framings, includeUsage: fields.includeUsage, generations: generations)
            return ServerSentEvents.response { writer in try await events.write(to: &writer) }
        }
        guard chat else {
            let pattern = (try? runtime.model(id: model))?.thinkingPattern ?? .defaultPattern
            return serverSentEvents(
                try generations.indices.map { index in
                    try TextChunkFraming(
                        id: id, created: created, model: model, text: LLMStreamingResult.Projection(thinkingPattern: pattern), index: index,
                        logprobs: logprobs, echo: echoes?[index], perPrompt: fields.choices)
                })
        }
        return serverSentEvents(try generations.indices.map { try ChatChunkFraming(id: id, created: created, model: model, index: $0) })
    }
}
