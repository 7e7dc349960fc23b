import Foundation
import PostgresNIO
import RunAnywhere
import RunAnywhereBenchmarks

/// The server's benchmark history in the replicas' database (`runanywhere_benchmark_runs`, each
/// run's JSON): a run started through one replica is listed, read, exported and cleared through
/// any. A run is saved after each of its scenarios; one still marked running that has not been
/// saved for ``staleAfter`` is reported interrupted, its replica gone.
struct PostgresBenchmarkHistory: BenchmarkHistoryBackend {
    let database: ServerDatabase
    /// How long a running run may go unsaved before it counts as interrupted.
    static let staleAfter: TimeInterval = 30 * 60

    func save(_ run: BenchmarkRun) async throws {
        let body = String(decoding: try JSONEncoder.runAnywhere.encode(run), as: UTF8.self)
        let (id, started, now, limit) = (run.id, run.startedAt.timeIntervalSince1970, Date().timeIntervalSince1970, BenchmarkStore.maxRuns)
        try await database.run { connection in
            try await connection.query(
                """
                INSERT INTO runanywhere_benchmark_runs (id, started_at, saved_at, body) VALUES (\(id), \(started), \(now), \(body))
                ON CONFLICT (id) DO UPDATE SET started_at = EXCLUDED.started_at, saved_at = EXCLUDED.saved_at, body = EXCLUDED.body
                """,
                logger: connection.logger)
            try await connection.query(
                """
                DELETE FROM runanywhere_benchmark_runs WHERE id NOT IN
                    (SELECT id FROM runanywhere_benchmark_runs ORDER BY started_at DESC, id LIMIT \(limit))
                """,
                logger: connection.logger)
        }
    }

    func runs() async throws -> [BenchmarkRun] {
        let rows = try await database.run { connection in
            var rows: [(String, Double)] = []
            for try await row in try await connection.query(
                "SELECT body, saved_at FROM runanywhere_benchmark_runs ORDER BY started_at DESC, id", logger: connection.logger
            ).decode((String, Double).self) {
                rows.append(row)
            }
            return rows
        }
        let now = Date().timeIntervalSince1970
        return try rows.map { body, saved in
            var run: BenchmarkRun
            do {
                run = try JSONDecoder.runAnywhere.decode(BenchmarkRun.self, from: Data(body.utf8))
            } catch {
                throw SDKError.fileManagement(
                    .modelStorageCorrupted, "A benchmark run in the database is unreadable: \(error.localizedDescription)")
            }
            if run.status == .running, now - saved > Self.staleAfter { run.status = .interrupted }
            return run
        }
    }

    func clear() async throws {
        _ = try await database.returnsRows("DELETE FROM runanywhere_benchmark_runs")
    }
}
