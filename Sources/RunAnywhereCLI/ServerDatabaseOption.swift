import ArgumentParser
import Foundation
import Logging
import RunAnywhere
import RunAnywhereServer

/// `--database`: the PostgreSQL database replicas of `serve` share (keys, stored responses,
/// settings, conversations, collections, benchmark history), for `serve` and `keys`.
struct ServerDatabaseOption: ParsableArguments {
    /// The environment variable read when `--database` is not given.
    static let environmentVariable = "RUNANYWHERE_DATABASE"

    @Option(
        name: .long,
        help:
            "The PostgreSQL database replicas share: a postgres://user[:password]@host[:port]/database URL (default: $\(environmentVariable); none: the data folder's files)."
    )
    var database: String?

    /// `--database`, else the environment's; nil for neither.
    var url: String? {
        let url = database ?? ProcessInfo.processInfo.environment[Self.environmentVariable]
        return url?.isEmpty == false ? url : nil
    }

    func validate() throws {
        if let url, !(url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")) {
            throw ValidationError("--database must be a postgres://user[:password]@host[:port]/database URL")
        }
    }

    /// The database, its tables brought up to date; nil without one.
    func open(logger: Logger) async throws -> ServerDatabase? {
        guard let url else { return nil }
        return try await ServerDatabase.open(url: url, logger: logger)
    }

    /// Runs `body` with the key store: the database's, else the data folder's.
    func withKeys<T>(_ context: CLIContext, _ body: (APIKeyStore) async throws -> T) async throws -> T {
        guard let database = try await open(logger: context.logger) else {
            return try await body(APIKeyStore(dataDirectory: context.configuration.dataDirectory, logger: context.logger))
        }
        do {
            let value = try await body(APIKeyStore(database: database))
            await database.close()
            return value
        } catch {
            await database.close()
            throw error
        }
    }
}
