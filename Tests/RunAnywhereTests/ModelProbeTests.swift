import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The check a new model file gets in a child process before a runtime loads it: real child
/// processes that crash, fail, hang or pass, and the record that spares a file a second check.
@Suite struct ModelProbeTests {
    /// A probe that runs `script` in `sh` (the model file is its last argument).
    static func probe(_ script: String, timeout: Duration = .seconds(30)) -> ModelProbe {
        ModelProbe(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script, "probe"], timeout: timeout)
    }

    static func loadError(_ probe: ModelProbe) async throws -> SDKError {
        let runtime = try scriptedRuntime(probe: probe)
        return try await #require(throws: SDKError.self) { try await runtime.loadModel("scripted") }
    }

    @Test func aCrashInTheCheckIsAnErrorHereAndNothingLoads() async throws {
        let runtime = try scriptedRuntime(probe: Self.probe("echo 'GGML_ASSERT failed' >&2; exec python3 -c 'import os; os.abort()'"))
        let error = try await #require(throws: SDKError.self) { try await runtime.loadModel("scripted") }
        #expect(error.code == .modelLoadFailed)
        #expect(
            error.message.contains("Model 'scripted' (scripted.gguf) crashed") && error.message.contains("signal 6, SIGABRT"),
            "\(error.message)")
        #expect(error.message.contains("GGML_ASSERT failed") && error.message.hasSuffix("it was not loaded"), "\(error.message)")
        #expect(await !runtime.isModelLoaded)
        let status = await runtime.loadedModels()
        #expect(
            status.count == 1 && status.first?.state == .failed && status.first?.error?.contains("SIGABRT") == true,
            "the failure is shown where loads are")
    }

    @Test func aFailedOrHungCheckSaysWhy() async throws {
        let failed = try await Self.loadError(Self.probe("echo 'error: the file is not a model' >&2; exit 1"))
        #expect(failed.message.contains("did not load: the file is not a model"), "\(failed.message)")
        let hung = try await Self.loadError(Self.probe("exec sleep 20", timeout: .milliseconds(300)))
        #expect(hung.message.contains("did not load within 0.3 seconds in a check process"), "\(hung.message)")
        let missing = try await Self.loadError(ModelProbe(executable: URL(fileURLWithPath: "/nonexistent/runanywhere"), arguments: []))
        #expect(missing.message.contains("Cannot start the model check process"), "\(missing.message)")
        // Files of engines the probe does not check are loaded directly.
        var other = Self.probe("exit 1")
        other.frameworks = [.onnx]
        try await scriptedRuntime(probe: other).loadModel("scripted")
    }

    @Test func aFileThatPassedIsNotCheckedAgainUntilItChanges() async throws {
        let counter = try TestEnvironment.temporaryDirectory().appendingPathComponent("checks")
        let probe = Self.probe("echo \"$2 $3\" >> '\(counter.path)'")
        let runtime = try scriptedRuntime(probe: probe)
        try await runtime.loadModel("scripted")
        await runtime.unloadModel()
        try await runtime.loadModel("scripted")
        let lines = try String(contentsOf: counter, encoding: .utf8).split(separator: "\n")
        #expect(
            lines.count == 1 && lines.first?.hasPrefix("LlamaCpp ") == true && lines.first?.hasSuffix("scripted.gguf") == true, "\(lines)")
        // A changed file is checked again.
        let file = try #require(try runtime.model(id: "scripted").localPath)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: file.path)
        await runtime.unloadModel()
        try await runtime.loadModel("scripted")
        #expect(try String(contentsOf: counter, encoding: .utf8).split(separator: "\n").count == 2)
    }
}
