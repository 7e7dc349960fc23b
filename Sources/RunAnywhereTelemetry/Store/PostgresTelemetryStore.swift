import Foundation
import Logging
import PostgresNIO
import RunAnywhere
import RunAnywhereBenchRunner

/// Runs in PostgreSQL (postgres-nio's connection pool), for a fleet that outgrows one machine:
/// the same table and behaviour as ``SQLiteTelemetryStore``; migrations run under an advisory
/// lock, so collectors started together migrate once.
public final class PostgresTelemetryStore: TelemetryStore {
    public let kind = "postgresql"
    /// Where it connects, without the password.
    public let location: String
    let client: PostgresClient
    private let running: Task<Void, Never>
    let logger: Logger
    private static let migrationLock: Int64 = 0x5241_7465_6C65  // "RAtele"

    private init(client: PostgresClient, location: String, logger: Logger) {
        self.client = client
        self.location = location
        self.logger = logger
        running = Task { await client.run() }
    }

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, with
    /// `?sslmode=disable|prefer|require`, or `?host=/socket/folder`) and migrates it; gives up
    /// after `timeout` when the server cannot be reached.
    public static func open(url: String, logger: Logger, timeout: Duration = .seconds(10)) async throws -> PostgresTelemetryStore {
        let (configuration, location) = try configuration(url)
        let store = PostgresTelemetryStore(client: PostgresClient(configuration: configuration, backgroundLogger: logger), location: location, logger: logger)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await store.migrate() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw SDKError(.networkError, "PostgreSQL at \(location) did not answer within \(timeout)")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            try? await store.close()
            throw Self.error(error, location: location)
        }
        return store
    }

    /// The client configuration for `url`, and the URL without its password.
    static func configuration(_ url: String) throws -> (PostgresClient.Configuration, String) {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
              let user = components.user, !user.isEmpty else {
            throw SDKError(.invalidInput, "The database must be a postgres://user[:password]@host[:port]/database URL, not '\(url)'")
        }
        let options = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let database = String(components.path.drop { $0 == "/" })
        let password = components.password.map { $0.removingPercentEncoding ?? $0 }
        var configuration: PostgresClient.Configuration
        if let socket = options["host"], socket.hasPrefix("/") {
            let port = components.port ?? 5432
            configuration = .init(unixSocketPath: "\(socket)/.s.PGSQL.\(port)", username: user, password: password, database: database.isEmpty ? nil : database)
        } else {
            guard let host = components.host, !host.isEmpty else { throw SDKError(.invalidInput, "The database URL '\(url)' names no host") }
            let tls: PostgresClient.Configuration.TLS
            switch options["sslmode"] ?? "prefer" {
            case "disable": tls = .disable
            case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
            case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            case let mode: throw SDKError(.invalidInput, "Unknown sslmode '\(mode)'; use disable, prefer or require")
            }
            configuration = .init(host: host, port: components.port ?? 5432, username: user, password: password, database: database.isEmpty ? nil : database, tls: tls)
        }
        var shown = components
        shown.password = nil
        return (configuration, shown.string ?? url)
    }

    private func migrate() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: TelemetrySchema.migrationsTable), logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.query("SELECT version FROM telemetry_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            for migration in TelemetrySchema.migrations(.postgres) where !applied.contains(migration.version) {
                for statement in migration.statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                let now = TelemetryColumns.milliseconds(Date())
                try await connection.query("INSERT INTO telemetry_migrations (version, applied_at) VALUES (\(migration.version), \(now))", logger: logger)
            }
        }
    }

    public func insert(_ payload: TelemetryPayload, receivedAt: Date) async throws -> Bool {
        var binds = PostgresBindings()
        for value in TelemetryColumns.values(payload, receivedAt: receivedAt) {
            switch value {
            case .text(let text): binds.append(text)
            case .integer(let integer): binds.append(integer)
            case .real(let real): binds.append(real)
            case .null: binds.appendNull()
            }
        }
        do {
            var stored = false
            for try await _ in try await client.query(PostgresQuery(unsafeSQL: TelemetrySchema.insert(.postgres), binds: binds), logger: logger) {
                stored = true
            }
            return stored
        } catch {
            throw Self.error(error, location: location)
        }
    }

    public func runs(_ query: TelemetryQuery) async throws -> [TelemetryRecord] {
        var binds = filterBinds(query)
        binds.append(Int64(query.limit))
        binds.append(Int64(query.offset))
        var records: [TelemetryRecord] = []
        for try await row in try await client.query(PostgresQuery(unsafeSQL: TelemetrySchema.select(query, .postgres), binds: binds), logger: logger) {
            let cells = row.makeRandomAccess()
            records.append(try TelemetryColumns.record(
                text: { try cells[$0].decode(String.self) }, integer: { try cells[$0].decode(Int64.self) }, real: { try cells[$0].decode(Double.self) },
                optionalReal: { try cells[$0].decode(Double?.self) }
            ))
        }
        return records
    }

    public func count(_ query: TelemetryQuery) async throws -> Int {
        for try await total in try await client.query(PostgresQuery(unsafeSQL: TelemetrySchema.count(query, .postgres), binds: filterBinds(query)), logger: logger)
            .decode(Int64.self) {
            return Int(total)
        }
        return 0
    }

    public func close() async throws {
        running.cancel()
        await running.value
    }

    private func filterBinds(_ query: TelemetryQuery) -> PostgresBindings {
        var binds = PostgresBindings()
        for filter in query.filters { binds.append(filter.value) }
        return binds
    }

    /// A full disk as ``ErrorCode/insufficientStorage``; the server's own message otherwise.
    static func error(_ error: any Error, location: String) -> any Error {
        guard let error = error as? PSQLError else { return error }
        let message = error.serverInfo?[.message] ?? "\(error.code)"
        if error.serverInfo?[.sqlState] == "53100" { return SDKError(.insufficientStorage, "PostgreSQL at \(location) has no space left: \(message)") }
        return SDKError(.fileWriteFailed, "PostgreSQL at \(location) failed: \(message)")
    }
}
