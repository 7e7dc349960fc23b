import Foundation
import Logging
import RunAnywhere
import SQLiteNIO

/// The stored responses (`store`, the default): `responses.sqlite` in the runtime's data folder
/// (sqlite-nio's SQLite), one row per response with its JSON and the items it answered — the
/// earlier turns' items before its own input — so that `previous_response_id` continues the
/// conversation, and `GET` and `DELETE /v1/responses/{id}` find it, across restarts. A response
/// is kept for ``retention`` (30 days, as OpenAI keeps them): older ones are not found and are
/// removed when the next is saved. Each call opens its own connection and closes it.
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

    let url: URL
    let logger: Logger

    init(dataDirectory: URL, logger: Logger) {
        url = dataDirectory.appendingPathComponent(Self.fileName)
        self.logger = logger
    }

    /// The oldest `created_at` still kept at `now`.
    static func oldestKept(at now: Date) -> Int { Int((now.timeIntervalSince1970 - retention).rounded(.down)) }

    /// Keeps `response`, which answered `input`, replacing any response of the same id, and
    /// removes those past ``retention`` at `now`.
    func save(_ response: ResponseObject, input: [ResponseItem], now: Date = Date()) async throws {
        let encoder = JSONEncoder.server
        let values: [SQLiteData] = [
            .text(response.id), .integer(response.createdAt),
            .text(String(decoding: try encoder.encode(response), as: UTF8.self)),
            .text(String(decoding: try encoder.encode(input), as: UTF8.self)),
        ]
        try await withConnection { connection in
            _ = try await connection.query("INSERT OR REPLACE INTO responses (id, created_at, response, input) VALUES (?, ?, ?, ?)", values)
            _ = try await connection.query("DELETE FROM responses WHERE created_at < ?", [.integer(Self.oldestKept(at: now))])
        }
    }

    /// The response `id` with its input, nil when none is stored or it is past ``retention`` at `now`.
    func find(_ id: String, now: Date = Date()) async throws -> Stored? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let row = try await withConnection { connection in
            try await connection.query(
                "SELECT response, input FROM responses WHERE id = ? AND created_at >= ?", [.text(id), .integer(Self.oldestKept(at: now))]
            ).first
        }
        guard let row, let response = row.column("response")?.string, let input = row.column("input")?.string else { return nil }
        let decoder = JSONDecoder()
        return Stored(
            response: try decoder.decode(ResponseObject.self, from: Data(response.utf8)),
            input: try decoder.decode([ResponseItem].self, from: Data(input.utf8))
        )
    }

    /// Removes the response `id`; whether it was there.
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
