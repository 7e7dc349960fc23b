import Foundation
import Hummingbird
import RunAnywhere

/// ollama's API for generation: `POST /api/chat`, `POST /api/generate`, `POST /api/embed` and
/// `POST /api/embeddings`, so that ollama's clients and the apps built on them work unchanged.
/// Answers stream as newline-delimited JSON unless `stream` is `false`, each line a mapping of the
/// SDK's one stream of typed events (nothing parses the model's output again); a request without
/// a prompt or messages loads the model (`done_reason: load`), or with `keep_alive: 0` unloads it
/// (`unload`). Errors take ollama's shape (``ErrorShape/ollama``). The model routes are
/// ``OllamaModelRoutes``.
struct OllamaRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    func register(on router: some RouterMethods<ServerContext>) {
        router.post("api/chat") { request, _ in
            var timing = OllamaTiming()
            let data = try await ollamaBody(of: request, limit: configuration.maxBodySize)
            var body = try decodeJSON(OllamaChatRequest.self, from: data)
            body.keepSchemaOrder(from: try? JSONValue(parsing: data))
            let fields = body.fields
            if body.messages.isEmpty { return try await loadOrUnload(fields, chat: true, timing: timing) }
            let model = try runtime.model(id: fields.model)
            let showsThinking = try fields.showsThinking(model)
            let (load, keepAlive) = (try fields.loadOptions(configuration.loadOptions), fields.keepAlive?.value ?? configuration.keepAlive)
            let conversation = try body.conversation()
            let options = try body.options(threads: configuration.threads, defaults: model.defaults)
            let mapper = try OllamaStreamMapper(model: fields.name, chat: true, showsThinking: showsThinking)
            let generation = try await runtime.generateEvents(
                continuing: conversation, options: options, model: model.id, loadOptions: load, keepAlive: keepAlive)
            timing.engineTook()
            return try await respond(generation, mapper: mapper, stream: fields.stream, timing: timing)
        }
        router.post("api/generate") { request, _ in
            var timing = OllamaTiming()
            let data = try await ollamaBody(of: request, limit: configuration.maxBodySize)
            var body = try decodeJSON(OllamaGenerateRequest.self, from: data)
            body.fields.keepSchemaOrder(from: try? JSONValue(parsing: data))
            let fields = body.fields
            if body.prompt.isEmpty, body.images.isEmpty { return try await loadOrUnload(fields, chat: false, timing: timing) }
            let model = try runtime.model(id: fields.model)
            let showsThinking = try fields.showsThinking(model)
            let (load, keepAlive) = (try fields.loadOptions(configuration.loadOptions), fields.keepAlive?.value ?? configuration.keepAlive)
            let options = try fields.generationOptions(
                threads: configuration.threads, applyChatTemplate: !body.raw, defaults: model.defaults)
            let mapper = try OllamaStreamMapper(model: fields.name, chat: false, showsThinking: showsThinking)
            let generation: GenerationEvents
            if let infill = body.infill {
                generation = try await runtime.generateEvents(
                    infill: infill, options: options, model: model.id, loadOptions: load, keepAlive: keepAlive)
            } else if body.raw {
                generation = try await runtime.generateEvents(
                    body.prompt, images: body.images.map(VLMImage.init(base64:)), context: nil, options: options, model: model.id,
                    loadOptions: load, keepAlive: keepAlive
                )
            } else {
                generation = try await runtime.generateEvents(
                    continuing: body.conversation, options: options, model: model.id, loadOptions: load, keepAlive: keepAlive)
            }
            timing.engineTook()
            return try await respond(generation, mapper: mapper, stream: fields.stream, timing: timing)
        }
        router.post("api/embed") { request, _ in
            let timing = OllamaTiming()
            let body = try decodeJSON(
                OllamaEmbedRequest.self, from: try await ollamaBody(of: request, limit: configuration.maxBodySize))
            let texts = body.input?.texts ?? []
            guard texts.count <= EmbeddingRoutes.maxInputs else {
                throw APIError(
                    .badRequest, "input has \(texts.count) texts; one request embeds at most \(EmbeddingRoutes.maxInputs)", param: "input")
            }
            if let dimensions = body.dimensions, dimensions < 1 {
                throw APIError(.badRequest, "dimensions must be at least 1 (got \(dimensions))", param: "dimensions")
            }
            let model = try runtime.model(id: OllamaName.modelID(body.model), category: .embedding)
            var load = configuration.loadOptions
            try body.options?.apply(to: &load)
            let keepAlive = body.keepAlive?.value ?? configuration.keepAlive
            guard !texts.isEmpty else {
                // As ollama: no text loads the model (or with keep_alive 0 unloads it), embedding nothing.
                try await loadOrUnload(model, embedding: true, options: load, keepAlive: keepAlive)
                return try ollamaEmbedResponse(model: body.model, embeddings: [], timing: timing, engineMs: 0, tokens: 0)
            }
            let result = try await runtime.embed(
                texts, model: model.id, options: EmbeddingOptions(truncate: body.truncate ?? true), loadOptions: load, keepAlive: keepAlive)
            if let dimensions = body.dimensions { try EmbeddingRoutes.check(dimensions, own: result.dimensions, model: result.modelId) }
            return try ollamaEmbedResponse(
                model: body.model, embeddings: result.embeddings, timing: timing, engineMs: result.latencyMs, tokens: result.totalTokens)
        }
        router.post("api/embeddings") { request, _ in
            let body = try decodeJSON(
                OllamaEmbeddingsRequest.self, from: try await ollamaBody(of: request, limit: configuration.maxBodySize))
            let model = try runtime.model(id: OllamaName.modelID(body.model), category: .embedding)
            var load = configuration.loadOptions
            try body.options?.apply(to: &load)
            // ollama answers an empty prompt with an empty vector.
            guard let prompt = body.prompt, !prompt.isEmpty else { return try ollamaEmbeddingResponse([]) }
            let result = try await runtime.embed(
                [prompt], model: model.id, options: EmbeddingOptions(truncate: true), loadOptions: load,
                keepAlive: body.keepAlive?.value ?? configuration.keepAlive
            )
            return try ollamaEmbeddingResponse(result.embeddings[0])
        }
    }

    /// Loads the model `fields` names (ollama's request without a prompt), or with `keep_alive: 0`
    /// unloads it; one last line, or the whole answer.
    private func loadOrUnload(_ fields: OllamaGenerationFields, chat: Bool, timing: OllamaTiming) async throws -> Response {
        var timing = timing
        let model = try runtime.model(id: fields.model)
        let keepAlive = fields.keepAlive?.value ?? configuration.keepAlive
        var answer = OllamaChunk.piece(model: fields.name, chat: chat)
        let unloaded = try await loadOrUnload(
            model, embedding: false, options: try fields.loadOptions(configuration.loadOptions), keepAlive: keepAlive)
        answer.doneReason = unloaded ? "unload" : "load"
        timing.engineTook()
        answer.stats = OllamaStats(timing: timing)
        guard fields.stream else { return try jsonResponse(answer) }
        return NDJSON.response { [answer] writer in try await NDJSON.write([answer], to: &writer) }
    }

    /// Loads `model` (a language model, or an `embedding` one) to stay `keepAlive`, or with a
    /// `keepAlive` of 0 unloads it; whether it unloaded.
    @discardableResult
    private func loadOrUnload(_ model: ModelInfo, embedding: Bool, options: ModelLoadOptions, keepAlive: KeepAlive) async throws -> Bool {
        guard keepAlive != .duration(.zero) else {
            await runtime.unloadModel(id: model.id)
            return true
        }
        if embedding {
            try await runtime.preloadEmbeddingModel(model.id, options: options, keepAlive: keepAlive)
        } else {
            try await runtime.preloadModel(model.id, options: options, keepAlive: keepAlive)
        }
        return false
    }

    /// Answers with the whole result, or streams it as lines.
    private func respond(_ generation: GenerationEvents, mapper: OllamaStreamMapper, stream: Bool, timing: OllamaTiming) async throws
        -> Response
    {
        guard stream else { return try jsonResponse(mapper.whole(try await generation.result(), timing: timing)) }
        let writer = OllamaLineWriter(mapper: mapper, generation: generation, timing: timing)
        return NDJSON.response { body in try await writer.write(to: &body) }
    }
}

