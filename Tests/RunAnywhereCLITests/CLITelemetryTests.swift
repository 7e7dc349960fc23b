import AsyncHTTPClient
import Foundation
import NIOCore
import RunAnywhere
import RunAnywhereTestSupport
import Synchronization
import Testing

/// `runanywhere telemetry serve` with `runanywhere benchrunner` posting to it, as a fleet uses
/// them, over SQLite (the default file) and a throwaway PostgreSQL cluster.
@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.speechInstalled && TestPostgres.isInstalled, "scripts/setup --tests installs ONNX Runtime and PostgreSQL"))
struct CLITelemetryTests {
    enum Store: String, CaseIterable, Sendable {
        case sqlite, postgres
    }

    /// Runs `body` with a runner of its own data folder and the `--database` arguments for `store`.
    private func withStore(_ store: Store, _ body: (CLIRunner, [String]) async throws -> Void) async throws {
        var cluster: TestPostgres?
        if store == .postgres { cluster = try TestPostgres.start() }
        defer { cluster?.stop() }
        try await CLIRunner.withData { runner, _ in
            try await body(runner, cluster.map { ["--database", $0.url] } ?? [])
        }
    }

    /// The issue's "done when": a collector, a BenchRunner run posting to it, and the summary.
    @Test(arguments: Store.allCases)
    func benchRunnerPostsAndTheSummaryShowsTheRun(_ store: Store) async throws {
        try await withStore(store) { runner, database in
            let collector = try ServeProcess(runner, command: ["telemetry", "serve"], arguments: database)
            var bench = runner
            bench.environment["BENCH_TELEMETRY_URL"] = "http://127.0.0.1:\(collector.port)/telemetry"
            let run = try bench.run([
                "benchrunner", "--measure-seconds", "0.4", "--warmup-frames", "3", "--frame-count", "8", "--threads", "1", "--json",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("Telemetry accepted (HTTP 201)"))
            let runID = try #require((try run.json()["metrics"] as? [String: Any])?["run_id"] as? String)
            #expect(collector.stop() == 0)

            let summary = try runner.run(["telemetry", "summary", "--json"] + database)
            #expect(summary.status == 0, "\(summary.stderr)")
            let body = try summary.json()
            let group = try #require((body["groups"] as? [[String: Any]])?.first)
            #expect(
                body["runs"] as? Int == 1 && group["model_id"] as? String == "GradientIdentity"
                    && group["backend"] as? String == "onnxruntime")
            let text = try runner.run(["telemetry", "summary"] + database)
            #expect(text.stdout.contains("GradientIdentity") && text.stdout.contains("No regressions."))
            let list = try runner.run(["telemetry", "list"] + database)
            #expect(list.stdout.contains(String(runID.prefix(8))) && list.stderr.contains("1 of 1 runs"))
            let export = try runner.run(["telemetry", "export", "--format", "csv"] + database)
            #expect(export.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 2 && export.stdout.contains(runID))
        }
    }

    /// Senders keep posting while the collector is killed with SIGKILL, once it has acknowledged
    /// 20 payloads (however long that takes on a busy machine): after a restart, every payload it
    /// acknowledged is there.
    @Test(arguments: Store.allCases)
    func aKilledCollectorKeepsEveryAcknowledgedRun(_ store: Store) async throws {
        try await withStore(store) { runner, database in
            let collector = try ServeProcess(runner, command: ["telemetry", "serve"], arguments: database)
            let url = "http://127.0.0.1:\(collector.port)/telemetry"
            let acknowledgements = AcknowledgementCount()
            let acknowledged = try await withThrowingTaskGroup(of: [String].self) { group in
                for sender in 0..<8 {
                    group.addTask {
                        var acknowledged: [String] = []
                        for index in 0..<1000 {
                            let payload = try Self.payload(run: "k\(sender)-\(index)")
                            var request = HTTPClientRequest(url: url)
                            request.method = .POST
                            request.headers.add(name: "content-type", value: "application/json")
                            request.body = .bytes(ByteBuffer(bytes: payload))
                            guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(5)) else { break }
                            if response.status.code == 201 {
                                acknowledged.append("k\(sender)-\(index)")
                                acknowledgements.count.withLock { $0 += 1 }
                            }
                            _ = try? await response.body.collect(upTo: 4096)
                        }
                        return acknowledged
                    }
                }
                let deadline = ContinuousClock.now + .seconds(60)
                while acknowledgements.count.withLock({ $0 }) < 20 && ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                collector.kill()
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(acknowledged.count >= 20 && acknowledged.count < 8000, "the kill came mid-load")
            let restarted = try ServeProcess(runner, command: ["telemetry", "serve"], arguments: database)
            #expect(restarted.stop() == 0)
            let export = try runner.run(["telemetry", "export", "--format", "json"] + database)
            let runs = try #require(try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [[String: Any]])
            let stored = Set(runs.compactMap { ($0["metrics"] as? [String: Any])?["run_id"] as? String })
            #expect(Set(acknowledged).isSubset(of: stored))
        }
    }

