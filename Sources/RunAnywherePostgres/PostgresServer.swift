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
    /// store's migrations) on it; gives up after `timeout` when the server does not answer. A
    /// server that cannot be reached, or that refuses the login, is said at once.
    package static func open(
        url: String, logger: Logger, timeout: Duration, prepare: @escaping @Sendable (PostgresServer) async throws -> Void
    ) async throws -> PostgresServer {
        let endpoint = try Endpoint(url)
        let server = PostgresServer(
            client: PostgresClient(configuration: endpoint.client, backgroundLogger: logger), location: endpoint.location)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // The pool retries a connection that fails without failing the work waiting for it
                    // (postgres-nio#489), which would wait the whole timeout to say only that: one
                    // connection of its own first says at once why (refused, no such host, a password).
                    try await endpoint.connectOnce(logger: logger)
                    try await prepare(server)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw SDKError(.networkError, "PostgreSQL at \(endpoint.location) did not answer within \(timeout)")
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

extension PostgresServer {
    /// Where a `postgres://` URL connects, as the pool's configuration and as one connection's.
    package struct Endpoint: Sendable {
        /// The pool's configuration.
        package let client: PostgresClient.Configuration
        /// One connection's configuration, the same server, user, database and TLS.
        let connection: PostgresConnection.Configuration
        /// The URL without its password, for messages.
        package let location: String

        package init(_ url: String) throws {
            // The password as written runs to the last `@` before the query (which may hold `@`
            // too), or where there is none before it (a password holding `?`), to the last `@`.
            // Messages name the URL without it; URLComponents ends the authority at the first `/`,
            // `?` or `#`, so a password holding one of those would connect to a host made of its end
            // (or make no URL at all).
            let written = (url.firstMatch(of: #/://[^:@/?]*:([^?]*)@/#) ?? url.firstMatch(of: #/://[^:@/?]*:(.*)@/#)).map { String($0.1) }
            location = written.map { url.replacingOccurrences(of: ":\($0)@", with: "@") } ?? url
            let reserved = SDKError(
                .invalidInput,
                "The password in the database URL '\(location)' holds a character URLs reserve (/ ? # or @); percent-encode it (%2F %3F %23 %40), as an @ in the database's name (%40)"
            )
            guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
                let user = components.user, !user.isEmpty
            else {
                if let written, written.contains(where: { "/?#".contains($0) }) { throw reserved }
                throw SDKError(
                    .invalidInput, "The database must be a postgres://user[:password]@host[:port]/database URL, not '\(location)'")
            }
            if let written, components.password != (written.removingPercentEncoding ?? written) { throw reserved }
            let options = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
            let database = String(components.path.drop { $0 == "/" })
            let name = database.isEmpty ? nil : database
            let password = components.password
            if let socket = options["host"], socket.hasPrefix("/") {
                let path = "\(socket)/.s.PGSQL.\(components.port ?? 5432)"
                client = .init(unixSocketPath: path, username: user, password: password, database: name)
                connection = .init(unixSocketPath: path, username: user, password: password, database: name)
                return
            }
            guard var host = components.host, !host.isEmpty else {
                throw SDKError(.invalidInput, "The database URL '\(location)' names no host")
            }
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }  // an IPv6 address
            let port = components.port ?? 5432
            // TLS: nil for none, else whether it is required (the pool takes its configuration, one
            // connection the context made from it).
            let required: Bool?
            switch options["sslmode"] ?? "prefer" {
            case "disable": required = nil
            case "prefer", "allow": required = false
            case "require", "verify-ca", "verify-full": required = true
            case let mode: throw SDKError(.invalidInput, "Unknown sslmode '\(mode)'; use disable, prefer or require")
            }
            let tls = TLSConfiguration.makeClientConfiguration()
            let context = try required.map { _ in try NIOSSLContext(configuration: tls) }
            client = .init(
                host: host, port: port, username: user, password: password, database: name,
                tls: required.map { $0 ? .require(tls) : .prefer(tls) } ?? .disable)
            connection = .init(
                host: host, port: port, username: user, password: password, database: name,
                tls: context.map { required == true ? .require($0) : .prefer($0) } ?? .disable)
        }

        /// Connects once and closes the connection: throws at once what stops a connection, saying
        /// so: a server that cannot be reached (refused, a host that does not resolve), one without
        /// the TLS `sslmode=require` asks for, one that wants a password the URL does not give; the
        /// server's own refusals (a wrong password, no such database) as it words them.
        func connectOnce(logger: Logger) async throws {
            let opened: PostgresConnection
            do {
                opened = try await PostgresConnection.connect(configuration: connection, id: 0, logger: logger)
            } catch let error as PSQLError where error.serverInfo == nil {
                switch error.code {
                case .connectionError:
                    let reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
                    throw SDKError(.networkError, "PostgreSQL at \(location) cannot be reached: \(reason)")
                case .sslUnsupported:
                    throw SDKError(
                        .networkError,
                        "PostgreSQL at \(location) offers no TLS, which sslmode=require asks for; use sslmode=prefer or disable")
                case .authMechanismRequiresPassword:
                    throw SDKError(
                        .invalidInput, "PostgreSQL at \(location) asks for a password; give it in the URL (postgres://user:password@…)")
                default: throw error
                }
            }
            try? await opened.close()
        }
    }
}
