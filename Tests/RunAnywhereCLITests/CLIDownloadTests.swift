import Foundation
import NIOCore
import RunAnywhereTestSupport
import Testing

/// Adding, pulling and deleting models through the CLI, against a loopback HTTP server serving
/// the real default model.
@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLIDownloadTests {
    /// The default model's sha256.
    static let sha = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

    /// The default model's bytes, served slowly on the loopback address: 6 000 chunks of 16 KiB,
    /// 1 ms apart, at least 6 s, so that an interrupt or a kill soon after the first progress
    /// line lands mid-download.
    static func slowServer() async throws -> (model: Data, server: TestHTTPServer) {
        let model = try Data(contentsOf: try #require(TestEnvironment.defaultModelFile))
        return (model, try await TestHTTPServer.start(routes: ["/SmolLM2.Q4_1.gguf": .file(model, delayPerChunk: .milliseconds(1))]))
    }

    @Test func addInterruptResumeThenUseTheModel() async throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let (model, server) = try await Self.slowServer()
        defer { Task { try? await server.shutdown() } }
        let sha = Self.sha

        let added = try await cli.runInterrupted(
            ["models", "add", server.url("/SmolLM2.Q4_1.gguf").absoluteString, "--category", "language", "--id", "smol", "--sha256", sha],
            once: "ETA", after: .milliseconds(300)
        )
        let progress = added.stderr
        #expect(added.status == 130, "\(progress)")
        #expect(progress.contains("%") && progress.contains("/s") && progress.contains("ETA"), "live percent, speed and ETA: \(progress)")
        #expect(progress.contains("partial download is kept"))

        let pulled = try cli.run(["models", "pull", "smol"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(pulled.stderr.contains("downloaded"))
        #expect(server.requests.last?.range?.hasPrefix("bytes=") == true, "the pull resumed with a Range request")
        #expect(try cli.run(["models", "pull", "smol"]).status == 0, "pulling a downloaded model is a no-op")

        let answer = try cli.run([
            "generate", "--model", "smol", "--temperature", "0", "--max-tokens", "6", "--threads", "1", "--json", "What is 2+2?",
        ])
        #expect(answer.status == 0, "\(answer.stderr)")
        #expect(try answer.json()["modelUsed"] as? String == "smol")
        let chat = try cli.run(
            ["chat", "--model", "smol", "--temperature", "0", "--max-tokens", "6", "--threads", "1"], input: "Hello!\n/exit\n")
        #expect(chat.status == 0 && chat.stdout.contains("tok/s"), "\(chat.stderr)")

        let storage = try cli.run(["models", "storage", "--json"]).json()
        #expect((storage["models"] as? [[String: Any]])?.first?["sizeBytes"] as? Int == model.count)
        #expect(try cli.run(["models", "rm", "smol"], input: "n\n").stdout.contains("Nothing deleted"))
        #expect(try cli.run(["models", "rm", "smol", "--yes"]).status == 0)
        #expect(try cli.run(["models", "info", "smol"]).status == 1)
    }

    @Test func aDownloadKilledAtRandomMomentsEndsWithTheRightFile() async throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let (model, server) = try await Self.slowServer()
        defer { Task { try? await server.shutdown() } }
        let url = server.url("/SmolLM2.Q4_1.gguf").absoluteString
        #expect(
            try cli.run(["models", "add", url, "--category", "language", "--id", "smol", "--sha256", Self.sha, "--no-download"]).status == 0
        )

        var random = SeededGenerator(seed: 20_261_125)
        for attempt in 0..<3 {
            let killed = try cli.runKilled(
                ["models", "pull", "smol"], once: "%", after: .milliseconds(Int.random(in: 0...1_200, using: &random)))
            #expect(killed.crashed, "attempt \(attempt) ended before the kill: \(killed.stderr)")
            #expect(try cli.run(["models", "list", "--json"]).stdout.contains("\"smol\""))
        }
        let pulled = try cli.run(["models", "pull", "smol"])
        #expect(pulled.status == 0, "the checksum matched after three kills: \(pulled.stderr)")
        #expect(server.requests.contains { $0.range?.hasPrefix("bytes=") == true }, "a killed download resumes with a Range request")
        #expect(try Data(contentsOf: home.appendingPathComponent("models/smol/SmolLM2.Q4_1.gguf")) == model)
        #expect(CLIStoreTests.leftovers(in: home).isEmpty)
    }

    @Test func badAdditionsAreRefusedWithClearErrors() throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        for (arguments, fragment) in [
            (["models", "add", "ftp://example.com/m.gguf", "--category", "language"], "use http, https or file"),
            (
                ["models", "add", "https://example.com/v.onnx", "--category", "language", "--framework", "llama.cpp"],
                "points to a onnx file"
            ),
            (
                ["models", "add", "https://example.com/w.bin", "--category", "speech-recognition"],
                "No installed framework runs voice-to-text"
            ),
            (["models", "add", "https://example.com/m.gguf", "--category", "language", "--framework", "warp"], "Unknown framework"),
        ] {
            let output = try cli.run(arguments)
            #expect(output.status == 1 && output.stderr.contains(fragment), "\(arguments): \(output.stderr)")
        }
        let registered = try cli.run([
            "models", "add", "https://127.0.0.1:9/m.gguf", "--category", "language", "--no-download", "--id", "later",
        ])
        #expect(registered.status == 0 && registered.stdout.contains("Added later"))
        #expect(try cli.run(["models", "list", "--json"]).stdout.contains("\"later\""))

        // Nothing listens on the discard port: the download fails, and its error says the model stays and what to do.
        let failed = try cli.run(["models", "add", "http://127.0.0.1:9/m.gguf", "--category", "language", "--id", "unreachable"])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(
            failed.stderr.contains("unreachable stays registered") && failed.stderr.contains("runanywhere models pull unreachable"),
            "\(failed.stderr)")
        #expect(try cli.run(["models", "list", "--json"]).stdout.contains("\"unreachable\""))
        #expect(try cli.run(["models", "rm", "unreachable", "--yes"]).status == 0)
        #expect(try !cli.run(["models", "list", "--json"]).stdout.contains("\"unreachable\""))
    }
}
