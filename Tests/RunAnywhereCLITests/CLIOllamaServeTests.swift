import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// ollama's API of `runanywhere serve` (`/api/chat`, `/api/generate`, `/api/embed`, the model
/// routes) with the real engine, the default model and the default embedding model, driven by the
/// official `ollama` package from the project venv (Tests/clients/ollama_client_check.py says
/// what it checks).
@Suite(
    .serverLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.venvPython != nil && embeddingModelInstalled,
        "needs llama.cpp, the default and embedding models and the venv: run scripts/setup --tests --build tests"))
struct CLIOllamaServeTests {
    static let clientScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/ollama_client_check.py")

    static let createScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/ollama_create_check.py")

    /// `create_blob`, `create` and `copy` in a models folder of the test's own, uploading the
    /// coder fixture (8 MB) and a LoRA adapter generated for the default model; no upload or
    /// staging link is left behind.
    @Test(.enabled(if: TestEnvironment.infillFixture != nil, "needs the coder fixture: run scripts/setup --tests"))
    func theOllamaClientMakesModels() throws {
        let gguf = try #require(TestEnvironment.infillFixture)
        let (runner, home, _) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let adapter = home.appendingPathComponent("tone.gguf")
        try GGUFWriter.loraFixture(for: try #require(TestEnvironment.defaultModelFile)).write(to: adapter)
        let server = try ServeProcess(runner, arguments: ["--threads", "1"])
        let (status, output) = try CLIServeTests.python(
            Self.createScript,
            [
                "--base-url", "http://127.0.0.1:\(server.port)", "--gguf", gguf.path, "--adapter", adapter.path, "--adapter-base",
                RunAnywhere.defaultModelID,
            ])
        #expect(status == 0, "\(output)\nserver log (end):\n\(server.standardError.suffix(4000))")
        #expect(server.stop() == 0, "SIGTERM stops the server cleanly: \(server.standardError.suffix(4000))")
        let blobs = home.appendingPathComponent("models/.ollama-blobs")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: blobs.path)) ?? [] == [], "nothing is left in the blob folder")
    }

    @Test func theOllamaClientWorksUnchanged() throws {
        try CLIRunner.withData { runner, _ in
            let server = try ServeProcess(runner, arguments: ["--threads", "1"])
            let vision = TestEnvironment.visionFixture != nil ? ["--vision-model", SDKConstants.Models.visionFixtureID] : []
            let infill = TestEnvironment.infillFixture != nil ? ["--infill-model", SDKConstants.Models.infillFixtureID] : []
            let (status, output) = try CLIServeTests.python(
                Self.clientScript,
                [
                    "--base-url", "http://127.0.0.1:\(server.port)", "--model", RunAnywhere.defaultModelID, "--embedding-model",
                    SDKConstants.Models.defaultEmbeddingModelID,
                ] + vision + infill
            )
            #expect(status == 0, "\(output)\nserver log (end):\n\(server.standardError.suffix(4000))")
            #expect(server.process.isRunning, "every refusal left the server running")
            #expect(server.stop() == 0, "SIGTERM stops the server cleanly: \(server.standardError.suffix(4000))")
            #expect(server.standardError.contains("POST /api/chat"), "requests are in the access log")
        }
    }
}
