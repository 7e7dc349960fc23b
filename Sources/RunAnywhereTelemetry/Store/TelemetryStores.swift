import Foundation
import Logging
import RunAnywhere
import RunAnywherePostgres

/// Opens the store a `--database` value names.
package enum TelemetryStores {
    /// The SQLite file used when no database is named: `<data>/telemetry/telemetry.sqlite`.
    package static func defaultFile(dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("telemetry/telemetry.sqlite")
    }

    /// PostgreSQL for a `postgres://` or `postgresql://` URL, otherwise the SQLite file at the
    /// path `database` (or the default file when it is nil or empty); a folder, or a file in a
    /// folder that does not exist, is refused.
    package static func open(_ database: String?, dataDirectory: URL, logger: Logger) async throws -> any TelemetryStore {
        guard let database, !database.isEmpty else {
            return try await SQLiteTelemetryStore.open(at: defaultFile(dataDirectory: dataDirectory), logger: logger)
        }
        if PostgresServer.isURL(database) {
            return try await PostgresTelemetryStore.open(url: database, logger: logger)
        }
        return try await SQLiteTelemetryStore.open(at: SQLiteFile.named(database), logger: logger)
    }
}
