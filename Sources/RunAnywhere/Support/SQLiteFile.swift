import Foundation
import Logging
import NIOCore
import SQLiteNIO

/// An SQLite file the SDK or its server keeps (stored responses, API keys, document
/// collections), opened afresh for each use: the folder made if needed, the connection set up by
/// `schema`'s statements (pragmas and `CREATE … IF NOT EXISTS`), the work done, the connection
/// closed whatever happens.
package struct SQLiteFile: Sendable {
    package let url: URL
    package let logger: Logger
    /// Statements run on every connection before its work.
    package let schema: [String]
    /// The mode bits a file this creates gets (nil: the process's umask decides).
    package let permissions: Int?

    package init(url: URL, logger: Logger, schema: [String], permissions: Int? = nil) {
        self.url = url
        self.logger = logger
        self.schema = schema
        self.permissions = permissions
    }

    /// Runs `body` on a connection to the file.
    package func withConnection<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fresh = !FileManager.default.fileExists(atPath: url.path)
        let connection = try await SQLiteConnection.open(storage: .file(path: url.path), logger: logger)
        if fresh, let permissions { try? FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: url.path) }
        do {
            for statement in schema { _ = try await connection.query(statement) }
            let value = try await body(connection)
            await connection.closeEvenIfCancelled()
            return value
        } catch {
            await connection.closeEvenIfCancelled()
            throw error
        }
    }
}

extension SQLiteFile {
    /// The SQLite file a person named (a `--database` path), `~` expanded: a folder, or a file
    /// whose folder does not exist, is ``ErrorCode/invalidInput`` saying so, where SQLite would say
    /// only "cannot open" and a made folder would hide a mistyped path behind a new, empty database.
    package static func named(_ path: String) throws -> URL {
        guard !path.hasSuffix("/") else { throw SDKError(.invalidInput, "\(path) names a folder; name the database file in it") }
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
            guard !isFolder.boolValue else { throw SDKError(.invalidInput, "\(url.path) is a folder; name the database file in it") }
            return url
        }
        let folder = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw SDKError(.invalidInput, "No such folder \(folder.path) for the database \(url.path); make it first")
        }
        return url
    }
}

extension SQLiteConnection {
    /// Runs `body` in one transaction begun `IMMEDIATE` (the write lock taken at once, so that
    /// another writer waits for it by `busy_timeout`): its changes are kept when it returns and
    /// undone when it throws.
    package func inTransaction<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        _ = try await query("BEGIN IMMEDIATE")
        do {
            let value = try await body(self)
            _ = try await query("COMMIT")
            return value
        } catch {
            _ = try? await query("ROLLBACK")
            throw error
        }
    }

    /// Closes the connection, also from a cancelled task: sqlite-nio's `async` close runs on
    /// NIO's thread pool, which drops the work of a cancelled task, and a connection left open
    /// keeps its file handle (and fails sqlite-nio's assertion in a debug build).
    package func closeEvenIfCancelled() async {
        try? await (close() as EventLoopFuture<Void>).get()
    }
}
