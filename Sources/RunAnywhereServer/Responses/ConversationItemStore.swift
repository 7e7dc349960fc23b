import Foundation
import Logging
import RunAnywhere
import SQLiteNIO

/// The conversations of OpenAI's Conversations API (`/v1/conversations`) of one account: each
/// an id, when it was made, its `metadata`, and its items in the order they were added. They live
/// beside the stored responses, in `responses.sqlite` of the account's data folder, or in the
/// replicas' PostgreSQL database (``ServerDatabase``). Unlike a stored response, a conversation is
/// kept until it is deleted, as OpenAI keeps them.
struct ConversationItemStore: Sendable {
    let storage: any ConversationItemStorage

    /// The conversations in `dataDirectory`'s `responses.sqlite`.
    init(dataDirectory: URL, logger: Logger) {
        storage = SQLiteConversationItemStorage(url: dataDirectory.appendingPathComponent(ResponseStore.fileName), logger: logger)
    }

    /// The conversations of `account` (empty: the server's own) in the replicas' database.
    init(database: ServerDatabase, account: String) {
        storage = PostgresConversationItemStorage(database: database, account: account)
    }

    /// The conversations of the request's account (``RequestAccount``), in the replicas'
    /// database when the server has one.
    static func ofRequest(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) -> ConversationItemStore {
        if let database = configuration.database {
            return ConversationItemStore(database: database, account: RequestAccount.current ?? "")
        }
        return ConversationItemStore(
            dataDirectory: RequestAccount.dataDirectory(runtime.configuration.dataDirectory), logger: configuration.logger)
    }

    /// Makes a conversation holding `items` (each given an id and a status where it has none).
    func create(metadata: [String: String], items: [ResponseItem]) async throws -> ConversationObject {
        let conversation = ConversationObject(
            id: ResponseItem.newID("conv"), createdAt: Int(Date().timeIntervalSince1970), metadata: metadata)
        try await storage.create(
            ConversationRow(id: conversation.id, createdAt: conversation.createdAt, metadata: try Self.text(metadata)),
            items: try Self.rows(items))
        return conversation
    }

    /// The conversation `id`, nil when there is none.
    func find(_ id: String) async throws -> ConversationObject? {
        try await storage.find(id).map(Self.conversation)
    }

    /// Replaces the conversation's metadata; the conversation as it is now, nil when there is none.
    func update(_ id: String, metadata: [String: String]) async throws -> ConversationObject? {
        try await storage.update(id, metadata: try Self.text(metadata)).map(Self.conversation)
    }

    /// Removes the conversation and its items; whether it was there.
    func delete(_ id: String) async throws -> Bool {
        try await storage.delete(id)
    }

    /// Adds `items` at the conversation's end (each given an id and a status where it has none,
    /// one whose id the conversation holds already left out); the items as stored, nil when there
    /// is no such conversation.
    func append(_ items: [ResponseItem], to id: String) async throws -> [ResponseItem]? {
        let rows = try Self.rows(items)
        guard try await storage.append(rows, to: id) else { return nil }
        return try rows.map(Self.item)
    }

    /// The conversation's items, oldest first; nil when there is no such conversation.
    func items(of id: String) async throws -> [ResponseItem]? {
        try await storage.items(of: id)?.map(Self.item)
    }

    /// The conversation's item `itemID`; nil when either is not there.
    func item(_ itemID: String, of id: String) async throws -> ResponseItem? {
        try await storage.item(itemID, of: id).map(Self.item)
    }

    /// Removes the item `itemID` from the conversation; whether it was there.
    func deleteItem(_ itemID: String, of id: String) async throws -> Bool {
        try await storage.deleteItem(itemID, of: id)
    }

    /// The rows of `items`, each with an id and a status (`completed` where it had none: it is
    /// kept as a finished part of the conversation).
    private static func rows(_ items: [ResponseItem]) throws -> [ConversationItemRow] {
        try items.map { item in
            let stored = item.identified.completed
            return ConversationItemRow(id: stored.id ?? "", item: String(decoding: try JSONEncoder.server.encode(stored), as: UTF8.self))
        }
    }

    private static func item(_ row: ConversationItemRow) throws -> ResponseItem {
        try JSONDecoder().decode(ResponseItem.self, from: Data(row.item.utf8))
    }

    private static func text(_ metadata: [String: String]) throws -> String {
        String(decoding: try JSONEncoder.server.encode(metadata), as: UTF8.self)
    }

    private static func conversation(_ row: ConversationRow) throws -> ConversationObject {
        ConversationObject(
            id: row.id, createdAt: row.createdAt, metadata: try JSONDecoder().decode([String: String].self, from: Data(row.metadata.utf8)))
    }
}

/// A conversation as its storage keeps it: its id, when it was made, and its metadata's JSON.
struct ConversationRow: Sendable {
    let id: String
    let createdAt: Int
    let metadata: String
}

/// An item of a conversation as its storage keeps it: its id and its JSON.
struct ConversationItemRow: Sendable {
    let id: String
    let item: String
}

