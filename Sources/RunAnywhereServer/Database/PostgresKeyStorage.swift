import Foundation
import PostgresNIO
import RunAnywhere

/// The API keys in the replicas' database (`runanywhere_api_keys`): a key made or revoked through
/// one replica counts on every replica within ``pollInterval``, and each key's rate limit counts
/// the requests of every replica (``PostgresRateBuckets``).
struct PostgresKeyStorage: KeyStorage {
    let database: ServerDatabase
    /// How often a replica reads the keys again while requests come.
    static let pollInterval: Duration = .milliseconds(500)

    var changes: KeyChanges { .polled(Self.pollInterval) }
    var sharedRateLimits: (any SharedRateLimits)? { PostgresRateBuckets(database: database) }

    func insert(_ record: APIKeyRecord, hash: String) async throws {
        let scopes = record.scopes.map(\.rawValue).joined(separator: " ")
        // The partial unique index on the names of keys not revoked decides, and also orders two
        // replicas making the same name at once: the second inserts nothing.
        let inserted = try await database.returnsRows(
            """
            INSERT INTO runanywhere_api_keys (id, name, account, scopes, rate_limit, hash, created_at)
            VALUES (\(record.id), \(record.name), \(record.account), \(scopes), \(record.requestsPerMinute), \(hash),
                \(record.createdAt.timeIntervalSince1970))
            ON CONFLICT (name) WHERE revoked_at IS NULL DO NOTHING RETURNING id
            """)
        guard inserted else { throw APIKeyStore.nameTaken(record.name) }
    }

    func revoke(_ reference: String, at now: Date) async throws -> Bool {
        try await database.returnsRows(
            """
            UPDATE runanywhere_api_keys SET revoked_at = \(now.timeIntervalSince1970)
            WHERE (id = \(reference) OR name = \(reference)) AND revoked_at IS NULL RETURNING id
            """)
    }

    func rows() async throws -> [(record: APIKeyRecord, hash: String)] {
        try await database.run { connection in
            let rows = try await connection.query(
                """
                SELECT id, name, account, scopes, rate_limit, hash, created_at, revoked_at FROM runanywhere_api_keys
                ORDER BY created_at, id
                """,
                logger: database.logger)
            var found: [(record: APIKeyRecord, hash: String)] = []
            for try await (id, name, account, scopes, limit, hash, created, revoked) in rows.decode(
                (String, String, String, String, Int?, String, Double, Double?).self)
            {
                let record = APIKeyRecord(
                    id: id, name: name, account: account, scopes: KeyScope.parse(scopes), requestsPerMinute: limit,
                    createdAt: Date(timeIntervalSince1970: created), revokedAt: revoked.map(Date.init(timeIntervalSince1970:)))
                found.append((record, hash))
            }
            return found
        }
    }
}

/// Each rate-limited key's requests left in the replicas' database (`runanywhere_rate_buckets`):
/// a bucket that holds a minute's requests and refills continuously, as a single server's, but
/// counted by one statement per request under the row's lock and on the database's clock, so
/// that N requests a minute is N over every replica.
struct PostgresRateBuckets: SharedRateLimits {
    let database: ServerDatabase

    func admit(_ record: APIKeyRecord) async throws -> Double? {
        guard let limit = record.requestsPerMinute else { return nil }
        let (id, capacity, rate) = (record.id, Double(limit), Double(limit) / 60)
        return try await database.run { connection in
            // The refilled count is written out three times: SET cannot name it, and computing it
            // in a subquery or CTE would read the row outside the lock that ON CONFLICT takes.
            let rows = try await connection.query(
                """
                INSERT INTO runanywhere_rate_buckets AS bucket (key_id, requests_left, counted_at, admitted)
                VALUES (\(id), \(capacity) - 1, extract(epoch FROM clock_timestamp()), true)
                ON CONFLICT (key_id) DO UPDATE SET
                    requests_left = LEAST(\(capacity), bucket.requests_left + (EXCLUDED.counted_at - bucket.counted_at) * \(rate))
                        - CASE WHEN LEAST(\(capacity), bucket.requests_left + (EXCLUDED.counted_at - bucket.counted_at) * \(rate)) >= 1
                            THEN 1 ELSE 0 END,
                    admitted = LEAST(\(capacity), bucket.requests_left + (EXCLUDED.counted_at - bucket.counted_at) * \(rate)) >= 1,
                    counted_at = EXCLUDED.counted_at
                RETURNING requests_left, admitted
                """,
                logger: connection.logger)
            for try await (left, admitted) in rows.decode((Double, Bool).self) { return admitted ? nil : (1 - left) / rate }
            return nil
        }
    }
}
