import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// The OpenAI-compatible routes: models, chat completions and completions.
struct OpenAIRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    func register(on router: Router<BasicRequestContext>) {
        let v1 = router.group("v1")
        v1.get("models") { _, _ in try jsonResponse(ModelList(data: languageModels().map(ModelObject.init))) }
        v1.get("models/{id}") { _, context in
            let id = try context.parameters.require("id")
            guard let model = languageModels().first(where: { $0.id == id }) else {
                throw OpenAIError(.notFound, "The model '\(id)' does not exist or is not installed", param: "model", code: "model_not_found")
            }
            return try jsonResponse(ModelObject(model))
        }
        v1.post("chat/completions") { request, context in
            let body = try await decode(ChatCompletionRequest.self, from: request, context: context)
            let (prompt, conversation) = try body.conversation()
            let options = try body.sampling.options(threads: configuration.threads, applyChatTemplate: true)
            return try await complete(model: body.model, prompt: prompt, context: conversation, options: options,
                                      stream: body.stream ?? false, includeUsage: body.streamOptions?.includeUsage ?? false, chat: true)
        }
        v1.post("completions") { request, context in
            let body = try await decode(CompletionRequest.self, from: request, context: context)
            let options = try body.sampling.options(threads: configuration.threads, applyChatTemplate: false)
            return try await complete(model: body.model, prompt: body.prompt, context: nil, options: options,
                                      stream: body.stream ?? false, includeUsage: body.streamOptions?.includeUsage ?? false, chat: false)
        }
    }

    /// The installed language models.
    private func languageModels() -> [ModelInfo] {
        runtime.availableModels().filter { $0.category == .language && $0.isDownloaded }
    }

    /// Runs one generation and answers with the whole result, or streams it as server-sent events.
    private func complete(
        model: String, prompt: String, context: Context?, options: LLMGenerationOptions, stream: Bool, includeUsage: Bool, chat: Bool
    ) async throws -> Response {
        let id = (chat ? "chatcmpl-" : "cmpl-") + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let created = Int(Date().timeIntervalSince1970)
        let generation = try await runtime.generateStream(prompt, context: context, options: options, model: model, loadOptions: configuration.loadOptions)
        guard stream else {
            let result = try await generation.result.value
            if chat {
                let reply = ChatCompletion.Choice.Reply(content: result.text, reasoningContent: result.thinkingContent)
                return try jsonResponse(ChatCompletion(
                    id: id, created: created, model: result.modelUsed,
                    choices: [.init(message: reply, finishReason: finishReason(result.stopReason))], usage: Usage(result), timings: Timings(result)
                ))
            }
            return try jsonResponse(Completion(
                id: id, created: created, model: result.modelUsed,
                choices: [.init(text: result.text, finishReason: finishReason(result.stopReason))], usage: Usage(result), timings: Timings(result)
            ))
        }
        let chunks = EventChunks(id: id, created: created, model: model, chat: chat, includeUsage: includeUsage, generation: generation)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await chunks.write(to: &writer)
        })
    }

    /// Reads and decodes a JSON body of at most the configured size.
    private func decode<T: Decodable>(_ type: T.Type, from request: Request, context: BasicRequestContext) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: configuration.maxBodySize)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw OpenAIError(.contentTooLarge, "The request body is larger than \(configuration.maxBodySize) bytes")
        }
        return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
    }
}

/// A streamed generation written as OpenAI's server-sent events: chunks, an optional usage
/// chunk, then `data: [DONE]`. If the client goes away, the generation is cancelled.
private struct EventChunks: Sendable {
    let id: String
    let created: Int
    let model: String
    let chat: Bool
    let includeUsage: Bool
    let generation: LLMStreamingResult

    func write(to writer: inout any ResponseBodyWriter) async throws {
        var finished = false
        defer { if !finished { generation.result.cancel() } }
        var events: [ServerSentEvent] = []
        if chat { events.append(try event(ChatCompletionChunk(id: id, created: created, model: model, choices: [.init(delta: .init(role: "assistant", content: ""), finishReason: nil)], usage: nil, timings: nil))) }
        do {
            for try await piece in generation.stream {
                events.append(try event(chat
                    ? chunk(ChatCompletionChunk.Choice(delta: .init(content: piece), finishReason: nil))
                    : completion(text: piece, finishReason: nil)))
                try await send(&events, to: &writer)
            }
        } catch {
            let failure = OpenAIError.from(error)
            events.append(ServerSentEvent(data: String(decoding: try JSONEncoder().encode(["error": failure]), as: UTF8.self)))
            try await send(&events, to: &writer)
            finished = true
            try await writer.finish(nil)
            return
        }
        let result = try await generation.result.value
        let reason = finishReason(result.stopReason)
        events.append(try event(chat ? chunk(.init(delta: .init(), finishReason: reason)) : completion(text: "", finishReason: reason)))
        if includeUsage {
            events.append(try event(chat
                ? ChatCompletionChunk(id: id, created: created, model: model, choices: [], usage: Usage(result), timings: Timings(result))
                : Completion(id: id, created: created, model: model, choices: [], usage: Usage(result), timings: Timings(result))))
        }
        events.append(ServerSentEvent(data: "[DONE]"))
        try await send(&events, to: &writer)
        finished = true
        try await writer.finish(nil)
    }

    private func chunk(_ choice: ChatCompletionChunk.Choice) -> ChatCompletionChunk {
        ChatCompletionChunk(id: id, created: created, model: model, choices: [choice], usage: nil, timings: nil)
    }

    private func completion(text: String, finishReason: String?) -> Completion {
        Completion(id: id, created: created, model: model, choices: [.init(text: text, finishReason: finishReason)], usage: nil, timings: nil)
    }

    private func event(_ value: some Encodable) throws -> ServerSentEvent {
        ServerSentEvent(data: String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    /// Frames `events` with OpenAPIRuntime's server-sent-events encoder and writes them.
    private func send(_ events: inout [ServerSentEvent], to writer: inout any ResponseBodyWriter) async throws {
        var bytes: [UInt8] = []
        for try await slice in events.async.asEncodedServerSentEvents() { bytes += slice }
        events.removeAll()
        try await writer.write(ByteBuffer(bytes: bytes))
    }
}

/// A JSON response.
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(value))))
}