/// `/api/embed`'s answer: the vectors, L2-normalized, and ollama's measurements in nanoseconds;
/// the time since the request arrived beyond the engine's `engineMs` is counted as loading.
func ollamaEmbedResponse(model: String, embeddings: [[Float]], timing: OllamaTiming, engineMs: Double, tokens: Int) throws -> Response {
    let total = timing.elapsed.nanoseconds
    var json = VectorJSON(floats: embeddings.reduce(0) { $0 + $1.count })
    json.raw(#"{"model":"#)
    try json.string(model)
    json.raw(#","embeddings":["#)
    for (index, vector) in embeddings.enumerated() {
        if index > 0 { json.raw(",") }
        try json.vector(vector, what: "the vector of input \(index)")
    }
    json.raw(#"],"total_duration":"#)
    json.integer(total)
    json.raw(#","load_duration":"#)
    json.integer(max(0, total - Int64(engineMs * 1_000_000)))
    json.raw(#","prompt_eval_count":"#)
    json.integer(tokens)
    json.raw("}")
    return json.response()
}

/// `/api/embeddings`' answer: one vector, L2-normalized.
func ollamaEmbeddingResponse(_ vector: [Float]) throws -> Response {
    var json = VectorJSON(floats: vector.count)
    json.raw(#"{"embedding":"#)
    try json.vector(vector, what: "the vector")
    json.raw("}")
    return json.response()
}

/// The JSON body of an ollama request. ollama's own examples post with `curl -d`, which labels the
/// body `application/x-www-form-urlencoded`; that label and none are read as JSON too. (A page on
/// another site cannot make use of that: ``OriginGuardMiddleware`` refuses its requests first.)
func ollamaBody(of request: Request, limit: Int) async throws -> Data {
    let type = request.headers[.contentType]?.lowercased()
    if type == nil || type?.hasPrefix("application/x-www-form-urlencoded") == true {
        return Data(buffer: try await collectBody(of: request, limit: limit))
    }
    return Data(buffer: try await collectJSONBody(of: request, limit: limit))
}
