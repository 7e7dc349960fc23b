import Foundation
import PostgresNIO

/// One account's conversations of the Conversations API in the replicas' database
/// (`runanywhere_item_conversations` and their `runanywhere_conversation_items`, in the order
/// a sequence gives them): a conversation made through one replica is continued, read or deleted
/// through any other.
struct PostgresConversationItemStorage: ConversationItemStorage {
    let database: ServerDatabase
    /// The account ("" for the server's own).
    let account: String

    func create(_ row: ConversationRow, items: [ConversationItemRow]) async throws {
        let account = account
        try await database.transaction { connection in
            try await connection.query(
                """
                INSERT INTO runanywhere_item_conversations (account, id, created_at, metadata)
                VALUES (\(account), \(row.id), \(row.createdAt), \(row.metadata))
                """,
                logger: connection.logger)
            try await Self.insert(items, into: row.id, account: account, on: connection)
        }
    }

    func find(_ id: String) async throws -> ConversationRow? {
        let account = account
        return try await database.run { connection in try await Self.find(id, account: account, on: connection, locking: false) }
    }

    func update(_ id: String, metadata: String) async throws -> ConversationRow? {
        let account = account
        return try await database.run { connection in
            let rows = try await connection.query(
                """
                UPDATE runanywhere_item_conversations SET metadata = \(metadata) WHERE account = \(account) AND id = \(id)
                RETURNING created_at
                """,
                logger: connection.logger)
            for try await created in rows.decode(Int.self) { return ConversationRow(id: id, createdAt: created, metadata: metadata) }
            return nil
        }
    }

    func delete(_ id: String) async throws -> Bool {
        // The items go with it (ON DELETE CASCADE).
        try await database.returnsRows(
            "DELETE FROM runanywhere_item_conversations WHERE account = \(account) AND id = \(id) RETURNING id")
    }

    func append(_ items: [ConversationItemRow], to id: String) async throws -> Bool {
        let account = account
        return try await database.transaction { connection in
            // The row lock keeps a delete of the conversation from passing between the check and the inserts.
            guard try await Self.find(id, account: account, on: connection, locking: true) != nil else { return false }
            try await Self.insert(items, into: id, account: account, on: connection)
            return true
        }
    }

    func items(of id: String) async throws -> [ConversationItemRow]? {
        let account = account
        return try await database.run { connection in
            guard try await Self.find(id, account: account, on: connection, locking: false) != nil else { return nil }
            let rows = try await connection.query(
                """
                SELECT id, item FROM runanywhere_conversation_items WHERE account = \(account) AND conversation_id = \(id)
                ORDER BY position
                """,
                logger: connection.logger)
            var items: [ConversationItemRow] = []
            for try await (itemID, item) in rows.decode((String, String).self) { items.append(ConversationItemRow(id: itemID, item: item)) }
            return items
        }
    }

    func item(_ itemID: String, of id: String) async throws -> ConversationItemRow? {
        let account = account
        return try await database.run { connection in
            let rows = try await connection.query(
                """
                SELECT item FROM runanywhere_conversation_items
                WHERE account = \(account) AND conversation_id = \(id) AND id = \(itemID)
                """,
                logger: connection.logger)
            for try await item in rows.decode(String.self) { return ConversationItemRow(id: itemID, item: item) }
            return nil
        }
    }

    func deleteItem(_ itemID: String, of id: String) async throws -> Bool {
        try await database.returnsRows(
            """
            DELETE FROM runanywhere_conversation_items WHERE account = \(account) AND conversation_id = \(id) AND id = \(itemID)
            RETURNING id
            """)
    }

    private static func find(_ id: String, account: String, on connection: PostgresConnection, locking: Bool) async throws
        -> ConversationRow?
    {
        let rows =
            locking
            ? try await connection.query(
                """
                SELECT created_at, metadata FROM runanywhere_item_conversations WHERE account = \(account) AND id = \(id) FOR SHARE
                """,
                logger: connection.logger)
            : try await connection.query(
                "SELECT created_at, metadata FROM runanywhere_item_conversations WHERE account = \(account) AND id = \(id)",
                logger: connection.logger)
        for try await (created, metadata) in rows.decode((Int, String).self) {
            return ConversationRow(id: id, createdAt: created, metadata: metadata)
        }
        return nil
    }

    /// Inserts `items` after the conversation's last, one at a time so that the sequence keeps their order.
    private static func insert(
        _ items: [ConversationItemRow], into id: String, account: String, on connection: PostgresConnection
    ) async throws {
        for item in items {
            try await connection.query(
                """
                INSERT INTO runanywhere_conversation_items (account, conversation_id, id, item)
                VALUES (\(account), \(id), \(item.id), \(item.item)) ON CONFLICT DO NOTHING
                """,
                logger: connection.logger)
        }
    }
}
