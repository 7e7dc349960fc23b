import Foundation
import PostgresNIO

/// One account's stored responses in the replicas' database (`runanywhere_responses`, keyed by
/// account and id): a response stored through one replica is continued, read or deleted through
/// any other.
struct PostgresResponseStorage: ResponseStorage {
    let database: ServerDatabase
    /// The account ("" for the server's own).
    let account: String

    func save(_ row: StoredRow, removingBefore oldest: Int) async throws {
        try await database.run { connection in
            try await connection.query(
                """
                INSERT INTO runanywhere_responses (account, id, created_at, response, input)
                VALUES (\(account), \(row.id), \(row.createdAt), \(row.response), \(row.input))
                ON CONFLICT (account, id) DO UPDATE SET created_at = EXCLUDED.created_at, response = EXCLUDED.response, input = EXCLUDED.input
                """,
                logger: database.logger)
            try await connection.query("DELETE FROM runanywhere_responses WHERE created_at < \(oldest)", logger: database.logger)
        }
    }

    func find(_ id: String, notBefore oldest: Int) async throws -> StoredRow? {
        try await database.run { connection in
            let rows = try await connection.query(
                """
                SELECT created_at, response, input FROM runanywhere_responses
                WHERE account = \(account) AND id = \(id) AND created_at >= \(oldest)
                """,
                logger: database.logger)
            for try await (created, response, input) in rows.decode((Int, String, String).self) {
                return StoredRow(id: id, createdAt: created, response: response, input: input)
            }
            return nil
        }
    }

    func delete(_ id: String) async throws -> Bool {
        try await database.returnsRows("DELETE FROM runanywhere_responses WHERE account = \(account) AND id = \(id) RETURNING id")
    }
}
