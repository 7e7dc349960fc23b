import AsyncHTTPClient
import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// `runanywhere serve` against its own OpenAPI document: schemathesis (from the set-up's venv)
/// sends generated requests, valid and invalid, to every operation that neither downloads nor runs
/// long jobs (Tests/clients/schemathesis_check.py lists those left out and why), and fails on any
/// 5xx, a status, Content-Type or body the document does not describe. The server must still be
/// running and answer `/health` afterwards.
@Suite(
    .serverLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && schemathesisInstalled,
        "needs llama.cpp, the default model and schemathesis in the venv: run scripts/setup --tests --build tests"))
struct APIConformanceTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/schemathesis_check.py")

    /// The limit only stops a hang: schemathesis's run took about 90 s alone here and up to 400 s
    /// beside the other lanes, its many model loads each starting an engine process.
    @Test(.hangLimit(.seconds(720))) func theServerAnswersAsItsOpenAPIDocumentSays() async throws {
        try await CLIRunner.withData { runner, _ in
            // The real default model is installed, and the generator learns its id from the
            // listings: a small context bounds what a request naming it can generate, one thread
            // leaves the other core to schemathesis.
            let server = try ServeProcess(runner, arguments: ["--threads", "1", "--context-length", "256", "--parallel", "1"])
            let root = "http://127.0.0.1:\(server.port)"
            let (status, output) = try CLIServeTests.python(Self.script, ["--base-url", root])
            print(output)  // schemathesis's report, with a curl command for each failure
            #expect(
                status == 0,
                "schemathesis found failures (seeded: run Tests/clients/schemathesis_check.py again to reproduce):\n\(output)\nserver log (end):\n\(server.standardError.suffix(6000))"
            )
            #expect(server.process.isRunning, "the server is still running: \(server.standardError.suffix(6000))")
            let health = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(root)/health"), timeout: .seconds(10))
            #expect(health.status == .ok, "GET /health still answers")
            #expect(server.stop() == 0, "SIGTERM still stops the server cleanly")
        }
    }
}

/// Whether schemathesis's command is in the set-up's venv.
private var schemathesisInstalled: Bool {
    guard let python = TestEnvironment.venvPython else { return false }
    return FileManager.default.isExecutableFile(atPath: python.deletingLastPathComponent().appendingPathComponent("st").path)
}
