import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Anthropic's Messages API of `runanywhere serve` (`/v1/messages`, `/v1/messages/count_tokens`)
/// with the real engine and default model, driven by the official `anthropic` package from the
/// project venv (Tests/clients/anthropic_client_check.py says what it checks).
@Suite(
    .serverLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.venvPython != nil,
        "needs llama.cpp, the default model and the venv: run scripts/setup --tests --build tests"))
struct CLIAnthropicServeTests {
    static let clientScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/anthropic_client_check.py")

    @Test func theAnthropicClientWorksUnchanged() throws {
        try CLIRunner.withData { runner, _ in
            let server = try ServeProcess(runner, arguments: ["--threads", "1"])
            let vision = TestEnvironment.visionFixture != nil ? ["--vision-model", SDKConstants.Models.visionFixtureID] : []
            let (status, output) = try CLIServeTests.python(
                Self.clientScript, ["--base-url", server.baseURL, "--model", RunAnywhere.defaultModelID] + vision)
            #expect(status == 0, "\(output)\nserver log (end):\n\(server.standardError.suffix(4000))")
            #expect(server.stop() == 0, "SIGTERM stops the server cleanly: \(server.standardError.suffix(4000))")
            #expect(server.standardError.contains("POST /v1/messages"), "requests are in the access log")
        }
    }

    @Test func theKeyIsTakenAsXAPIKeyOrBearer() throws {
        try CLIRunner.withData { runner, _ in
            let server = try ServeProcess(runner, arguments: ["--threads", "1", "--api-key-stdin"], input: "k-123\n")
            let (status, output) = try CLIServeTests.python(
                Self.clientScript,
                ["--base-url", server.baseURL, "--model", RunAnywhere.defaultModelID, "--check", "auth", "--api-key", "k-123"]
            )
            #expect(status == 0, "\(output)")
            #expect(!server.standardError.contains("k-123"), "the key is never logged")
            #expect(server.stop() == 0)
        }
    }
}
