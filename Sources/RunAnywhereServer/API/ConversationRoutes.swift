import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// RunAnywhere's conversations API, which the web app's Chat page uses (the same files as
/// `runanywhere chat` and `runanywhere conversations`):
/// - `GET /api/conversations[?q=text]`: summaries, most recently updated first, optionally only
///   those whose title or messages contain `q`;
/// - `POST /api/conversations` (`title` optional): a new, empty conversation; 201;
/// - `GET /api/conversations/{id}`: the whole conversation, each answer with its analytics, and
///   the conversation's analytics and performance summary (the Chat Details dashboard);
/// - `PATCH /api/conversations/{id}` (`title`): rename (an answer being written keeps the new
///   title); `DELETE /api/conversations/{id}`: 204,
///   an answer being written in it stopped and not saved (nor by another replica's answer);
/// - `GET /api/conversations/{id}/export?format=md|json`: the conversation as a file to keep;
/// - `POST /api/conversations/{id}/messages` (`content`, `model`, optional `temperature`,
///   `maxTokens`, `topP`, `topK`, `seed`, `systemPrompt` over the saved settings; `collection`
///   to answer from a document collection's `passages` most relevant passages, reranked as
///   `reranker` says, the saved answer keeping them as its `grounding`; `toolChoice` among the
///   server's tools) and `POST /api/conversations/{id}/retry` (`model`, same options): the
///   answer as server-sent events, `delta` (`{"content"}` or `{"reasoning"}` for a thinking
///   model's thoughts) and `tool_call` (a call the model made, which the server runs), then
///   `message` with the saved assistant message (each call with its output in `toolSteps`) and
///   its analytics, or `error`. A client that goes
///   away stops the answer, which is saved as interrupted. One answer at a time per
///   conversation (across replicas, with the replicas' database): another is a 409;
/// - `DELETE /api/conversations/{id}/answer`: stops the answer being written (by another
///   replica too), at once or, asked before its first token, then (its stream still ends with
///   the saved, interrupted `message`); 204, or 404 when none is;
/// - `GET /api/tools`: the tools answers may call (``ServerConfiguration/chatTools``), and the
///   choice among them an answer gets without its own `toolChoice`.
struct ConversationRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration
    let settings: ServerSettings
    /// The conversations being answered (on every replica, with the replicas' database).
    let answering: AnsweringConversations
    /// The server's own document collections.
    let sharedDocuments: RAGSession

    init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration, answering: AnsweringConversations) {
        self.runtime = runtime
        self.configuration = configuration
        self.answering = answering
        settings = ServerSettings(dataDirectory: runtime.configuration.dataDirectory, configuration: configuration)
        sharedDocuments = configuration.ragSession ?? runtime.ragSession()
    }

    /// The conversations of the request's account (``RequestAccount``).
    var store: ServerConversations { ServerConversations(runtime: runtime, configuration: configuration) }

    /// A conversation as the list shows it.
    struct Summary: Encodable, Sendable {
        let id: String
        let title: String
        let createdAt: Date
        let updatedAt: Date
        let messageCount: Int
        let modelName: String?
        /// The start of the last message.
        let preview: String?

        init(_ conversation: Conversation) {
            id = conversation.id
            title = conversation.title
            createdAt = conversation.createdAt
            updatedAt = conversation.updatedAt
            messageCount = conversation.messages.count
            modelName = conversation.modelName
            preview = conversation.messages.last.map { String($0.content.prefix(120)) }
        }
    }

    struct Summaries: Encodable, Sendable { let conversations: [Summary] }

    struct Title: Decodable, Sendable { let title: String? }

    /// What a message or a retry asks for: the model, and options over the saved settings.
    struct AnswerRequest: Decodable, Sendable {
        let content: String?
        let model: String
        @NumberField var temperature: Float?
        @NumberField var maxTokens: Int?
        @NumberField var topP: Float?
        @NumberField var topK: Int?
        @NumberField var seed: UInt32?
        let systemPrompt: String?
        /// A document collection to answer from (messages only), its `passages` most relevant
        /// passages (by default ``RunAnywhere/RAGQueryOptions/defaultTopK``), reranked as `reranker` says.
        let collection: String?
        @NumberField var passages: Int?
        let reranker: String?
        /// Which of the server's tools (``ServerConfiguration/chatTools``) the answer may call:
        /// `auto`, `required`, `none` or a tool's name; nil: the server's choice.
        let toolChoice: String?

        /// The server's tools as this answer may call them; nil offers none. A key without the
        /// `tools` scope is offered none, and asking for them is a 403.
        func tools(_ served: ChatTools?) throws -> ChatTools? {
            guard let served else {
                guard toolChoice == nil || toolChoice == "none" else {
                    throw APIError(
                        .badRequest, "This server has no tools to call (serve --mcp names MCP servers whose tools it offers)",
                        param: "toolChoice", code: "no_tools")
                }
                return nil
            }
            guard RequestAccount.allows(.tools) else {
                guard toolChoice == nil || toolChoice == "none" else {
                    throw APIError(
                        .forbidden,
                        "The key '\(RequestAccount.key ?? "")' may not call the server's tools: toolChoice needs the scope tools",
                        param: "toolChoice", code: "insufficient_scope")
                }
                return nil
            }
            guard let word = toolChoice else { return served }
            guard let choice = ToolChoice(naming: word, among: served.tools) else {
                throw APIError(
                    .badRequest,
                    "toolChoice '\(word)' is none of auto, required, none or the server's tools (\(served.tools.map(\.name).joined(separator: ", ")))",
                    param: "toolChoice", code: "unknown_tool")
            }
            return ChatTools(served.tools, toolChoice: choice, maxRounds: served.maxRounds, execute: served.execute)
        }

        /// The options these fields ask for over the model's `defaults` over the user's `settings`
        /// (a model's own system prompt is more particular than the user's for every model).
        func options(over settings: GenerationSettings, defaults: ModelDefaults?) -> LLMGenerationOptions {
            var options = settings.options
            defaults?.apply(to: &options)
            if let system = defaults?.systemPrompt { options.systemPrompt = system }
            if let temperature { options.temperature = temperature }
            if let maxTokens { options.maxTokens = maxTokens }
            if let topP { options.topP = topP }
            if let topK { options.topK = topK }
            if let seed { options.seed = seed }
            if let systemPrompt { options.systemPrompt = systemPrompt.isEmpty ? nil : systemPrompt }
            options.streamingEnabled = true
            return options
        }
    }

    /// The tools answers may call, and the choice among them by default (`auto`, `required`,
    /// `none` or a tool's name).
    struct Tools: Encodable, Sendable {
        let tools: [Tool]
        let toolChoice: String

        init(_ served: ChatTools?) {
            tools = served?.tools ?? []
            toolChoice = (served?.toolChoice ?? .none).word
        }
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("api/tools") { _, _ in try jsonResponse(Tools(configuration.chatTools)) }
        router.get("api/conversations") { request, _ in
            let query = request.uri.queryParameters.get("q").flatMap { $0.isEmpty ? nil : $0 }
            let conversations = try await store.list(matching: query)
            return try jsonResponse(Summaries(conversations: conversations.map(Summary.init)))
        }
        router.post("api/conversations") { request, _ in
            let body = try await decodeJSON(Title.self, from: request, limit: configuration.maxBodySize)
            var conversation = Conversation()
            if let title = body.title, !title.allSatisfy(\.isWhitespace) { conversation.title = try Conversation.title(title) }
            try await store.save(conversation)
            return try jsonResponse(conversation, status: .created)
        }
        router.get("api/conversations/:id") { _, context in
            try jsonResponse(try await store.load(id: exactID(context)))
        }
        router.patch("api/conversations/:id") { request, context in
            let body = try await decodeJSON(Title.self, from: request, limit: configuration.maxBodySize)
            guard let title = body.title else { throw APIError(.badRequest, "'title' is required", param: "title") }
            return try jsonResponse(try await store.rename(id: exactID(context), to: title))
        }
        router.get("api/conversations/:id/export") { request, context in
            let format = request.uri.queryParameters.get("format") ?? "md"
            guard format == "md" || format == "json" else { throw APIError(.badRequest, "format must be md or json", param: "format") }
            let conversation = try await store.load(id: exactID(context))
            let body =
                format == "md" ? ByteBuffer(string: conversation.markdown) : ByteBuffer(bytes: try JSONEncoder.server.encode(conversation))
            return bodyResponse(
                body, contentType: format == "md" ? "text/markdown; charset=utf-8" : "application/json",
                attachment: "conversation-\(conversation.id.prefix(8).lowercased()).\(format)")
        }
        router.delete("api/conversations/:id") { _, context in
            let id = try await exactID(context)
            // The answer being written stops; its end finds the conversation gone and leaves it so.
            _ = try await answering.stop(Self.named(id))
            try await store.delete(id: id)
            return Response(status: .noContent)
        }
        router.post("api/conversations/:id/messages") { request, context in
            let body = try await decodeJSON(AnswerRequest.self, from: request, limit: configuration.maxBodySize)
            guard let content = body.content else { throw APIError(.badRequest, "'content' is required", param: "content") }
            guard let collection = body.collection else {
                return try await answer(exactID(context), body) { chat, options in try await chat.send(content, options: options) }
            }
            let reranker = try RAGQuestionRequest.reranker(body.reranker, runtime: runtime)
            let passages = body.passages ?? RAGQueryOptions.defaultTopK
            guard (1...RAGQueryOptions.maxTopK).contains(passages) else {
                throw APIError(.badRequest, "passages must be 1 to \(RAGQueryOptions.maxTopK)", param: "passages")
            }
            let documents = try RequestAccount.documents(sharedDocuments, runtime: runtime)
            return try await answer(exactID(context), body) { [configuration] chat, options in
                let sources = try await RAGRoutes.notFound {
                    try await documents.retrieve(
                        content, collection: collection, topK: passages, threads: configuration.threads, reranker: reranker)
                }
                return try await chat.send(content, grounding: ChatGrounding(collection: collection, sources: sources), options: options)
            }
        }
        router.post("api/conversations/:id/retry") { request, context in
            let body = try await decodeJSON(AnswerRequest.self, from: request, limit: configuration.maxBodySize)
            return try await answer(exactID(context), body) { chat, options in try await chat.retryLastAnswer(options: options) }
        }
        router.delete("api/conversations/:id/answer") { _, context in
            guard try await answering.stop(Self.named(try exactID(context))) else {
                throw APIError(.notFound, "No answer is being written in this conversation", code: "no_answer")
            }
            return Response(status: .noContent)
        }
    }

    /// Conversation `id` of the request's account.
    private static func named(_ id: String) -> AnsweringConversations.Named {
        AnsweringConversations.Named(account: RequestAccount.current ?? "", id: id)
    }

    /// The `id` of the path, which must name a conversation exactly (no prefixes over HTTP).
    private func exactID(_ context: ServerContext) async throws -> String {
        let id = try context.pathParameter("id")
        guard try await store.contains(id: id) else {
            throw APIError(.notFound, "No conversation '\(id)'", param: "id", code: "conversation_not_found")
        }
        return id
    }

    /// Starts an answer in conversation `id` and streams it.
    private func answer(_ id: String, _ body: AnswerRequest, start: @Sendable (ChatService, LLMGenerationOptions) async throws -> ChatReply)
        async throws -> Response
    {
        let claim = try await answering.claim(Self.named(id))
        let reply: ChatReply
        let model: ModelInfo
        do {
            model = try runtime.model(id: body.model, category: .language)
            let tools = try body.tools(configuration.chatTools)
            let saved = try await settings.load()
            let conversations = store
            let chat = ChatService(
                runtime: runtime, store: conversations.chatStore, settings: saved, conversation: try await conversations.load(id: id),
                model: .named(model.id, loadOptions: configuration.loadOptions))
            await chat.update(tools: tools)
            reply = try await start(chat, body.options(over: saved, defaults: model.defaults))
            await answering.started(claim.conversation, stop: reply.message.cancel)
        } catch {
            await claim.release()
            throw error
        }
        return ServerSentEvents.response { writer in
            do {
                try await Self.stream(reply, to: &writer)
                await claim.release()
            } catch {
                await claim.release()
                throw error
            }
        }
    }

    /// Writes the answer's deltas as they come, then the saved message. If the client goes away,
    /// the answer is stopped (and saved as interrupted) before this returns.
    private static func stream(_ reply: ChatReply, to writer: inout any ResponseBodyWriter) async throws {
        var events: [ServerSentEvent] = []
        var failed: APIError?
        do {
            try await reply.events.relay(
                to: &writer,
                event: { event, writer in
                    // The saved message, below, carries the result, and each call with its output.
                    if let delta = try ServerSentEvents.delta(event) { events.append(delta) }
                    if case .toolCall(let call) = event { events.append(try ServerSentEvents.event(call, name: "tool_call")) }
                    try await ServerSentEvents.send(&events, to: &writer)
                },
                // The generation failed: the saved message says why, below, and the error event
                // says it as the failure is (a prompt too long for the context is the request's).
                failure: { error, _ in failed = error },
                closing: { writer in
                    let message = await reply.message.value
                    if let failure = message.error {
                        events.append(try ServerSentEvents.error(failed ?? APIError(.internalServerError, failure)))
                    }
                    events.append(try ServerSentEvents.event(message, name: "message"))
                    try await ServerSentEvents.send(&events, to: &writer)
                })
        } catch {
            _ = await reply.message.value  // stopped by the relay: saved before the conversation is free again
            throw error
        }
    }
}
