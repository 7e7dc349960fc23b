import Foundation
import Hummingbird
import RunAnywhere

/// OpenAI's Responses API, over the same SDK generation as chat completions:
/// - `POST /v1/responses` (``ResponseRequest``): the response whole, or with `stream` its
///   semantic events (``ResponseStreamEvent``) ending with `response.completed`,
///   `response.incomplete` or `response.failed`;
/// - `GET /v1/responses/{id}`, `GET /v1/responses/{id}/input_items` (`order` `desc`, the default,
///   or `asc`; pages of `limit` items, 20 unless 1 to 100 is asked, `after` an item's id, with
///   `has_more`) and `DELETE /v1/responses/{id}` for the stored ones (``ResponseStore``); an
///   unknown id is a 404.
struct ResponseRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) {
        self.runtime = runtime
        self.configuration = configuration
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

    /// `GET /v1/responses/{id}/input_items`' answer: the items the response answered, earlier turns' included.
    struct InputItems: Encodable, Sendable {
        var object = "list"
        let data: [ResponseItem]
        let firstID: String?
        let lastID: String?
        var hasMore = false
        enum CodingKeys: String, CodingKey { case object, data, firstID = "first_id", lastID = "last_id", hasMore = "has_more" }
    }

    func register(on router: some RouterMethods<ServerContext>) {
        let responses = router.group("v1/responses")
        responses.post { request, _ in
            let data = Data(buffer: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            var body = try JSONDecoder().decode(ResponseRequest.self, from: data)
            let ordered = try? JSONValue(parsing: data)
            body.keepSchemaOrder(from: ordered)
            return try await respond(body, ordered: ordered)
        }
        responses.get("{id}") { _, context in try jsonResponse(try await stored(context).response) }
        responses.get("{id}/input_items") { request, context in
            let parameters = request.uri.queryParameters
            let order = parameters.get("order") ?? "desc"
            guard order == "asc" || order == "desc" else { throw APIError(.badRequest, "order must be asc or desc", param: "order") }
            let limit =
                try parameters.get("limit").map { text in
                    guard let value = Int(text), (1...100).contains(value) else {
                        throw APIError(.badRequest, "limit must be a whole number from 1 to 100", param: "limit")
                    }
                    return value
                } ?? 20
            let stored = try await stored(context).input
            var input = order == "asc" ? stored : stored.reversed()
            if let after = parameters.get("after") {
                guard let index = input.firstIndex(where: { $0.id == after }) else {
                    throw APIError(.badRequest, "after: this response has no input item '\(after)'", param: "after")
                }
                input = Array(input[(index + 1)...])
            }
            let page = Array(input.prefix(limit))
            return try jsonResponse(InputItems(data: page, firstID: page.first?.id, lastID: page.last?.id, hasMore: input.count > limit))
        }
        responses.delete("{id}") { _, context in
            let id = try context.parameters.require("id")
            guard try await store.delete(id) else { throw Self.notFound(id) }
            return try jsonResponse(Deleted(id: id))
        }
    }

    private func stored(_ context: ServerContext) async throws -> ResponseStore.Stored {
        let id = try context.parameters.require("id")
        guard let stored = try await store.find(id) else { throw Self.notFound(id) }
        return stored
    }

    private static func notFound(_ id: String) -> APIError {
        APIError(.notFound, "No response with id '\(id)' is stored", param: "response_id", code: "response_not_found")
    }

    /// Runs the request: the earlier turns (`previous_response_id`) and its input, generated as
    /// one chat, answered whole or streamed, and stored unless `store` is false.
    private func respond(_ request: ResponseRequest, ordered: JSONValue?) async throws -> Response {
        var items = request.input
        if let previous = request.previousResponseID {
            guard let earlier = try await store.find(previous) else {
                throw APIError(
                    .notFound, "No response with id '\(previous)' is stored", param: "previous_response_id", code: "response_not_found")
            }
            items = earlier.input + earlier.response.output + items
        }
        let options = try request.options(threads: configuration.threads)
        let generation = try await runtime.generateEvents(
            continuing: try request.conversation(items), options: options, model: request.model, loadOptions: configuration.loadOptions,
            keepAlive: configuration.keepAlive
        )
        let run = ResponseRun(
            response: ResponseObject(id: ResponseItem.newID("resp"), request: request, ordered: ordered), input: items.map(\.identified),
            store: request.store ? store : nil)
        guard request.stream else { return try jsonResponse(try await run.whole(generation)) }
        return ServerSentEvents.response { writer in try await run.stream(generation, to: &writer) }
    }
}
