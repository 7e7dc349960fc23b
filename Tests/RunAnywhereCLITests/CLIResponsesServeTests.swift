import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// OpenAI's Responses API of `runanywhere serve` (`/v1/responses`) with the real engine and
/// default model, driven by the official `openai` package's `responses` from the project venv
/// (Tests/clients/responses_client_check.py says what it checks).
@Suite(
    .serverLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.venvPython != nil,
        "needs llama.cpp, the default model and the venv: run scripts/setup --tests --build tests"))
struct CLIResponsesServeTests {
    static let clientScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/responses_client_check.py")

    /// The check, then a stored response retrieved from a new server on the same data folder.
    @Test func theOpenAIClientsResponsesWorkUnchangedAndStoredOnesOutliveARestart() throws {
        try CLIRunner.withData { runner, data in
            // Reproducible, so that the same greedy request gives the same answer each time.
            let arguments = ["--threads", "1", "--reproducible"]
            let server = try ServeProcess(runner, arguments: arguments)
            let (status, output) = try CLIServeTests.python(
                Self.clientScript, ["--base-url", server.baseURL, "--model", RunAnywhere.defaultModelID])
            #expect(status == 0, "\(output)\nserver log (end):\n\(server.standardError.suffix(4000))")
            #expect(server.stop() == 0, "SIGTERM stops the server cleanly: \(server.standardError.suffix(4000))")
            #expect(server.standardError.contains("POST /v1/responses"), "requests are in the access log")
            #expect(
                FileManager.default.fileExists(atPath: data.appendingPathComponent("responses.sqlite").path),
                "responses are stored in the data folder")

            let seen = (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any]
            let kept = try #require((seen?["seen"] as? [String: Any])?["kept"] as? String, "the check names a stored response: \(output)")
            let restarted = try ServeProcess(runner, arguments: arguments)
            let (retrieved, again) = try CLIServeTests.python(
                Self.clientScript, ["--base-url", restarted.baseURL, "--model", RunAnywhere.defaultModelID, "--retrieve", kept])
            #expect(retrieved == 0, "\(again)")
            #expect(restarted.stop() == 0)
        }
    }
}
