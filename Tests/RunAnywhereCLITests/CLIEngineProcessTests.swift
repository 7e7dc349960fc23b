import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `runanywhere serve` runs each language and embedding model in an engine worker process named
/// after its model: a real SIGSEGV, a real abort() and a SIGKILL of one model's worker cost only
/// that worker's requests, while another model streams on, and a realtime session whose answer
/// crashed answers on (Tests/clients/engine_crash_check.py, with the official `openai` client);
/// with `--in-process-engines` no worker is started.
@Suite(
    .serverLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.venvPython != nil,
        "needs llama.cpp, the default model and the venv: run scripts/setup --tests --build tests"))
struct CLIEngineProcessTests {
    static let crashScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("clients/engine_crash_check.py")

    @Test func anEngineCrashCostsOnlyTheRequestsItsWorkerServed() throws {
        var (cli, home, model) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let other = home.appendingPathComponent("other.gguf")
        try FileManager.default.linkItem(at: model, to: other)
        #expect(try cli.run(["models", "import", other.path, "--id", "other-model"]).status == 0)
        cli.environment["RUNANYWHERE_TEST_ENGINE_FAULTS"] = "1"
        let server = try ServeProcess(cli, arguments: ["--threads", "1", "--parallel", "2"])
        let (status, output) = try CLIServeTests.python(
            Self.crashScript,
            [
                "--base-url", server.baseURL, "--model", SDKConstants.Models.defaultModelID, "--other", "other-model",
                "--server-pid", "\(server.process.processIdentifier)",
            ])
        #expect(status == 0, "\(output)\n\(server.standardError.suffix(3000))")
        #expect(server.stop() == 0, "the server outlived three engine crashes and stops cleanly: \(server.standardError.suffix(2000))")
        #expect(server.standardError.contains("An engine process died"), "the crash is logged")
    }

    /// The engine workers whose parent is process `parent`, by pid, with the model each names.
    static func workers(of parent: Int32) throws -> [Int32: String] {
        var found: [Int32: String] = [:]
        for pid in try FileManager.default.contentsOfDirectory(atPath: "/proc").compactMap(Int32.init) {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 1, fields[1] == Substring("\(parent)"),
                let argv = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")).split(separator: 0).map({
                    String(decoding: $0, as: UTF8.self)
                }),
                argv.contains("engine-worker"), let model = argv.firstIndex(of: "--model").map({ argv.index(after: $0) }),
                model < argv.count
            else { continue }
            found[pid] = argv[model]
        }
        return found
    }

    /// Whether process `pid` runs (exists and is not a zombie waiting to be reaped).
    static func running(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }

    /// Two texts embedded by `server`'s default embedding model.
    static func embed(_ server: ServeProcess) async throws {
        var request = URLRequest(url: URL(string: server.baseURL + "/embeddings")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"model": "\#(SDKConstants.Models.defaultEmbeddingModelID)", "input": ["Hello", "World"]}"#.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        let body = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect((body?["data"] as? [Any])?.count == 2, "\(String(decoding: data, as: UTF8.self))")
    }

    /// A chat completion of a few tokens from `server`'s default model; the answer's text.
    static func chat(_ server: ServeProcess) async throws -> String {
        var request = URLRequest(url: URL(string: server.baseURL + "/chat/completions")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            #"{"model": "\#(RunAnywhere.defaultModelID)", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 4}"#.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")
        return String(decoding: data, as: UTF8.self)
    }

    @Test func aModelRunsInAWorkerNamedAfterItUnlessEnginesAreKeptInProcess() async throws {
        try await CLIRunner.withData { runner, _ in
            let isolated = try ServeProcess(runner, arguments: ["--threads", "1"])
            _ = try await Self.chat(isolated)
            var expected = [RunAnywhere.defaultModelID]
            if embeddingModelInstalled {
                try await Self.embed(isolated)
                expected.append(SDKConstants.Models.defaultEmbeddingModelID)
            }
            let workers = try Self.workers(of: isolated.process.processIdentifier)
            #expect(workers.values.sorted() == expected.sorted(), "one worker a model, named after it")
            #expect(isolated.stop() == 0)
            let deadline = ContinuousClock.now + .seconds(30)
            while workers.keys.contains(where: Self.running), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!workers.keys.contains(where: Self.running), "the workers end with the server")

            let inProcess = try ServeProcess(runner, arguments: ["--threads", "1", "--in-process-engines"])
            _ = try await Self.chat(inProcess)
            if embeddingModelInstalled { try await Self.embed(inProcess) }
            #expect(try Self.workers(of: inProcess.process.processIdentifier).isEmpty, "no engine worker under the server")
            #expect(inProcess.stop() == 0)
        }
    }
}
