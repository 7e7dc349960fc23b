import Foundation
import Logging
import PostgresNIO
import RunAnywhere
import Synchronization

/// What every RunAnywhere store in PostgreSQL shares: its connection URL, a client that runs
/// until closed, opening with a time limit, and the server's errors as ``RunAnywhere/SDKError``s.
package final class PostgresServer: Sendable {
    /// Where it connects, without the password.
    package let location: String
    /// postgres-nio's connection pool.
    package let client: PostgresClient
    private let running: Task<Void, Never>

    private init(client: PostgresClient, location: String) {
        self.client = client
        self.location = location
        running = Task { await client.run() }
    }

    deinit {
        running.cancel()
    }

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, with
    /// `?sslmode=disable|prefer|require`, or `?host=/socket/folder`) and runs `prepare` (the
    /// store's migrations) on it; gives up after `timeout` when the server cannot be reached.
    package static func open(
        url: String, logger: Logger, timeout: Duration, prepare: @escaping @Sendable (PostgresServer) async throws -> Void
    ) async throws -> PostgresServer {
        let (configuration, location) = try configuration(url)
        let server = PostgresServer(client: PostgresClient(configuration: configuration, backgroundLogger: logger), location: location)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await prepare(server) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw SDKError(.networkError, "PostgreSQL at \(location) did not answer within \(timeout)")
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            await server.close()
            throw server.error(error)
        }
        return server
    }

    /// Closes its connections.
    package func close() async {
        running.cancel()
        await running.value
    }

    /// The client configuration for `url`, and the URL without its password.
    package static func configuration(_ url: String) throws -> (PostgresClient.Configuration, String) {
        // Messages name the URL without its password, which runs to the last `@` before the query
        // (a password may hold `/` or `@` unencoded, which URLComponents would read as the host's).
        let shownURL = url.replacingOccurrences(of: #"(://[^:@/?]*):[^?]*@"#, with: "$1@", options: .regularExpression)
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let user = components.user, !user.isEmpty
        else {
            throw SDKError(.invalidInput, "The database must be a postgres://user[:password]@host[:port]/database URL, not '\(shownURL)'")
        }
        let options = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let database = String(components.path.drop { $0 == "/" })
        let password = components.password.map { $0.removingPercentEncoding ?? $0 }
        var configuration: PostgresClient.Configuration
        if let socket = options["host"], socket.hasPrefix("/") {
            let port = components.port ?? 5432
            configuration = .init(
                unixSocketPath: "\(socket)/.s.PGSQL.\(port)", username: user, password: password,
                database: database.isEmpty ? nil : database)
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw SDKError(.invalidInput, "The database URL '\(shownURL)' names no host")
            }
            let tls: PostgresClient.Configuration.TLS
            switch options["sslmode"] ?? "prefer" {
            case "disable": tls = .disable
            case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
            case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            case let mode: throw SDKError(.invalidInput, "Unknown sslmode '\(mode)'; use disable, prefer or require")
            }
            configuration = .init(
                host: host, port: components.port ?? 5432, username: user, password: password, database: database.isEmpty ? nil : database,
                tls: tls)
        }
        return (configuration, shownURL)
    }

    /// Whether `database` names a PostgreSQL database (a `postgres://` or `postgresql://` URL)
    /// rather than a file.
    package static func isURL(_ database: String) -> Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// The server's errors as ``RunAnywhere/SDKError``s naming it: a full disk as
    /// ``RunAnywhere/ErrorCode/insufficientStorage``, the server's own message otherwise; an error thrown inside
    /// a transaction as it was thrown (postgres-nio wraps it); other errors as they are.
    package func error(_ error: any Error) -> any Error {
        if let failed = error as? PostgresTransactionError,
            let cause = failed.closureError ?? failed.beginError ?? failed.commitError ?? failed.rollbackError
        {
            return self.error(cause)
        }
        guard let error = error as? PSQLError else { return error }
        let message = error.serverInfo?[.message] ?? "\(error.code)"
        if error.serverInfo?[.sqlState] == "53100" {
            return SDKError(.insufficientStorage, "PostgreSQL at \(location) has no space left: \(message)")
        }
        return SDKError(.fileWriteFailed, "PostgreSQL at \(location) failed: \(message)")
    }

    /// Runs `body`, its errors as ``error(_:)`` makes them.
    package func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw self.error(error)
        }
    }

    /// Runs `body` on a connection of the pool within `timeout`, its errors as ``error(_:)``
    /// makes them. At the limit the connection is closed (postgres-nio does not stop a query for
    /// its task's cancellation), so a request fails instead of waiting on a database gone from
    /// the network or a lock never released.
    package func withConnection<T: Sendable>(
        timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let (client, location) = (client, location)
        let leased = Mutex<PostgresConnection?>(nil)
        return try await run {
            try await withTimeLimit(
                timeout, failure: { SDKError(.networkError, "PostgreSQL at \(location) did not answer within \(timeout)") },
                expired: { try? await leased.withLock { $0 }?.close() }
            ) {
                try await client.withConnection { connection in
                    leased.withLock { $0 = connection }
                    return try await body(connection)
                }
            }
        }
    }

    /// Runs `body` in one transaction (kept when it returns, undone when it throws) within
    /// `timeout`, as ``withConnection(timeout:_:)`` does.
    package func withTransaction<T: Sendable>(
        timeout: Duration, logger: Logger, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection(timeout: timeout) { connection in
            try await connection.query("BEGIN", logger: logger)
            let value: T
            do {
                value = try await body(connection)
            } catch {
                do {
                    try await connection.query("ROLLBACK", logger: logger)
                } catch {
                    // A connection whose transaction could not be ended must not go back to the pool.
                    try? await connection.close()
                }
                throw error
            }
            try await connection.query("COMMIT", logger: logger)
            return value
        }
    }
}
