import Foundation
import Logging
import PostgresNIO
import RunAnywhere
import RunAnywhereBenchRunner
import RunAnywherePostgres

/// Runs in PostgreSQL (postgres-nio's connection pool), for a fleet that outgrows one machine:
/// the same table and behaviour as ``SQLiteTelemetryStore``; migrations run under an advisory
/// lock, so collectors started together migrate once.
package final class PostgresTelemetryStore: TelemetryStore {
    package let kind = "postgresql"
    /// Where it connects, without the password.
    package var location: String { server.location }
    let server: PostgresServer
    let logger: Logger
    private static let migrationLock: Int64 = 0x5241_7465_6C65  // "RAtele"

    private init(server: PostgresServer, logger: Logger) {
        self.server = server
        self.logger = logger
    }

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, with
    /// `?sslmode=disable|prefer|require`, or `?host=/socket/folder`) and migrates it; gives up
    /// after `timeout` when the server cannot be reached.
    package static func open(url: String, logger: Logger, timeout: Duration = .seconds(10)) async throws -> PostgresTelemetryStore {
        let server = try await PostgresServer.open(url: url, logger: logger, timeout: timeout) { server in
            try await migrate(server.client, logger: logger)
        }
        return PostgresTelemetryStore(server: server, logger: logger)
    }

    private static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: TelemetrySchema.migrationsTable), logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM telemetry_migrations", logger: logger).decode(Int.self)
            {
                applied.insert(version)
            }
            for migration in TelemetrySchema.migrations(.postgres) where !applied.contains(migration.version) {
                for statement in migration.statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                let now = TelemetryColumns.milliseconds(Date())
                try await connection.query(
                    "INSERT INTO telemetry_migrations (version, applied_at) VALUES (\(migration.version), \(now))", logger: logger)
            }
        }
    }

    package func insert(_ payload: TelemetryPayload, receivedAt: Date) async throws -> Bool {
        var binds = PostgresBindings()
        for value in TelemetryColumns.values(payload, receivedAt: receivedAt) {
            switch value {
            case .text(let text): binds.append(text)
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .null: binds.appendNull()
            }
        }
        return try await !rows(PostgresQuery(unsafeSQL: TelemetrySchema.insert(.postgres), binds: binds)).isEmpty
    }

    /// How long a statement may take: a database gone from the network, or a lock never
    /// released, fails the request within it instead of holding it for ever.
    static let queryLimit: Duration = .seconds(30)

    /// Runs `query` within ``queryLimit`` and reads every row, with the store's errors
    /// (``PostgresServer/error(_:)``: a full disk said as such).
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let logger = logger
        return try await server.withConnection(timeout: Self.queryLimit) { connection in
            var rows: [PostgresRow] = []
            for try await row in try await connection.query(query, logger: logger) { rows.append(row) }
            return rows
        }
    }

    package func runs(_ query: TelemetryQuery) async throws -> [TelemetryRecord] {
        var binds = filterBinds(query)
        binds.append(Int64(query.limit))
        binds.append(Int64(query.offset))
        return try await rows(PostgresQuery(unsafeSQL: TelemetrySchema.select(query, .postgres), binds: binds)).map { row in
            let cells = row.makeRandomAccess()
            return try TelemetryColumns.record(
                text: { try cells[$0].decode(String.self) }, integer: { try cells[$0].decode(Int64.self) },
                real: { try cells[$0].decode(Double.self) },
                optionalReal: { try cells[$0].decode(Double?.self) }
            )
        }
    }

    package func count(_ query: TelemetryQuery) async throws -> Int {
        let found = try await rows(PostgresQuery(unsafeSQL: TelemetrySchema.count(query, .postgres), binds: filterBinds(query)))
        return Int(try found.first?.decode(Int64.self) ?? 0)
    }

    package func close() async throws {
        await server.close()
    }

    private func filterBinds(_ query: TelemetryQuery) -> PostgresBindings {
        var binds = PostgresBindings()
        for filter in query.filters { binds.append(filter.value) }
        return binds
    }
}
