import Foundation
import Hummingbird
import RunAnywhere

/// OpenAI's Conversations API, the conversations a response continues with `conversation`
/// (``ConversationItemStore``, one account's):
/// - `POST /v1/conversations` (`items`, at most 20, and `metadata`), `GET`, `POST` (new
///   `metadata`) and `DELETE /v1/conversations/{conversation_id}`;
/// - `POST /v1/conversations/{conversation_id}/items` (`items`, 1 to 20, added at the end),
///   `GET …/items` (pages as `input_items`' are: ``ItemList``), `GET` and `DELETE
///   …/items/{item_id}` (the latter answering the conversation).
/// An unknown conversation or item is a 404.
struct ConversationItemRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    /// The most items one request adds, as OpenAI allows.
    static let itemsPerRequest = 20

    /// The conversations of the request's account.
    var store: ConversationItemStore { .ofRequest(runtime: runtime, configuration: configuration) }

    /// `POST /v1/conversations`' body.
    struct CreateBody: Decodable {
        let items: [ResponseItem]?
        let metadata: [String: String]?
    }

    /// `POST /v1/conversations/{conversation_id}`'s body: `metadata`, required; null clears it.
    struct UpdateBody: Decodable {
        let metadata: [String: String]

        private enum CodingKeys: String, CodingKey { case metadata }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard container.contains(.metadata) else { throw APIError(.badRequest, "metadata is required", param: "metadata") }
            metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
        }
    }

    /// `POST /v1/conversations/{conversation_id}/items`' body.
    struct ItemsBody: Decodable {
        let items: [ResponseItem]
    }

    func register(on router: some RouterMethods<ServerContext>) {
        let conversations = router.group("v1/conversations")
        conversations.post { request, _ in
            // A conversation of no items and no metadata may come with no body.
            let bytes = try await collectJSONBody(of: request, limit: configuration.maxBodySize, optional: true)
            let body =
                bytes.readableBytes == 0
                ? CreateBody(items: nil, metadata: nil) : try Self.decode(CreateBody.self, from: bytes)
            let items = try Self.checked(body.items ?? [], allowingNone: true)
            return try jsonResponse(try await store.create(metadata: try ConversationObject.checked(body.metadata), items: items))
        }
        conversations.get("{conversation_id}") { _, context in
            try jsonResponse(try await conversation(try context.pathParameter("conversation_id")))
        }
        conversations.post("{conversation_id}") { request, context in
            let id = try context.pathParameter("conversation_id")
            let body = try Self.decode(UpdateBody.self, from: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            guard let updated = try await store.update(id, metadata: try ConversationObject.checked(body.metadata)) else {
                throw Self.notFound(id)
            }
            return try jsonResponse(updated)
        }
        conversations.delete("{conversation_id}") { _, context in
            let id = try context.pathParameter("conversation_id")
            guard try await store.delete(id) else { throw Self.notFound(id) }
            return try jsonResponse(ConversationDeleted(id: id))
        }
        conversations.post("{conversation_id}/items") { request, context in
            let id = try context.pathParameter("conversation_id")
            let body = try Self.decode(ItemsBody.self, from: try await collectJSONBody(of: request, limit: configuration.maxBodySize))
            let items = try Self.checked(body.items, allowingNone: false)
            guard let held = try await store.items(of: id) else { throw Self.notFound(id) }
            let ids = Set(held.compactMap(\.id))
            if let repeated = items.compactMap(\.id).first(where: ids.contains) {
                throw APIError(.badRequest, "Conversation '\(id)' holds an item '\(repeated)' already", param: "items")
            }
            guard let added = try await store.append(items, to: id) else { throw Self.notFound(id) }
            return try jsonResponse(ItemList(added))
        }
        conversations.get("{conversation_id}/items") { request, context in
            let id = try context.pathParameter("conversation_id")
            guard let items = try await store.items(of: id) else { throw Self.notFound(id) }
            return try jsonResponse(try ItemList(paging: items, for: request, owner: "conversation '\(id)'"))
        }
        conversations.get("{conversation_id}/items/{item_id}") { _, context in
            let (id, itemID) = (try context.pathParameter("conversation_id"), try context.pathParameter("item_id"))
            guard let item = try await store.item(itemID, of: id) else { throw try await itemNotFound(itemID, of: id) }
            return try jsonResponse(item)
        }
        conversations.delete("{conversation_id}/items/{item_id}") { _, context in
            let (id, itemID) = (try context.pathParameter("conversation_id"), try context.pathParameter("item_id"))
            guard try await store.deleteItem(itemID, of: id) else { throw try await itemNotFound(itemID, of: id) }
            return try jsonResponse(try await conversation(id))
        }
    }

    /// The body decoded (``decodeJSON(_:from:)``); an item's refusal names `items`, where the
    /// Responses API's would name `input`.
    private static func decode<T: Decodable>(_ type: T.Type, from body: ByteBuffer) throws -> T {
        do {
            return try decodeJSON(T.self, from: Data(buffer: body))
        } catch let error as APIError where error.param == "input" {
            throw error.naming("items")
        }
    }

    /// The conversation `id`, or its 404.
    func conversation(_ id: String) async throws -> ConversationObject {
        guard let found = try await store.find(id) else { throw Self.notFound(id) }
        return found
    }

    /// The items a request adds, each checked (``ResponseItem/checked(param:loadingImages:)``, its images loaded) and given an id
    /// where it has none, at most ``itemsPerRequest`` of them, and no two of one id.
    private static func checked(_ items: [ResponseItem], allowingNone: Bool) throws -> [ResponseItem] {
        guard items.count <= itemsPerRequest, allowingNone || !items.isEmpty else {
            throw APIError(.badRequest, "items must hold \(allowingNone ? 0 : 1) to \(itemsPerRequest) items", param: "items")
        }
        let identified = try items.map { try $0.checked(param: "items", loadingImages: true).identified }
        let ids = identified.compactMap(\.id)
        guard Set(ids).count == ids.count else { throw APIError(.badRequest, "Two items have the same id", param: "items") }
        return identified
    }

    /// The 404 of an item not found: the conversation's own when it is the conversation that is not there.
    private func itemNotFound(_ itemID: String, of id: String) async throws -> APIError {
        _ = try await conversation(id)
        return APIError(.notFound, "Conversation '\(id)' has no item '\(itemID)'", param: "item_id", code: "item_not_found")
    }

    static func notFound(_ id: String) -> APIError {
        APIError(.notFound, "No conversation with id '\(id)'", param: "conversation_id", code: "conversation_not_found")
    }
}
