import Foundation
import PostgresNIO
import RunAnywhere

/// The generation settings a server answers with (`/api/settings`, conversations, RAG answers):
/// the data folder's `settings.json` (``RunAnywhere/SettingsStore``), or one row of the
/// replicas' database, so that a change made through one replica is what every replica answers
/// with from its next request.
struct ServerSettings: Sendable {
    private let file: SettingsStore
    private let database: ServerDatabase?

    /// The settings of the server `configuration` describes, its data folder `dataDirectory`.
    init(dataDirectory: URL, configuration: ServerConfiguration) {
        file = SettingsStore(dataDirectory: dataDirectory)
        database = configuration.database
    }

    /// The saved settings; the defaults when none are saved.
    func load() async throws -> GenerationSettings {
        guard let database else { return try file.load() }
        return try await database.run { connection in
            try await Self.read(connection, logger: database.logger, lock: false)
        }
    }

    /// Applies `change` to the saved settings and saves the result after checking it; a change
    /// made at the same time through another replica waits for this one (the row is locked).
    func update(_ change: @escaping @Sendable (inout GenerationSettings) throws -> Void) async throws -> GenerationSettings {
        guard let database else { return try file.update(change) }
        return try await database.transaction { connection in
            var settings = try await Self.read(connection, logger: database.logger, lock: true)
            try change(&settings)
            try settings.validate()
            let json = String(decoding: try JSONEncoder.runAnywhere.encode(settings), as: UTF8.self)
            try await connection.query(
                """
                INSERT INTO runanywhere_settings (name, value, updated_at) VALUES ('generation', \(json), \(Date().timeIntervalSince1970))
                ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at
                """,
                logger: database.logger)
            return settings
        }
    }

    /// Removes the saved settings, so the defaults apply.
    func reset() async throws {
        guard let database else { return try file.reset() }
        _ = try await database.run { connection in
            try await connection.query("DELETE FROM runanywhere_settings WHERE name = 'generation'", logger: database.logger)
        }
    }

    /// The saved settings row (locked for the transaction with `lock`), the defaults without one.
    private static func read(_ connection: PostgresConnection, logger: Logger, lock: Bool) async throws -> GenerationSettings {
        // The row to lock must exist: two replicas inserting it at once keep one.
        if lock {
            try await connection.query(
                """
                INSERT INTO runanywhere_settings (name, value, updated_at) VALUES ('generation', '{}', \(Date().timeIntervalSince1970))
                ON CONFLICT (name) DO NOTHING
                """,
                logger: logger)
        }
        let query: PostgresQuery =
            lock
            ? "SELECT value FROM runanywhere_settings WHERE name = 'generation' FOR UPDATE"
            : "SELECT value FROM runanywhere_settings WHERE name = 'generation'"
        for try await value in try await connection.query(query, logger: logger).decode(String.self) {
            do {
                let settings = try JSONDecoder.runAnywhere.decode(GenerationSettings.self, from: Data(value.utf8))
                try settings.validate()
                return settings
            } catch {
                throw SDKError.fileManagement(
                    .modelStorageCorrupted,
                    "The saved settings in the database are unreadable (\(error.localizedDescription)); DELETE /api/settings restores the defaults"
                )
            }
        }
        return GenerationSettings()
    }
}
