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

/// Runs a suite with one throwaway PostgreSQL cluster, started before its first test and stopped
/// after its last; each test takes a database of its own from it.
struct PostgresCluster: SuiteTrait, TestScoping {
    @TaskLocal static var current: TestPostgres?

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let cluster = try TestPostgres.start()
        defer { cluster.stop() }
        try await Self.$current.withValue(cluster) { try await function() }
    }

    /// The URL of a new database in the suite's cluster.
    static func newDatabase() throws -> String {
        guard let cluster = current else { throw CancellationError() }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        _ = try cluster.psql("CREATE DATABASE \(name)")
        return cluster.url.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
    }
}

extension Trait where Self == PostgresCluster {
    /// One throwaway PostgreSQL cluster for the suite.
    static var postgresCluster: Self { PostgresCluster() }
}
