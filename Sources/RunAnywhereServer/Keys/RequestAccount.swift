import Crypto
import Foundation
import RunAnywhere
import RunAnywherePostgres

/// The account a request acts for: its key's (``APIKeyRecord/account``), set by
/// ``APIKeyMiddleware`` for the request's handler; nil for the server's own account (no key, or
/// the single `--api-key`). Each account has its own conversations, stored responses and document
/// collections: the server's own in the data folder as always, another's in a folder of its own.
enum RequestAccount {
    @TaskLocal static var current: String?
    /// Who made the request; nil for a server without keys, whose requests may do everything.
    @TaskLocal static var holder: KeyRing.Holder?
    /// The name of the key the request came with; nil without one. What the request's work
    /// publishes (in tasks it starts, which inherit it) is counted as this key's usage.
    static var key: String? { holder?.name }

    /// Whether the request may do what `scope` allows.
    static func allows(_ scope: KeyScope) -> Bool { holder?.allows(scope) ?? true }

    /// Where `account`'s files are: `base` for the server's own, `base/accounts/a-<account>` (its
    /// name with anything but letters, digits, `-` and `_` written as `%XX`) for another; a name
    /// whose folder would pass a file name's 255 bytes (64 characters of another script can) is
    /// `h-<its SHA-256>` instead.
    static func dataDirectory(_ base: URL, for account: String? = current) -> URL {
        guard let account else { return base }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_".utf8)
        var folder = "a-" + account.utf8.map { allowed.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
        if folder.utf8.count > 200 { folder = "h-" + SHA256.hash(data: Data(account.utf8)).map { String(format: "%02x", $0) }.joined() }
        return base.appendingPathComponent("accounts", isDirectory: true).appendingPathComponent(folder, isDirectory: true)
    }

    /// The document collections of `account`: the server's session for its own; for another, the
    /// account's collections in the server's PostgreSQL database when its collections are there,
    /// else a session over the SQLite file in the account's folder.
    static func documents(_ shared: RAGSession, runtime: RunAnywhereRuntime, for account: String? = current) throws -> RAGSession {
        guard let account else { return shared }
        if let database = shared.store as? PostgresRAGStore {
            return RAGSession(runtime: runtime, store: database.scoped(to: account), reader: shared.reader, chunker: shared.chunker)
        }
        let folder = dataDirectory(runtime.configuration.dataDirectory, for: account)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return RAGSession(
            runtime: runtime, database: folder.appendingPathComponent(SQLiteRAGStore.fileName), reader: shared.reader,
            chunker: shared.chunker)
    }
}
