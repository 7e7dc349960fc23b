import Foundation
import Hummingbird
import RunAnywhere

/// OpenAI's Responses API, over the same SDK generation as chat completions:
/// - `POST /v1/responses` (``ResponseRequest``): the response whole, or with `stream` its
///   semantic events (``ResponseStreamEvent``) ending with `response.completed`,
///   `response.incomplete` or `response.failed`; with `background`, the response `queued` at
///   once (or its events as they come), made while the client is away (``BackgroundResponses``);
/// - `GET /v1/responses/{id}` (with `stream=true`, a background response's events after
///   `starting_after`), `GET /v1/responses/{id}/input_items` (`order` `desc`, the default, or
///   `asc`; pages of `limit` items, 20 unless 1 to 100 is asked, `after` an item's id, with
///   `has_more`), `POST /v1/responses/{id}/cancel` (a background response) and
///   `DELETE /v1/responses/{id}` for the stored ones (``ResponseStore``); an unknown id is a 404.
struct ResponseRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration
    let background: BackgroundResponses

    init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration, background: BackgroundResponses) {
        self.runtime = runtime
        self.configuration = configuration
        self.background = background
    }

    /// The stored responses of the request's account (``RequestAccount``), in the replicas'
    /// database when there is one.
    var store: ResponseStore {
        if let database = configuration.database { return ResponseStore(database: database, account: RequestAccount.current ?? "") }
        return ResponseStore(dataDirectory: RequestAccount.dataDirectory(runtime.configuration.dataDirectory), logger: configuration.logger)
    }

    /// `DELETE /v1/responses/{id}`'s answer.
    struct Deleted: Encodable, Sendable {
        let id: String
        var object = "response"
        var deleted = true
    }

    func register(on router: some RouterMethods<ServerContext>) {
        let responses = router.group("v1/responses")
        responses.post { request, _ in
            let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            var body = try decodeJSON(ResponseRequest.self, from: data)
            let ordered = try? JSONValue(parsing: data)
            body.keepSchemaOrder(from: ordered)
            return try await respond(body, ordered: ordered)
        }
        responses.get("{id}") { request, context in
            let id = try context.pathParameter("id")
            let parameters = request.uri.queryParameters
            guard let stream = parameters.get("stream"), stream != "false" else {
                return try jsonResponse(try await current(id).response)
            }
            guard stream == "true" else { throw APIError(.badRequest, "stream must be true or false", param: "stream") }
            let after =
                try parameters.get("starting_after").map { text in
                    guard let value = Int(text), value >= -1 else {
                        throw APIError(.badRequest, "starting_after must be an event's sequence number", param: "starting_after")
                    }
                    return value
                } ?? -1
            return try await events(of: id, after: after)
        }
        responses.post("{id}/cancel") { _, context in try jsonResponse(try await cancel(try context.pathParameter("id")).response) }
        responses.get("{id}/input_items") { request, context in
            let id = try context.pathParameter("id")
            return try jsonResponse(try ItemList(paging: try await current(id).input, for: request, owner: "response '\(id)'"))
        }
        responses.delete("{id}") { _, context in
            let id = try context.pathParameter("id")
            // A background response still being made is stopped first: it stores itself again as it ends.
            if let found = try await store.find(id), found.response.background == true, !found.response.hasEnded {
                _ = try await cancel(id)
            }
            guard try await store.delete(id) else { throw Self.notFound(id) }
            return try jsonResponse(Deleted(id: id))
        }
    }

    /// The background response `id` under the request's account.
    private static func named(_ id: String) -> AnsweringConversations.Named {
        AnsweringConversations.Named(account: RequestAccount.current ?? "", id: id)
    }

    /// The stored response `id` as it stands: one in the background that no server makes any
    /// more (its server stopped) is ended as failed and stored so first.
    private func current(_ id: String) async throws -> ResponseStore.Stored {
        guard let stored = try await store.find(id) else { throw Self.notFound(id) }
        guard stored.response.background == true, !stored.response.hasEnded, try await !background.isBeingMade(Self.named(id)) else {
            return stored
        }
        // Read again: a response made here stores its end before it lets go of its claim.
        guard let again = try await store.find(id), !again.response.hasEnded else { return try await current(id) }
        var response = again.response
        response.fail(BackgroundResponses.serverStopped, output: response.output)
        try await store.save(response, input: again.input)
        return ResponseStore.Stored(response: response, input: again.input)
    }

    /// Cancels the background response `id` and answers it as it ended; one that has ended
    /// already is answered as it is.
    private func cancel(_ id: String) async throws -> ResponseStore.Stored {
        let found = try await current(id)
        guard found.response.background == true else {
            throw APIError(.badRequest, "Only a response made with background: true can be cancelled", param: "response_id")
        }
        guard !found.response.hasEnded, await !background.cancelHere(Self.named(id)) else { return try await current(id) }
        // Made by another replica: asked to stop, it stores the end within moments.
        guard try await background.answering.stop(Self.named(id)) else { return try await current(id) }
        var stored = try await current(id)
        for _ in 0..<50 {
            guard !stored.response.hasEnded else { break }
            try await Task.sleep(for: .milliseconds(200))
            stored = try await current(id)
        }
        return stored
    }

    /// `GET /v1/responses/{id}?stream=true`: the background response's stream events after
    /// the one numbered `after`, then each as it comes until it ends.
    private func events(of id: String, after: Int) async throws -> Response {
        let stored = try await current(id)
        guard stored.response.background == true, let events = await background.follow(Self.named(id), after: after) else {
            throw APIError(
                .badRequest,
                "Response '\(id)' cannot be streamed: only a background response's events are kept, by the server that makes it, "
                    + "until \(BackgroundResponses.eventsKept) after it ends",
                param: "stream")
        }
        return ServerSentEvents.response { writer in
            var encoder = ResponseEventEncoder()
            for await event in events {
                var frame = [try encoder.event(event)]
                try await ServerSentEvents.send(&frame, to: &writer)
            }
        }
    }

    private static func notFound(_ id: String) -> APIError {
        APIError(.notFound, "No response with id '\(id)' is stored", param: "response_id", code: "response_not_found")
    }

    /// Runs the request: the earlier turns (`previous_response_id`, or the items of its
    /// `conversation`) and its input, generated as one chat, answered whole or streamed, and
    /// stored unless `store` is false (a conversation takes its turn either way); in the
    /// background, once the request is found sound.
    private func respond(_ request: ResponseRequest, ordered: JSONValue?) async throws -> Response {
        var items = request.input.map(\.identified)
        var turn: ConversationTurn?
        if let previous = request.previousResponseID {
            guard let earlier = try await store.find(previous) else {
                throw APIError(
                    .notFound, "No response with id '\(previous)' is stored", param: "previous_response_id", code: "response_not_found")
            }
            items = earlier.input + earlier.response.output + items
        } else if let id = request.conversation?.id {
            let conversations = ConversationItemStore.ofRequest(runtime: runtime, configuration: configuration)
            let claim = try await ConversationTurn.claim(id, account: RequestAccount.current ?? "", answering: background.answering)
            do {
                guard let held = try await conversations.items(of: id) else {
                    throw APIError(.notFound, "No conversation with id '\(id)'", param: "conversation", code: "conversation_not_found")
                }
                // An item the conversation holds already (sent again) is read once.
                let ids = Set(held.compactMap(\.id))
                items = items.filter { !ids.contains($0.id ?? "") }
                turn = ConversationTurn(store: conversations, id: id, input: items, claim: claim)
                items = held + items
            } catch {
                await claim.release()
                throw error
            }
        }
        do {
            return try await respond(request, items: items, turn: turn, ordered: ordered)
        } catch {
            // Until the run has the turn, the claim is this request's to let go of.
            await turn?.end()
            throw error
        }
    }

    /// ``respond(_:ordered:)`` with the items the response answers, and its turn in a conversation.
    private func respond(_ request: ResponseRequest, items: [ResponseItem], turn: ConversationTurn?, ordered: JSONValue?) async throws
        -> Response
    {
        let options = try request.options(threads: configuration.threads, defaults: runtime.defaults(of: request.model))
        let conversation = try request.conversation(items)
        let run = ResponseRun(
            response: ResponseObject(id: ResponseItem.newID("resp"), request: request, ordered: ordered), input: items,
            store: request.store ? store : nil, turn: turn)
        let (runtime, configuration) = (runtime, configuration)
        let generate = { @Sendable in
            try await runtime.generateEvents(
                continuing: conversation, options: options, model: request.model, loadOptions: configuration.loadOptions,
                keepAlive: configuration.keepAlive)
        }
        guard request.background else {
            let generation = try await generate()
            guard request.stream else { return try jsonResponse(try await run.whole(generation)) }
            return ServerSentEvents.response { writer in try await run.stream(generation, to: &writer) }
        }
        _ = try runtime.model(id: request.model)  // an unknown model is the request's 404, not a failed response
        try await background.start(Self.named(run.response.id), run, generate: generate)
        guard request.stream else { return try jsonResponse(run.response) }
        return try await events(of: run.response.id, after: -1)
    }
}
