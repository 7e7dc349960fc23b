import Foundation
import Logging
import RunAnywhereTelemetry
import RunAnywhereTestSupport
import Testing

/// The two stores every store test runs against: a new SQLite file, or a new database in the
/// suite's throwaway PostgreSQL cluster.
enum TelemetryStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite, postgres

    var testDescription: String { rawValue }

    /// A new, empty store of this kind.
    func make() async throws -> any TelemetryStore {
        let logger = Logger(label: "telemetry-tests")
        switch self {
        case .sqlite:
            let folder = try TestEnvironment.temporaryDirectory("telemetry")
            return try await SQLiteTelemetryStore.open(at: folder.appendingPathComponent("runs.sqlite"), logger: logger)
        case .postgres:
            return try await PostgresTelemetryStore.open(url: try PostgresCluster.newDatabase(), logger: logger)
        }
    }
}
