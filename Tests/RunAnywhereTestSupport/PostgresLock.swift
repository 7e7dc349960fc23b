import Logging
import PostgresNIO
import RunAnywherePostgres

extension PostgresServer {
    /// Runs `body` while another session of this server's holds `table` locked (ACCESS EXCLUSIVE,
    /// in a transaction left open), so that every statement touching the table waits: to those
    /// statements, a database that does not answer.
    package func whileLocked<T: Sendable>(_ table: String, logger: Logger, _ body: () async throws -> T) async throws -> T {
        let (locked, lockTaken) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let holding = Task {
            try await withTransaction(timeout: .seconds(600), logger: logger) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE"), logger: logger)
                lockTaken.yield()
                for await _ in released { break }
            }
        }
        for await _ in locked { break }
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        release.yield()
        try await holding.value
        return try result.get()
    }
}
