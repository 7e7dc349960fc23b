import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `POST /v1/embeddings` of `runanywhere serve` with the real default embedding model, driven by
/// the official `openai` package and langchain-openai from the project venv
/// (Tests/clients/embeddings_client_check.py says what it checks).
@Suite(
    .serverLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.venvPython != nil && embeddingModelInstalled,
        "needs llama.cpp, the default and embedding models and the venv: run scripts/setup --tests --build tests"))
struct CLIEmbeddingServeTests {
    static let clientScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/embeddings_client_check.py")

    @Test func theOpenAIClientAndLangChainEmbedUnchanged() throws {
        try CLIRunner.withData { runner, _ in
            let server = try ServeProcess(runner, arguments: ["--threads", "1"])
            let (status, output) = try CLIServeTests.python(
                Self.clientScript,
                [
                    "--base-url", server.baseURL, "--model", SDKConstants.Models.defaultEmbeddingModelID, "--chat-model",
                    RunAnywhere.defaultModelID,
                ]
            )
            #expect(status == 0, "\(output)\nserver log (end):\n\(server.standardError.suffix(4000))")
            #expect(server.process.isRunning, "every refusal left the server running")
            #expect(server.stop() == 0, "SIGTERM stops the server cleanly: \(server.standardError.suffix(4000))")
            #expect(server.standardError.contains("POST /v1/embeddings"), "requests are in the access log")
        }
    }
}

/// Whether scripts/setup has converted the default embedding model.
var embeddingModelInstalled: Bool {
    let id = SDKConstants.Models.defaultEmbeddingModelID
    return FileManager.default.fileExists(atPath: TestEnvironment.installedModelsDirectory.appendingPathComponent("\(id)/\(id).gguf").path)
}
