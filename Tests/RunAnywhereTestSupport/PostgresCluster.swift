import Foundation
import Testing

/// Runs a suite with one throwaway PostgreSQL cluster, started before its first test and stopped
/// after its last; each test takes a database of its own from it.
package struct PostgresCluster: SuiteTrait, TestScoping {
    /// The cluster of the suite running now.
    @TaskLocal package static var current: TestPostgres?

    /// The trait.
    package init() {}

    /// Starts the cluster before the suite's first test and stops it after its last.
    package func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let cluster = try TestPostgres.start()
        defer { cluster.stop() }
        try await Self.$current.withValue(cluster) { try await function() }
    }

    /// The URL of a new database in the suite's cluster.
    package static func newDatabase() throws -> String {
        guard let cluster = current else { throw CancellationError() }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        _ = try cluster.psql("CREATE DATABASE \(name)")
        return cluster.url.replacingOccurrences(of: "/postgres?", with: "/\(name)?")
    }
}

extension Trait where Self == PostgresCluster {
    /// One throwaway PostgreSQL cluster for the suite.
    package static var postgresCluster: Self { PostgresCluster() }
}
