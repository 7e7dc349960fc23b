import Foundation
import Logging
import NIOCore
import RunAnywhere
import RunAnywhereBenchRunner
import SQLiteNIO

/// Runs in an SQLite file (sqlite-nio's own SQLite): WAL journal, synchronous writes (a run is on
/// disk before the POST is answered), migrations on open. Other processes (`telemetry list`)
/// may read it while a collector writes.
package final class SQLiteTelemetryStore: TelemetryStore {
    package let kind = "sqlite"
    /// The database file.
    package let url: URL
    let connection: SQLiteConnection

    private init(url: URL, connection: SQLiteConnection) {
        self.url = url
        self.connection = connection
    }

    /// A store dropped without ``close()`` (a caller that threw) still closes its connection;
    /// the close holds the connection until it has run.
    deinit {
        if !connection.isClosed { _ = connection.close() as EventLoopFuture<Void> }
    }

    /// Opens (creating it and its folder if needed) and migrates the database at `url`.
    package static func open(at url: URL, logger: Logger) async throws -> SQLiteTelemetryStore {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw SDKError.writeFailed("Cannot create the folder \(url.deletingLastPathComponent().path)", error)
        }
        let connection = try await SQLiteConnection.open(storage: .file(path: url.path), logger: logger)
        let store = SQLiteTelemetryStore(url: url, connection: connection)
        do {
            for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA busy_timeout = 10000"] {
                _ = try await connection.query(pragma)
            }
            try await store.migrate()
        } catch {
            await connection.closeEvenIfCancelled()
            throw Self.error(error, url: url)
        }
        return store
    }

    private func migrate() async throws {
        try await connection.inTransaction { connection in
            _ = try await connection.query(TelemetrySchema.migrationsTable)
            let applied = Set(
                try await connection.query("SELECT version FROM telemetry_migrations").compactMap { $0.column("version")?.integer })
            for migration in TelemetrySchema.migrations(.sqlite) where !applied.contains(migration.version) {
                for statement in migration.statements { _ = try await connection.query(statement) }
                _ = try await connection.query(
                    "INSERT INTO telemetry_migrations (version, applied_at) VALUES (?, ?)",
                    [.integer(migration.version), .integer(Int(TelemetryColumns.milliseconds(Date())))]
                )
            }
        }
    }

    package func insert(_ payload: TelemetryPayload, receivedAt: Date) async throws -> Bool {
        do {
            let rows = try await connection.query(
                TelemetrySchema.insert(.sqlite), TelemetryColumns.values(payload, receivedAt: receivedAt).map(Self.data))
            return !rows.isEmpty
        } catch {
            throw Self.error(error, url: url)
        }
    }

    package func runs(_ query: TelemetryQuery) async throws -> [TelemetryRecord] {
        let binds = query.filters.map { SQLiteData.text($0.value) } + [.integer(query.limit), .integer(query.offset)]
        return try await connection.query(TelemetrySchema.select(query, .sqlite), binds).map(Self.record)
    }

    package func count(_ query: TelemetryQuery) async throws -> Int {
        let rows = try await connection.query(TelemetrySchema.count(query, .sqlite), query.filters.map { .text($0.value) })
        return rows.first?.column("total")?.integer ?? 0
    }

    package func close() async throws {
        try await (connection.close() as EventLoopFuture<Void>).get()
    }

    static func data(_ value: TelemetryColumns.Value) -> SQLiteData {
        switch value {
        case .text(let text): .text(text)
        case .integer(let integer): .integer(Int(integer))
        case .real(let real): .float(real)
        case .null: .null
        }
    }

    private static func record(_ row: SQLiteRow) throws -> TelemetryRecord {
        func column(_ name: String) throws -> SQLiteData {
            guard let data = row.column(name) else {
                throw SDKError(.modelStorageCorrupted, "The telemetry database has no column \(name)")
            }
            return data
        }
        return try TelemetryColumns.record(
            text: { try column($0).string ?? "" }, integer: { Int64(try column($0).integer ?? 0) }, real: { try column($0).double ?? 0 },
            optionalReal: { try column($0) == .null ? nil : try column($0).double }
        )
    }

    /// A full disk as ``ErrorCode/insufficientStorage``; other errors named with the file.
    static func error(_ error: any Error, url: URL) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        if error.reason == .full { return SDKError(.insufficientStorage, "No space left to store runs in \(url.path)") }
        return SDKError(.fileWriteFailed, "The telemetry database \(url.path) failed: \(error.message)")
    }
}
