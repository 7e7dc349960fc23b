import AsyncHTTPClient
import Foundation
import NIOCore
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere serve` with the real engine and default model, driven by the official `openai`
/// Python package from the project venv, exactly as a user's script would drive it.
@Suite(
    .serverLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.venvPython != nil,
        "needs llama.cpp, the default model and the venv: run scripts/setup --tests --build tests"))
struct CLIServeTests {
    static let clientScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/openai_client_check.py")

    /// Runs the client check script and returns its exit status and output.
    static func openAIClient(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try python(clientScript, arguments)
    }

    /// Runs a Python script of `Tests/clients/` with the venv's Python; its exit status and output.
    static func python(_ script: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let python = TestEnvironment.venvPython else { throw ServeProcess.ServeError(message: "no venv: run scripts/setup --tests") }
        return try CLIRunner.output(python.path, [script.path] + arguments)
    }

    @Test func theOpenAIClientWorksUnchanged() throws {
        try CLIRunner.withData { runner, _ in
            // Reproducible, so that greedy answers are promised the same alone and among others.
            let server = try ServeProcess(runner, arguments: ["--threads", "1", "--reproducible"])
            let speech = TestEnvironment.speechInstalled ? ["--voice-model", SDKConstants.Models.defaultVoiceID] : []
            let translation =
                TestEnvironment.multilingualSpeechInstalled
                ? ["--translation-model", SDKConstants.Models.multilingualSpeechRecognitionModelID] : []
            let vision = TestEnvironment.visionFixture != nil ? ["--vision-model", SDKConstants.Models.visionFixtureID] : []
            let images = TestEnvironment.diffusionFixture != nil ? ["--image-model", SDKConstants.Models.diffusionFixtureID] : []
            let file = TestEnvironment.defaultModelFile.map { ["--model-file", $0.path] } ?? []
            let infill =
                TestEnvironment.infillFixture.map {
                    ["--infill-model", SDKConstants.Models.infillFixtureID, "--infill-model-file", $0.path]
                }
                ?? []
            let (status, output) = try Self.openAIClient(
                ["--base-url", server.baseURL, "--model", RunAnywhere.defaultModelID] + speech + translation + vision + images + file
                    + infill)
            #expect(status == 0, "\(output)")
            #expect(server.stop() == 0, "SIGTERM stops the server cleanly: \(server.standardError)")
            #expect(server.standardError.contains("POST /v1/chat/completions"), "requests are in the access log")
        }
    }

    @Test func anAPIKeyReadFromStandardInputGuardsTheAPI() throws {
        try CLIRunner.withData { runner, _ in
            let server = try ServeProcess(runner, arguments: ["--api-key-stdin"], input: "k-123\n")
            let (status, output) = try Self.openAIClient([
                "--base-url", server.baseURL, "--model", RunAnywhere.defaultModelID, "--check", "auth", "--api-key", "k-123",
            ])
            #expect(status == 0, "\(output)")
            #expect(!server.standardError.contains("k-123"), "the key is never logged")
            #expect(server.stop() == 0)
        }
    }

    @Test func aFullQueueAnswers503AndADisconnectedClientFreesItsSlot() throws {
        try CLIRunner.withData { runner, _ in
            let server = try ServeProcess(runner, arguments: ["--threads", "1", "--parallel", "1", "--queue", "0"])
            let (status, output) = try Self.openAIClient([
                "--base-url", server.baseURL, "--model", RunAnywhere.defaultModelID, "--check", "busy",
            ])
            #expect(status == 0, "\(output)")
            #expect(server.stop() == 0)
        }
    }

    /// `serve --draft-model MODEL=DRAFT`: a request's `speculative.n_max` speculates with the
    /// model's draft (here the default model drafting for itself: no second model of its family
    /// can be installed), answering what it answers without, and says how many guesses it made.
    @Test func aModelsDraftModelSpeculatesForItsRequests() async throws {
        try await CLIRunner.withData { runner, _ in
            let model = RunAnywhere.defaultModelID
            let server = try ServeProcess(runner, arguments: ["--threads", "1", "--parallel", "1", "--draft-model", "\(model)=\(model)"])
            defer { _ = server.stop() }
            var answers: [Int: String] = [:]
            for draft in [8, 0] {
                let body: [String: Any] = [
                    "model": model, "messages": [["role": "user", "content": "Name three colours."]], "max_tokens": 12, "temperature": 0,
                    "speculative.n_max": draft,
                ]
                let (status, json) = try await TokenizeRouteTests.post(
                    "\(server.baseURL)/chat/completions", String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
                #expect(status == 200, "\(json)")
                let timings = try #require(json["timings"] as? [String: Any])
                #expect((timings["draft_n"] != nil) == (draft > 0), "\(timings)")
                answers[draft] = ((json["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])?["content"] as? String
            }
            #expect(answers[8] != nil && answers[8] == answers[0], "\(answers)")
        }
    }

    /// What a stream that is running when SIGTERM comes receives: all of it when it ends within
    /// `--drain-timeout`, the server exiting after it; the part written so far when it does not,
    /// the server cancelling it at the bound. Either way the server exits cleanly.
    @Test func sigtermDrainsRunningStreamsWithinItsBound() async throws {
        try await CLIRunner.withData { runner, _ in
            for (drain, tokens) in [(30, 16), (1, 3000)] {
                let server = try ServeProcess(
                    runner, arguments: ["--threads", "1", "--context-length", "4096", "--drain-timeout", "\(drain)"])
                var request = HTTPClientRequest(url: "\(server.baseURL)/chat/completions")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                let body: [String: Any] = [
                    "model": RunAnywhere.defaultModelID, "messages": [["role": "user", "content": "Tell me a very long story."]],
                    "max_tokens": tokens, "temperature": 0, "stream": true,
                ]
                request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
                var received = ""
                var signalled = false
                do {
                    for try await chunk in response.body {
                        received += String(buffer: chunk)
                        if !signalled, received.contains("data: ") {
                            signalled = true
                            server.process.terminate()  // SIGTERM, with the stream under way
                        }
                    }
                } catch {}  // the connection closed by the server at the bound
                server.process.waitUntilExit()
                #expect(server.process.terminationStatus == 0, "drain \(drain): \(server.standardError.suffix(2000))")
                let finished = received.contains(#""finish_reason":"stop""#) || received.contains(#""finish_reason":"length""#)
                if drain == 30 {
                    #expect(finished && received.contains("data: [DONE]"), "a stream within the bound was cut: \(received.suffix(500))")
                } else {
                    #expect(!received.contains(#""finish_reason":"length""#), "3000 tokens were all written before the 1 s bound")
                }
            }
        }
    }

    /// `--idle-timeout`: a connection that sends nothing gets a 408 and is closed, and one kept
    /// alive after its answer is closed, after the second given: the two take seconds, where the
    /// default 75 s would take the first alone past the 60 s they are given.
    @Test func idleConnectionsAreClosedAfterTheIdleTimeout() async throws {
        try await CLIRunner.withData { runner, _ in
            let server = try ServeProcess(runner, arguments: ["--idle-timeout", "1"])
            let health = Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            let answers = try await RawConnection.exchanges([[], health], port: server.port, within: .seconds(60))
            let (silent, kept) = (answers?[0] ?? "not closed within 60 s: --idle-timeout was not applied", answers?[1] ?? "")
            #expect(silent.hasPrefix("HTTP/1.1 408") && silent.contains("request_timeout"), "\(silent)")
            #expect(kept.hasPrefix("HTTP/1.1 200"), "\(kept)")
            #expect(server.stop() == 0)
        }
    }

    @Test func refusesToListenOnTheNetworkWithoutAKey() throws {
        try CLIRunner.withData { runner, _ in
            let result = try runner.run(["serve", "--host", "0.0.0.0", "--port", "0"])
            #expect(result.status != 0)
            #expect(result.stderr.contains("without an API key"), "\(result.stderr)")
        }
    }

    /// Out-of-range numbers are refused before anything is opened.
    @Test func refusesOutOfRangeOptions() throws {
        let cases = [
            (["--batch-size", "0"], "--batch-size must be at least 1"), (["--parallel", "0"], "--parallel must be between 1 and 64"),
            (["--gpu-layers=-1"], "--gpu-layers cannot be negative"), (["--max-body", "0"], "--max-body must be at least 1 MiB"),
            // Values whose conversion used to trap (issue 38): a clear refusal instead.
            (["--max-body", "\(Int.max >> 10)"], "--max-body must be at most"),
            (["--models-budget", "1e300"], "--models-budget must be a size"),
            (["--keep-alive", "nan"], "--keep-alive must be"), (["--threads", "4294967296"], "--threads must be 1 to 512"),
            (["--context-length", "4294967296"], "--context-length must be 16 to"),
            (["--speculate", "33"], "--speculate must be 0 to 32"), (["--speculate=-1"], "--speculate must be 0 to 32"),
            (["--idle-timeout", "0"], "--idle-timeout must be 1 to 86400 seconds"),
            (["--draft-model", "\(RunAnywhere.defaultModelID)"], "--draft-model takes MODEL=DRAFT"),
            (["--draft-model", "\(RunAnywhere.defaultModelID)=no-such-draft"], "no model has that id"),
        ]
        for (flags, message) in cases {
            let result = try CLIRunner().run(["serve", "--port", "0"] + flags)
            #expect(result.status != 0 && result.stderr.contains(message), "\(flags): \(result.stderr)")
        }
    }
}
