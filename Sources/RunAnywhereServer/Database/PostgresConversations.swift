import Foundation
import PostgresNIO
import RunAnywhere

/// One account's conversations in the replicas' database (`runanywhere_conversations`, keyed by
/// account and id, each the conversation's JSON as the folder's files hold it): a conversation
/// made, answered, renamed or deleted through one replica is every replica's.
struct PostgresConversations: ConversationBackend {
    let database: ServerDatabase
    /// The account ("" for the server's own).
    let account: String

    /// Saves `conversation`; with `replacingOnly`, only over its row, keeping a title other than
    /// `titleSeen` (one statement, so a conversation another replica deleted stays deleted and
    /// one it renamed keeps its name). Whether it was saved.
    func save(_ conversation: Conversation, replacingOnly: Bool, titleSeen: String?) async throws -> Bool {
        let body = String(decoding: try JSONEncoder.runAnywhere.encode(conversation), as: UTF8.self)
        let (id, updated) = (conversation.id, conversation.updatedAt.timeIntervalSince1970)
        return try await database.returnsRows(
            replacingOnly
                ? """
                UPDATE runanywhere_conversations SET updated_at = \(updated),
                    body = CASE WHEN \(titleSeen)::text IS NULL OR body::jsonb->>'title' = \(titleSeen)::text THEN \(body)
                        ELSE jsonb_set(\(body)::jsonb, '{title}', body::jsonb->'title')::text END
                WHERE account = \(account) AND id = \(id) RETURNING id
                """
                : """
                INSERT INTO runanywhere_conversations (account, id, updated_at, body) VALUES (\(account), \(id), \(updated), \(body))
                ON CONFLICT (account, id) DO UPDATE SET updated_at = EXCLUDED.updated_at, body = EXCLUDED.body RETURNING id
                """)
    }

    /// The conversation `id` exactly; nil when the account has none of that id.
    func load(id: String) async throws -> Conversation? {
        try await bodies("SELECT body FROM runanywhere_conversations WHERE account = \(account) AND id = \(id)").first
    }

    /// Whether the account has a conversation of exactly the id `id`.
    func contains(id: String) async throws -> Bool {
        try await database.returnsRows("SELECT 1 FROM runanywhere_conversations WHERE account = \(account) AND id = \(id)")
    }

    /// Every conversation of the account, most recently updated first.
    func list() async throws -> [Conversation] {
        try await bodies("SELECT body FROM runanywhere_conversations WHERE account = \(account) ORDER BY updated_at DESC, id")
    }

    /// Gives the conversation `id` the title `title` (``Conversation/title(_:)``) in one
    /// statement that changes nothing else, so an answer saved meanwhile through another replica
    /// is kept; the renamed conversation, nil when the account has none of that id.
    func rename(id: String, to title: String) async throws -> Conversation? {
        let (title, now) = (try Conversation.title(title), Date())
        let updatedAt = String(decoding: try JSONEncoder.runAnywhere.encode(now), as: UTF8.self)
        return try await bodies(
            """
            UPDATE runanywhere_conversations SET updated_at = \(now.timeIntervalSince1970),
                body = jsonb_set(jsonb_set(body::jsonb, '{title}', to_jsonb(\(title)::text)), '{updatedAt}', \(updatedAt)::jsonb)::text
            WHERE account = \(account) AND id = \(id) RETURNING body
            """
        ).first
    }

    /// Removes the conversation `id`; whether there was one.
    func delete(id: String) async throws -> Bool {
        try await database.returnsRows("DELETE FROM runanywhere_conversations WHERE account = \(account) AND id = \(id) RETURNING id")
    }

    /// The conversations `query` selects (its one column their JSON); one that cannot be read
    /// is an error naming it, not a conversation left out silently.
    private func bodies(_ query: PostgresQuery) async throws -> [Conversation] {
        let rows = try await database.run { connection in
            var bodies: [String] = []
            for try await body in try await connection.query(query, logger: connection.logger).decode(String.self) { bodies.append(body) }
            return bodies
        }
        return try rows.map { body in
            do {
                return try JSONDecoder.runAnywhere.decode(Conversation.self, from: Data(body.utf8))
            } catch {
                throw SDKError.fileManagement(
                    .modelStorageCorrupted, "A conversation in the database is unreadable: \(error.localizedDescription)")
            }
        }
    }
}