    /// `--idle-timeout`: a connection that sends nothing, and one kept alive after its answer,
    /// are closed after the second given: the two take seconds, where the default 75 s would take
    /// the first alone past the 60 s they are given.
    @Test func idleConnectionsAreClosedAfterTheIdleTimeout() async throws {
        try await CLIRunner.withData { runner, _ in
            let collector = try ServeProcess(runner, command: ["telemetry", "serve"], arguments: ["--idle-timeout", "1"])
            let health = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            let answers = try await RawConnection.exchanges([[], health], port: collector.port, within: .seconds(60))
            #expect(answers?[0] == "", "a silent connection: \(answers?[0] ?? "not closed within 60 s: --idle-timeout was not applied")")
            #expect(answers?[1].hasPrefix("HTTP/1.1 200") == true, "\(answers?[1] ?? "")")
            let refused = try runner.run(["telemetry", "serve", "--port", "0", "--idle-timeout", "0"])
            #expect(refused.status != 0 && refused.stderr.contains("--idle-timeout must be 1 to 86400 seconds"), "\(refused.stderr)")
            #expect(collector.stop() == 0)
        }
    }

    @Test func aCollectorBeyondLoopbackNeedsAKeyAndHarnessesSendIt() async throws {
        try await CLIRunner.withData { runner, _ in
            let open = try runner.run(["telemetry", "serve", "--host", "0.0.0.0", "--port", "0"])
            #expect(open.status == 1 && open.stderr.contains("without an API key"))
            let collector = try ServeProcess(runner, command: ["telemetry", "serve"], arguments: ["--api-key-stdin"], input: "fleet-key\n")
            var bench = runner
            bench.environment["BENCH_TELEMETRY_URL"] = "http://127.0.0.1:\(collector.port)/telemetry"
            let refused = try bench.run([
                "benchrunner", "--measure-seconds", "0.2", "--warmup-frames", "1", "--frame-count", "4", "--threads", "1",
            ])
            #expect(refused.status == 0 && refused.stderr.contains("refused (HTTP 401"))
            bench.environment["BENCH_TELEMETRY_API_KEY"] = "fleet-key"
            let accepted = try bench.run([
                "benchrunner", "--measure-seconds", "0.2", "--warmup-frames", "1", "--frame-count", "4", "--threads", "1",
            ])
            #expect(accepted.status == 0 && accepted.stderr.contains("Telemetry accepted (HTTP 201)"))
            #expect(collector.stop() == 0)
        }
    }

    /// A minimal valid payload with run id `run`.
    private static func payload(run: String) throws -> Data {
        let text = SeedTelemetry.example
            .replacingOccurrences(of: "<UUID>", with: run)
            .replacingOccurrences(of: "2024-10-02T20:30:00Z", with: Date().addingTimeInterval(-60).formatted(.iso8601))
        return Data(text.utf8)
    }
}

/// How many payloads the collector has acknowledged so far, counted by every sender.
private final class AcknowledgementCount: Sendable {
    let count = Mutex(0)
}
