import Foundation
import Logging
import RunAnywhere
import SQLiteNIO

/// The stored responses (`store`, the default) of one account: `responses.sqlite` in the
/// account's data folder (sqlite-nio's SQLite), or its rows in the replicas' PostgreSQL database
/// (``ServerDatabase``). One row per response with its JSON and the items it answered — the
/// earlier turns' items before its own input — so that `previous_response_id` continues the
/// conversation, and `GET` and `DELETE /v1/responses/{id}` find it, across restarts and replicas.
/// A response is kept for ``retention`` (30 days, as OpenAI keeps them): older ones are not found
/// and are removed when the next is saved.
struct ResponseStore: Sendable {
    /// A stored response and the items it answered.
    struct Stored: Sendable {
        let response: ResponseObject
        let input: [ResponseItem]
    }

    /// The database's file name in the data folder.
    static let fileName = "responses.sqlite"
    /// How long a response is kept after it was made.
    static let retention: TimeInterval = 30 * 24 * 3600

    let storage: any ResponseStorage

    /// The responses in `dataDirectory`'s `responses.sqlite`.
    init(dataDirectory: URL, logger: Logger) {
        storage = SQLiteResponseStorage(url: dataDirectory.appendingPathComponent(Self.fileName), logger: logger)
    }

    /// The responses of `account` (empty: the server's own) in the replicas' database.
    init(database: ServerDatabase, account: String) {
        storage = PostgresResponseStorage(database: database, account: account)
    }

    /// The oldest `created_at` still kept at `now`.
    static func oldestKept(at now: Date) -> Int { Int((now.timeIntervalSince1970 - retention).rounded(.down)) }

    /// Keeps `response`, which answered `input`, replacing any response of the same id, and
    /// removes those past ``retention`` at `now`.
    func save(_ response: ResponseObject, input: [ResponseItem], now: Date = Date()) async throws {
        let encoder = JSONEncoder.server
        try await storage.save(
            StoredRow(
                id: response.id, createdAt: response.createdAt, response: String(decoding: try encoder.encode(response), as: UTF8.self),
                input: String(decoding: try encoder.encode(input), as: UTF8.self)),
            removingBefore: Self.oldestKept(at: now))
    }

    /// The response `id` with its input, nil when none is stored or it is past ``retention`` at `now`.
    func find(_ id: String, now: Date = Date()) async throws -> Stored? {
        guard let row = try await storage.find(id, notBefore: Self.oldestKept(at: now)) else { return nil }
        let decoder = JSONDecoder()
        return Stored(
            response: try decoder.decode(ResponseObject.self, from: Data(row.response.utf8)),
            input: try decoder.decode([ResponseItem].self, from: Data(row.input.utf8))
        )
    }

    /// Removes the response `id`; whether it was there.
    func delete(_ id: String) async throws -> Bool {
        try await storage.delete(id)
    }
}

/// A stored response as its storage keeps it: its id, when it was made, and its JSON and its input's.
struct StoredRow: Sendable {
    let id: String
    let createdAt: Int
    let response: String
    let input: String
}

/// Where a response store keeps its rows.
protocol ResponseStorage: Sendable {
    /// Keeps `row`, replacing any of its id, and removes the rows made before `oldest`.
    func save(_ row: StoredRow, removingBefore oldest: Int) async throws
    /// The row `id` if it was made at `oldest` or later.
    func find(_ id: String, notBefore oldest: Int) async throws -> StoredRow?
    /// Removes the row `id`; whether it was there.
    func delete(_ id: String) async throws -> Bool
}

/// The responses in an SQLite file; each call opens its own connection and closes it.
struct SQLiteResponseStorage: ResponseStorage {
    let url: URL
    let logger: Logger

    func save(_ row: StoredRow, removingBefore oldest: Int) async throws {
        try await withConnection { connection in
            _ = try await connection.query(
                "INSERT OR REPLACE INTO responses (id, created_at, response, input) VALUES (?, ?, ?, ?)",
                [.text(row.id), .integer(row.createdAt), .text(row.response), .text(row.input)])
            _ = try await connection.query("DELETE FROM responses WHERE created_at < ?", [.integer(oldest)])
        }
    }

    func find(_ id: String, notBefore oldest: Int) async throws -> StoredRow? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let row = try await withConnection { connection in
            try await connection.query(
                "SELECT created_at, response, input FROM responses WHERE id = ? AND created_at >= ?", [.text(id), .integer(oldest)]
            ).first
        }
        guard let row, let created = row.column("created_at")?.integer, let response = row.column("response")?.string,
            let input = row.column("input")?.string
        else { return nil }
        return StoredRow(id: id, createdAt: created, response: response, input: input)
    }

    func delete(_ id: String) async throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        return try await withConnection { connection in
            try await !connection.query("DELETE FROM responses WHERE id = ? RETURNING id", [.text(id)]).isEmpty
        }
    }

    private func withConnection<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let schema = [
            "PRAGMA busy_timeout = 5000",  // concurrent requests wait for each other's writes
            "PRAGMA journal_mode = WAL",
            "CREATE TABLE IF NOT EXISTS responses (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, response TEXT NOT NULL, input TEXT NOT NULL)",
        ]
        return try await SQLiteFile(url: url, logger: logger, schema: schema).withConnection(body)
    }
}
