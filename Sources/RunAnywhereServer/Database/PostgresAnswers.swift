import Foundation
import PostgresNIO
import RunAnywhere

/// The conversations being answered (and background responses being made) on every replica
/// (`runanywhere_answering`, a row per answer naming the replica giving it), so that one answer at a time per conversation holds across
/// replicas and any replica can stop an answer another gives. A replica asks another to stop by
/// marking the row and sending a notification (`NOTIFY`) on ``channel``; the replica giving the
/// answer also finds the mark when it renews its rows (``keepAlive(_:)``), so a notification missed
/// while its listening connection was down stops the answer at the next renewal. A replica that
/// dies leaves rows it no longer renews: after ``staleAfter`` they are free to claim.
struct PostgresAnswers: Sendable {
    let database: ServerDatabase
    /// This server's name in the rows: unique per process.
    let replica: String
    /// The notification channel of stop requests; the payload is `[account, id]` as JSON.
    static let channel = "runanywhere_stop_answer"
    /// How often a replica renews the rows of the answers it gives.
    static let renewal: Duration = .seconds(10)
    /// How old a row's renewal may be before its answer counts as gone, in seconds.
    static let staleAfter = 30.0

    init(database: ServerDatabase, replica: String = UUID().uuidString) {
        self.database = database
        self.replica = replica
    }

    /// Claims conversation `id` of `account` for an answer here; false when a replica answers in
    /// it (a row renewed within ``staleAfter``).
    func claim(account: String, id: String) async throws -> Bool {
        try await database.returnsRows(
            """
            INSERT INTO runanywhere_answering AS answer (account, id, replica, seen_at, stop_asked)
            VALUES (\(account), \(id), \(replica), extract(epoch FROM clock_timestamp()), false)
            ON CONFLICT (account, id) DO UPDATE SET replica = EXCLUDED.replica, seen_at = EXCLUDED.seen_at, stop_asked = false
            WHERE answer.seen_at < EXCLUDED.seen_at - \(Self.staleAfter) RETURNING id
            """)
    }

    /// Gives up the claim on conversation `id` of `account`: its answer here has ended.
    func release(account: String, id: String) async throws {
        _ = try await database.returnsRows(
            "DELETE FROM runanywhere_answering WHERE account = \(account) AND id = \(id) AND replica = \(replica) RETURNING id")
    }

    /// Asks the replica answering in conversation `id` of `account` to stop; false when no
    /// replica answers in it.
    func askToStop(account: String, id: String) async throws -> Bool {
        let payload = String(decoding: try JSONEncoder().encode([account, id]), as: UTF8.self)
        guard
            try await database.returnsRows(
                """
                UPDATE runanywhere_answering SET stop_asked = true
                WHERE account = \(account) AND id = \(id) AND seen_at >= extract(epoch FROM clock_timestamp()) - \(Self.staleAfter)
                RETURNING id
                """)
        else { return false }
        return try await database.returnsRows("SELECT pg_notify(\(Self.channel), \(payload))")
    }

    /// Whether a replica answers in conversation (or makes the background response) `id` of
    /// `account`: its row was renewed within ``staleAfter``.
    func isAnswered(account: String, id: String) async throws -> Bool {
        try await database.returnsRows(
            """
            SELECT id FROM runanywhere_answering
            WHERE account = \(account) AND id = \(id) AND seen_at >= extract(epoch FROM clock_timestamp()) - \(Self.staleAfter)
            """)
    }

    /// Renews the rows of `answers`, those given here (a row whose release failed is left to
    /// lapse); the `(account, id)` of those asked to stop.
    func keepAlive(_ answers: [(account: String, id: String)]) async throws -> [(account: String, id: String)] {
        guard !answers.isEmpty else { return [] }
        let (replica, accounts, ids) = (replica, answers.map(\.account), answers.map(\.id))
        return try await database.run { connection in
            let rows = try await connection.query(
                """
                UPDATE runanywhere_answering SET seen_at = extract(epoch FROM clock_timestamp())
                WHERE replica = \(replica) AND (account, id) IN (SELECT * FROM unnest(\(accounts)::text[], \(ids)::text[]))
                RETURNING account, id, stop_asked
                """,
                logger: connection.logger)
            var asked: [(account: String, id: String)] = []
            for try await (account, id, stop) in rows.decode((String, String, Bool).self) where stop { asked.append((account, id)) }
            return asked
        }
    }

    /// Calls `stop` with each stop request's `(account, id)` as it is notified, until cancelled
    /// or the connection fails.
    func listen(_ stop: @escaping @Sendable (String, String) async -> Void) async throws {
        try await database.server.client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                for try await notification in notifications {
                    guard let named = try? JSONDecoder().decode([String].self, from: Data(notification.payload.utf8)), named.count == 2
                    else { continue }
                    await stop(named[0], named[1])
                }
            }
        }
    }
}