/// Where a conversation store keeps its rows.
protocol ConversationItemStorage: Sendable {
    /// Keeps the new conversation `row` with `items`.
    func create(_ row: ConversationRow, items: [ConversationItemRow]) async throws
    /// The conversation `id`.
    func find(_ id: String) async throws -> ConversationRow?
    /// Replaces the conversation's metadata; the row as it is now, nil when there is none.
    func update(_ id: String, metadata: String) async throws -> ConversationRow?
    /// Removes the conversation and its items; whether it was there.
    func delete(_ id: String) async throws -> Bool
    /// Adds `items` at the conversation's end, leaving out those whose id it holds; false when
    /// there is no such conversation (and nothing is added).
    func append(_ items: [ConversationItemRow], to id: String) async throws -> Bool
    /// The conversation's items in the order they were added; nil when there is no such conversation.
    func items(of id: String) async throws -> [ConversationItemRow]?
    /// The conversation's item `itemID`.
    func item(_ itemID: String, of id: String) async throws -> ConversationItemRow?
    /// Removes the conversation's item `itemID`; whether it was there.
    func deleteItem(_ itemID: String, of id: String) async throws -> Bool
}

/// The conversations in an SQLite file (the stored responses' file); each call opens its own
/// connection and closes it, and a call that writes more than one row does it in one transaction.
struct SQLiteConversationItemStorage: ConversationItemStorage {
    let url: URL
    let logger: Logger

    func create(_ row: ConversationRow, items: [ConversationItemRow]) async throws {
        try await withTransaction { connection in
            _ = try await connection.query(
                "INSERT INTO conversations (id, created_at, metadata) VALUES (?, ?, ?)",
                [.text(row.id), .integer(row.createdAt), .text(row.metadata)])
            try await Self.insert(items, into: row.id, on: connection)
        }
    }

    func find(_ id: String) async throws -> ConversationRow? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try await withConnection { connection in try await Self.find(id, on: connection) }
    }

    func update(_ id: String, metadata: String) async throws -> ConversationRow? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try await withConnection { connection in
            _ = try await connection.query("UPDATE conversations SET metadata = ? WHERE id = ?", [.text(metadata), .text(id)])
            return try await Self.find(id, on: connection)
        }
    }

    func delete(_ id: String) async throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        return try await withTransaction { connection in
            _ = try await connection.query("DELETE FROM conversation_items WHERE conversation_id = ?", [.text(id)])
            return try await !connection.query("DELETE FROM conversations WHERE id = ? RETURNING id", [.text(id)]).isEmpty
        }
    }

    func append(_ items: [ConversationItemRow], to id: String) async throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        return try await withTransaction { connection in
            guard try await Self.find(id, on: connection) != nil else { return false }
            try await Self.insert(items, into: id, on: connection)
            return true
        }
    }

    func items(of id: String) async throws -> [ConversationItemRow]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try await withConnection { connection in
            guard try await Self.find(id, on: connection) != nil else { return nil }
            return try await connection.query(
                "SELECT id, item FROM conversation_items WHERE conversation_id = ? ORDER BY position", [.text(id)]
            ).compactMap(Self.item)
        }
    }

    func item(_ itemID: String, of id: String) async throws -> ConversationItemRow? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try await withConnection { connection in
            try await connection.query(
                "SELECT id, item FROM conversation_items WHERE conversation_id = ? AND id = ?", [.text(id), .text(itemID)]
            ).first.flatMap(Self.item)
        }
    }

    func deleteItem(_ itemID: String, of id: String) async throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        return try await withConnection { connection in
            try await !connection.query(
                "DELETE FROM conversation_items WHERE conversation_id = ? AND id = ? RETURNING id", [.text(id), .text(itemID)]
            ).isEmpty
        }
    }

    private static func find(_ id: String, on connection: SQLiteConnection) async throws -> ConversationRow? {
        guard let row = try await connection.query("SELECT created_at, metadata FROM conversations WHERE id = ?", [.text(id)]).first,
            let created = row.column("created_at")?.integer, let metadata = row.column("metadata")?.string
        else { return nil }
        return ConversationRow(id: id, createdAt: created, metadata: metadata)
    }

    private static func item(_ row: SQLiteRow) -> ConversationItemRow? {
        guard let id = row.column("id")?.string, let item = row.column("item")?.string else { return nil }
        return ConversationItemRow(id: id, item: item)
    }

    /// Inserts `items` after the conversation's last, one at a time so that the positions keep their order.
    private static func insert(_ items: [ConversationItemRow], into id: String, on connection: SQLiteConnection) async throws {
        for item in items {
            _ = try await connection.query(
                "INSERT INTO conversation_items (conversation_id, id, item) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [.text(id), .text(item.id), .text(item.item)])
        }
    }

    private func withTransaction<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in try await connection.inTransaction(body) }
    }

    private func withConnection<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let schema = [
            "PRAGMA busy_timeout = 5000",  // concurrent requests wait for each other's writes
            "PRAGMA journal_mode = WAL",
            "CREATE TABLE IF NOT EXISTS conversations (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, metadata TEXT NOT NULL)",
            """
            CREATE TABLE IF NOT EXISTS conversation_items (position INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id TEXT NOT NULL,
                id TEXT NOT NULL, item TEXT NOT NULL, UNIQUE (conversation_id, id))
            """,
        ]
        return try await SQLiteFile(url: url, logger: logger, schema: schema).withConnection(body)
    }
}
