import Foundation
import RunAnywhereTestSupport
import Testing

@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLIBenchTests {
    /// A benchmark run, listed, shown, exported and cleared. (Spec 5.3.1, its tokens/sec within
    /// 20% of what `generate --json` measures, compares timings: `benchmarks/bench-agreement`.)
    @Test func runListShowExportClear() throws {
        try CLIRunner.withData { cli, data in
            let bench = try cli.run([
                "bench", "run", "--category", "llm", "--scenario", "Medium generation", "--repetitions", "3", "--threads", "1", "--json",
            ])
            #expect(bench.status == 0, "\(bench.stderr)")
            #expect(bench.stderr.contains("[") && bench.stderr.contains("1/1"), "progress is shown")
            let export = try bench.json()
            let run = try #require(export["run"] as? [String: Any])
            let result = try #require((run["results"] as? [[String: Any]])?.first)
            let metrics = try #require(result["metrics"] as? [String: Any])
            let speeds = try ["tokensPerSecondMin", "tokensPerSecond", "tokensPerSecondMax"].map { try #require(metrics[$0] as? Double) }
            #expect(speeds[0] > 0 && speeds == speeds.sorted(), "the median lies between the slowest and the fastest: \(speeds)")
            #expect(metrics["repetitions"] as? Int == 3)

            let id = try #require(run["id"] as? String)
            let listed = try #require(
                try JSONSerialization.jsonObject(with: Data(cli.run(["bench", "list", "--json"]).stdout.utf8)) as? [[String: Any]])
            #expect(listed.count == 1 && listed[0]["status"] as? String == "completed" && listed[0]["resultCount"] as? Int == 1)
            let csv = try cli.run(["bench", "show", String(id.prefix(6)), "--format", "csv"]).stdout
            #expect(csv.hasPrefix("run_id,timestamp,category,scenario,model_id"))
            #expect(csv.contains("Medium generation"))
            #expect(try cli.run(["bench", "show", id]).stdout.contains("## LLM"))
            let exported = try cli.run(["bench", "export", id, "--format", "json"])
            let path = exported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(path == data.appendingPathComponent("exports/benchmark_\(id).json").path)
            let file = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            #expect(Set(file.keys) == ["exportedAt", "device", "run"])
            let custom = data.appendingPathComponent("out.csv")
            #expect(try cli.run(["bench", "export", String(id.prefix(6)), "--format", "csv", "--output", custom.path]).status == 0)
            #expect(try String(contentsOf: custom, encoding: .utf8).hasPrefix("run_id,"))

            #expect(try cli.run(["bench", "clear"], input: "n\n").stdout.contains("Nothing deleted"))
            #expect(try cli.run(["bench", "clear"], input: "").stdout.contains("Nothing deleted"), "no answer is no")
            #expect(try cli.run(["bench", "clear", "--yes"]).stdout.contains("Deleted 1 runs"))
            #expect(try cli.run(["bench", "list"]).stdout.contains("No benchmark runs yet"))
            let missing = try cli.run(["bench", "show", id])
            #expect(missing.status == 1 && missing.stderr.hasPrefix("error: No benchmark run"))
            #expect(try cli.run(["bench", "run", "--category", "llm,nonsense"]).status == 64)
            // A scenario no chosen category has runs nothing and says so, naming those there are.
            let unknown = try cli.run(["bench", "run", "--category", "llm", "--scenario", "Medium generatoin"])
            #expect(unknown.status == 64)
            #expect(unknown.stderr.contains("Unknown scenario 'Medium generatoin'") && unknown.stderr.contains("\"Medium generation\""))
            #expect(try cli.run(["bench", "list"]).stdout.contains("No benchmark runs yet"))
        }
    }

    @Test func ctrlCCancelsAndSavesThePartialRun() async throws {
        try await CLIRunner.withData { cli, _ in
            let output = try await cli.runInterrupted(
                ["bench", "run", "--category", "llm", "--repetitions", "3", "--threads", "1"], once: "elapsed", after: .milliseconds(500))
            #expect(output.status == 130)
            #expect(output.stdout.contains("**Status**: cancelled"))
            let listed = try #require(
                try JSONSerialization.jsonObject(with: Data(cli.run(["bench", "list", "--json"]).stdout.utf8)) as? [[String: Any]])
            #expect(listed.first?["status"] as? String == "cancelled")
            #expect((listed.first?["resultCount"] as? Int ?? 99) < 3, "stopped before the three scenarios finished")
        }
    }

    /// SIGKILL (what the kernel's out-of-memory killer sends) after the first scenario: the run is
    /// listed as interrupted with the results it finished, and shows and exports like any other.
    @Test func aKilledRunKeepsItsFinishedResults() async throws {
        try await CLIRunner.withData { cli, data in
            let (process, stdin, stdout, stderr) = try cli.launch([
                "bench", "run", "--category", "llm", "--repetitions", "1", "--threads", "1",
            ])
            try stdin.fileHandleForWriting.close()
            for pipe in [stdout, stderr] {
                let handle = pipe.fileHandleForReading
                DispatchQueue.global().async { _ = handle.readDataToEndOfFile() }
            }
            let history = data.appendingPathComponent("benchmarks.json")
            func finished() -> Int {
                let runs = (try? JSONSerialization.jsonObject(with: Data(contentsOf: history))) as? [[String: Any]]
                return (runs?.first?["results"] as? [Any])?.count ?? 0
            }
            let deadline = ContinuousClock.now + .seconds(300)
            while finished() == 0, process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
            #expect(process.isRunning, "the run was still going after its first scenario")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            let listed = try #require(
                try JSONSerialization.jsonObject(with: Data(cli.run(["bench", "list", "--json"]).stdout.utf8)) as? [[String: Any]])
            let run = try #require(listed.first)
            #expect(run["status"] as? String == "interrupted" && (run["resultCount"] as? Int ?? 0) >= 1, "\(run)")
            let id = try #require(run["id"] as? String)
            let shown = try cli.run(["bench", "show", id])
            #expect(
                shown.status == 0 && shown.stdout.contains("**Status**: interrupted") && shown.stdout.contains("## LLM"), "\(shown.stdout)")
            #expect(try cli.run(["bench", "export", id, "--format", "csv"]).status == 0)
        }
    }
}
