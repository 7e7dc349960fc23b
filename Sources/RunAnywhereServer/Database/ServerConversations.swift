import Foundation
import RunAnywhere

/// The conversations of the request's account (``RequestAccount``): the account's folder of
/// files (``RunAnywhere/ConversationStore``), or its rows in the replicas' database.
struct ServerConversations: Sendable {
    private let files: ConversationStore
    private let database: PostgresConversations?

    /// The current request's account's conversations on the server `configuration` describes.
    init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) {
        files = ConversationStore(
            dataDirectory: RequestAccount.dataDirectory(runtime.configuration.dataDirectory), logger: configuration.logger)
        database = configuration.database.map { PostgresConversations(database: $0, account: RequestAccount.current ?? "") }
    }

    /// The store a ``RunAnywhere/ChatService`` saves its conversation through.
    var chatStore: ConversationStore {
        guard let database else { return files }
        return ConversationStore(
            dataDirectory: files.directory.deletingLastPathComponent(), logger: database.database.logger, backend: database)
    }

    /// The conversations, most recently updated first; with `query`, those whose title or a
    /// message contains it (ignoring case and accents).
    func list(matching query: String?) async throws -> [Conversation] {
        guard let database else { return query.map { files.search($0) } ?? files.list().conversations }
        let all = try await database.list()
        return query.map { text in all.filter { $0.contains(text) } } ?? all
    }

    func save(_ conversation: Conversation) async throws {
        guard let database else { return try files.save(conversation) }
        _ = try await database.save(conversation, replacingOnly: false, titleSeen: nil)
    }

    /// The conversation `id` (exactly).
    func load(id: String) async throws -> Conversation {
        guard let database else { return try files.load(id: id) }
        guard let conversation = try await database.load(id: id) else { throw Self.notFound(id) }
        return conversation
    }

    /// Whether there is a conversation of exactly the id `id`.
    func contains(id: String) async throws -> Bool {
        guard let database else { return files.contains(id: id) }
        return try await database.contains(id: id)
    }

    func rename(id: String, to title: String) async throws -> Conversation {
        guard let database else { return try files.rename(id: id, to: title) }
        guard let conversation = try await database.rename(id: id, to: title) else { throw Self.notFound(id) }
        return conversation
    }

    func delete(id: String) async throws {
        guard let database else { return try files.delete(id: id) }
        guard try await database.delete(id: id) else { throw Self.notFound(id) }
    }

    private static func notFound(_ id: String) -> APIError {
        APIError(.notFound, "No conversation '\(id)'", param: "id", code: "conversation_not_found")
    }
}
