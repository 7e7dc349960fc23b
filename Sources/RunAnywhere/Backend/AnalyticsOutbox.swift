import Foundation
import Logging
import NIOCore
import SQLiteNIO

/// The analytics events a backend has not acknowledged yet, in `<data>/backend/outbox.sqlite`
/// (sqlite-nio's SQLite, WAL journal, synchronous writes): an event is on disk once ``append(_:target:capacity:)``
/// returns, so it survives the app stopping, a crash or days offline, and it leaves only once
/// the backend has acknowledged its id (``remove(_:)``). Each backend (by base URL) has its own
/// events; at most `capacity` of them are kept, the oldest dropped beyond. The file is created
/// on the first write, not before; processes sharing the data folder may use it at once.
actor AnalyticsOutbox {
    /// The database file.
    nonisolated let url: URL
    private let logger: Logger
    private var opening: Task<SQLiteConnection, any Error>?

    /// The outbox of the data folder `dataDirectory`.
    init(dataDirectory: URL, logger: Logger) {
        url = dataDirectory.appendingPathComponent(SDKConstants.Files.backend).appendingPathComponent("outbox.sqlite")
        self.logger = logger
    }

    /// Writes `events` for the backend `target` (an id already queued is kept once), then drops
    /// the oldest beyond `capacity`; returns how many were dropped.
    @discardableResult
    func append(_ events: [AnalyticsEvent], target: String, capacity: Int) async throws -> Int {
        let connection = try await connect()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let now = Int(Date().timeIntervalSince1970 * 1000)
        do {
            // One statement per chunk: each is atomic without a transaction, which a shared
            // connection could not keep apart from a concurrent call's statements.
            for chunk in events.chunks(of: 200) {
                var binds: [SQLiteData] = []
                for event in chunk {
                    binds += [
                        .text(event.id), .text(target), .text(String(decoding: try encoder.encode(event), as: UTF8.self)), .integer(now),
                    ]
                }
                let rows = Array(repeating: "(?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
                _ = try await connection.query("INSERT OR IGNORE INTO outbox (id, target, event, created_at) VALUES \(rows)", binds)
            }
            let dropped = try await connection.query(
                "DELETE FROM outbox WHERE target = ? AND seq NOT IN (SELECT seq FROM outbox WHERE target = ? ORDER BY seq DESC LIMIT ?) RETURNING id",
                [.text(target), .text(target), .integer(capacity)]
            )
            return dropped.count
        } catch {
            throw Self.error(error, url: url)
        }
    }

    /// The oldest `limit` events for `target`, oldest first. A row that cannot be read back is
    /// deleted (and logged): it could never be sent.
    func batch(target: String, limit: Int) async throws -> [AnalyticsEvent] {
        let connection = try await connect()
        do {
            let rows = try await connection.query(
                "SELECT id, event FROM outbox WHERE target = ? ORDER BY seq LIMIT ?", [.text(target), .integer(limit)])
            var events: [AnalyticsEvent] = []
            var unreadable: [String] = []
            for row in rows {
                let id = row.column("id")?.string ?? ""
                if let text = row.column("event")?.string, let event = try? JSONDecoder().decode(AnalyticsEvent.self, from: Data(text.utf8))
                {
                    events.append(event)
                } else {
                    unreadable.append(id)
                }
            }
            if !unreadable.isEmpty {
                logger.error(
                    "Unreadable analytics events were dropped from the outbox",
                    metadata: ["file": "\(url.path)", "count": "\(unreadable.count)"])
                try await remove(unreadable)
            }
            return events
        } catch {
            throw Self.error(error, url: url)
        }
    }

    /// Deletes the events `ids` (those a backend acknowledged).
    func remove(_ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        let connection = try await connect()
        do {
            for chunk in ids.chunks(of: 500) {
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                _ = try await connection.query("DELETE FROM outbox WHERE id IN (\(placeholders))", chunk.map { .text($0) })
            }
        } catch {
            throw Self.error(error, url: url)
        }
    }

    /// How many events wait for `target`; 0 without creating the file when there is none yet.
    func count(target: String) async throws -> Int {
        guard opening != nil || FileManager.default.fileExists(atPath: url.path) else { return 0 }
        let rows = try await connect().query("SELECT COUNT(*) AS total FROM outbox WHERE target = ?", [.text(target)])
        return rows.first?.column("total")?.integer ?? 0
    }

    /// Closes the database; the next call opens it again.
    func close() async {
        guard let opening else { return }
        self.opening = nil
        if let connection = try? await opening.value { await connection.closeEvenIfCancelled() }
    }

    /// The open connection, opening (and creating) the database on first use; concurrent first
    /// calls share one opening.
    private func connect() async throws -> SQLiteConnection {
        if let opening { return try await opening.value }
        let task = Task { [url, logger] in try await Self.open(url, logger: logger) }
        opening = task
        do {
            return try await task.value
        } catch {
            opening = nil
            throw error
        }
    }

    private static func open(_ url: URL, logger: Logger) async throws -> SQLiteConnection {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw SDKError.writeFailed("Cannot create the folder \(url.deletingLastPathComponent().path)", error)
        }
        let connection = try await SQLiteConnection.open(storage: .file(path: url.path), logger: logger)
        do {
            for statement in [
                "PRAGMA busy_timeout = 10000", "PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL",
                "CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, target TEXT NOT NULL, event TEXT NOT NULL, created_at INTEGER NOT NULL)",
                "CREATE INDEX IF NOT EXISTS outbox_by_target ON outbox (target, seq)",
            ] {
                _ = try await connection.query(statement)
            }
        } catch {
            await connection.closeEvenIfCancelled()
            throw Self.error(error, url: url)
        }
        return connection
    }

    /// A full disk as ``ErrorCode/insufficientStorage``; other SQLite errors named with the file.
    private static func error(_ error: any Error, url: URL) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        if error.reason == .full { return SDKError(.insufficientStorage, "No space left to queue analytics in \(url.path)") }
        return SDKError(.fileWriteFailed, "The analytics outbox \(url.path) failed: \(error.message)")
    }
}

extension Array {
    /// The elements in consecutive slices of at most `size`.
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
