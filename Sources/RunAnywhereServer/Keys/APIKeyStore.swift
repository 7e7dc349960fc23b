import Crypto
import Foundation
import Logging
import RunAnywhere
import SQLiteNIO

/// The server's API keys, shared by `runanywhere keys` and `serve`: `keys.sqlite` in the data
/// folder, or the replicas' PostgreSQL database (``ServerDatabase``). A key is
/// `ra_<id>_<secret>`, shown once when it is made; the store keeps its id and the SHA-256 of the
/// whole key (a key is 32 random bytes: a slow hash would add nothing), so it never holds a
/// usable key.
package struct APIKeyStore: Sendable {
    /// The database's file name in the data folder.
    static let fileName = "keys.sqlite"

    let storage: any KeyStorage

    /// The keys in the data folder's `keys.sqlite`.
    package init(dataDirectory: URL, logger: Logger) {
        storage = SQLiteKeyStorage(url: dataDirectory.appendingPathComponent(Self.fileName), logger: logger)
    }

    /// The keys in the replicas' database.
    package init(database: ServerDatabase) {
        storage = PostgresKeyStorage(database: database)
    }

    /// The keys a server keeps: in `database` when it has one, else in `dataDirectory`.
    package init(database: ServerDatabase?, dataDirectory: URL, logger: Logger) {
        self = database.map(APIKeyStore.init(database:)) ?? APIKeyStore(dataDirectory: dataDirectory, logger: logger)
    }

    /// How a running server notices keys another process created or revoked.
    var changes: KeyChanges { storage.changes }
    /// The rate limits the servers on this store count together, if they do.
    var sharedRateLimits: (any SharedRateLimits)? { storage.sharedRateLimits }

    /// The keys' file, for a store in the data folder; nil for one in a database.
    var file: URL? {
        if case .file(let url) = changes { url } else { nil }
    }

    /// A new key named `name` for `account`, with `scopes`, allowed `requestsPerMinute` (nil: no
    /// limit); its record and the key itself, which nothing can show again. Throws when a key not
    /// revoked already has the name.
    package func create(
        name: String, account: String, scopes: [KeyScope], requestsPerMinute: Int? = nil, now: Date = Date()
    ) async throws -> (APIKeyRecord, String) {
        let name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 64, name.allSatisfy(\.isPrintableInLine) else {
            throw SDKError(.invalidInput, "A key's name is 1 to 64 printable characters on one line")
        }
        guard name != KeyRing.Holder.serverKeyName else {
            throw SDKError(.invalidInput, "'\(name)' names the server's own key (--api-key) in usage and /metrics; pick another name")
        }
        let account = account.trimmingCharacters(in: .whitespaces)
        guard account.count <= 64, account.allSatisfy(\.isPrintableInLine) else {
            throw SDKError(
                .invalidInput, "A key's account is 1 to 64 printable characters on one line (its data has a folder of that name)")
        }
        guard !scopes.isEmpty else { throw SDKError(.invalidInput, "A key needs at least one scope: \(Self.scopeNames)") }
        if let requestsPerMinute, !(1...1_000_000).contains(requestsPerMinute) {
            throw SDKError(.invalidInput, "A key's rate limit is 1 to 1000000 requests a minute")
        }
        let id = Self.random(bytes: 8).map { String(format: "%02x", $0) }.joined()
        let secret = Data(Self.random(bytes: 32)).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let key = "ra_\(id)_\(secret)"
        let record = APIKeyRecord(
            id: id, name: name, account: account.isEmpty ? name : account, scopes: Array(Set(scopes)).sorted(),
            requestsPerMinute: requestsPerMinute, createdAt: now, revokedAt: nil)
        try await storage.insert(record, hash: Self.hash(key))
        return (record, key)
    }

    /// Every key, revoked ones too, oldest first.
    package func list() async throws -> [APIKeyRecord] {
        try await storage.rows().map(\.record)
    }

    /// Revokes the key whose id or name (among those not revoked) is `reference`; whether one was.
    package func revoke(_ reference: String, now: Date = Date()) async throws -> Bool {
        try await storage.revoke(reference, at: now)
    }

    /// The keys not revoked, with their hashes, for checking requests.
    func active() async throws -> [(record: APIKeyRecord, hash: String)] {
        try await storage.rows().filter { $0.record.revokedAt == nil }
    }

    /// The error for a name a key not revoked already has.
    static func nameTaken(_ name: String) -> SDKError {
        SDKError(.modelAlreadyExists, "A key named '\(name)' exists; revoke it first or pick another name")
    }

    /// The SHA-256 of `key`, in hex.
    static func hash(_ key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The id in a key of the form `ra_<id>_<secret>`; nil for anything else.
    static func id(of key: String) -> String? {
        let parts = key.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ra", parts[1].count == 16, !parts[2].isEmpty else { return nil }
        return String(parts[1])
    }

    /// The scopes' names, for messages and help.
    package static let scopeNames = KeyScope.allCases.map(\.rawValue).joined(separator: ", ")

    private static func random(bytes count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

}

/// How a running server learns of keys another process (`runanywhere keys`, another replica)
/// created or revoked.
enum KeyChanges: Sendable {
    /// The keys' file is rewritten on every change: read them again when its identity changes.
    case file(URL)
    /// Read them again when they were last read longer ago than this.
    case polled(Duration)
}

/// Where a key store keeps its rows.
protocol KeyStorage: Sendable {
    /// Adds a key; throws ``APIKeyStore/nameTaken(_:)`` when a key not revoked has its name.
    func insert(_ record: APIKeyRecord, hash: String) async throws
    /// Every key with its hash, revoked ones too, oldest first.
    func rows() async throws -> [(record: APIKeyRecord, hash: String)]
    /// Revokes the key not revoked whose id or name is `reference`; whether there was one.
    func revoke(_ reference: String, at: Date) async throws -> Bool
    var changes: KeyChanges { get }
    /// The rate limits every server on this storage counts together; nil when each server
    /// counts its own.
    var sharedRateLimits: (any SharedRateLimits)? { get }
}

/// Rate limits several servers count together (the replicas on one database).
protocol SharedRateLimits: Sendable {
    /// Counts a request of `record` against its rate limit; nil when it may go on, else the
    /// seconds until it may.
    func admit(_ record: APIKeyRecord) async throws -> Double?
}

/// The keys in an SQLite file of the data folder.
struct SQLiteKeyStorage: KeyStorage {
    let url: URL
    let logger: Logger

    var changes: KeyChanges { .file(url) }
    var sharedRateLimits: (any SharedRateLimits)? { nil }

    func insert(_ record: APIKeyRecord, hash: String) async throws {
        try await withConnection { connection in
            let taken = try await connection.query("SELECT id FROM keys WHERE name = ? AND revoked_at IS NULL", [.text(record.name)])
            guard taken.isEmpty else { throw APIKeyStore.nameTaken(record.name) }
            _ = try await connection.query(
                "INSERT INTO keys (id, name, account, scopes, rate_limit, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(record.id), .text(record.name), .text(record.account),
                    .text(record.scopes.map(\.rawValue).joined(separator: " ")),
                    record.requestsPerMinute.map { .integer($0) } ?? .null, .text(hash), .float(record.createdAt.timeIntervalSince1970),
                ])
        }
    }

    func revoke(_ reference: String, at now: Date) async throws -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return false }
        return try await withConnection { connection in
            try await !connection.query(
                "UPDATE keys SET revoked_at = ? WHERE (id = ? OR name = ?) AND revoked_at IS NULL RETURNING id",
                [.float(now.timeIntervalSince1970), .text(reference), .text(reference)]
            ).isEmpty
        }
    }

    func rows() async throws -> [(record: APIKeyRecord, hash: String)] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try await withConnection { connection in
            try await connection.query(
                "SELECT id, name, account, scopes, rate_limit, hash, created_at, revoked_at FROM keys ORDER BY created_at, id"
            )
            .compactMap { row in
                guard let id = row.column("id")?.string, let name = row.column("name")?.string,
                    let account = row.column("account")?.string, let scopes = row.column("scopes")?.string,
                    let hash = row.column("hash")?.string, let created = row.column("created_at")?.double
                else { return nil }
                let record = APIKeyRecord(
                    id: id, name: name, account: account, scopes: KeyScope.parse(scopes),
                    requestsPerMinute: row.column("rate_limit")?.integer, createdAt: Date(timeIntervalSince1970: created),
                    revokedAt: row.column("revoked_at")?.double.map(Date.init(timeIntervalSince1970:)))
                return (record, hash)
            }
        }
    }

    private func withConnection<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        // A rollback journal, not WAL: every change rewrites the file itself, which is how a
        // running server notices a key created or revoked by another process (KeyRing). Only its
        // owner reads the hashes.
        let schema = [
            "PRAGMA busy_timeout = 5000", "PRAGMA journal_mode = DELETE",
            "CREATE TABLE IF NOT EXISTS keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, account TEXT NOT NULL, scopes TEXT NOT NULL, rate_limit INTEGER, hash TEXT NOT NULL, created_at REAL NOT NULL, revoked_at REAL)",
        ]
        return try await SQLiteFile(url: url, logger: logger, schema: schema, permissions: 0o600).withConnection(body)
    }
}
