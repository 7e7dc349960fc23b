import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Models split across processes with llama.cpp's RPC backend, on loopback: `runanywhere
/// rpc-worker` serves this machine's CPU, and `generate --rpc` and `serve --rpc` place the default
/// model's layers on it. A split model gives the local load's greedy tokens; a worker that is not
/// there, is busy with another model, or is lost after the load is a clear error, and the server
/// outlives it.
@Suite(
    .serverLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLIRPCWorkerTests {
    /// A worker process on a free loopback port, listening once this returns.
    final class Worker {
        let process: Process
        let port: Int
        var endpoint: String { "127.0.0.1:\(port)" }

        init(_ cli: CLIRunner) throws {
            port = try TestEnvironment.freePort()
            process = Process()
            process.executableURL = cli.executable
            process.arguments = ["rpc-worker", "--port", "\(port)", "--threads", "1"]
            process.environment = ProcessInfo.processInfo.environment.merging(cli.environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            guard TestEnvironment.waitUntilListening(port, by: process) else {
                stop()
                throw ServeProcess.ServeError(message: "runanywhere rpc-worker did not start listening on port \(port)")
            }
        }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        deinit { stop() }
    }

    @Test(.hangLimit(.seconds(600))) func aModelSplitOverAWorkerGivesTheLocalLoadsGreedyTokens() throws {
        let (cli, home, _) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let worker = try Worker(cli)
        defer { worker.stop() }
        let prompt = ["generate", "Write a short story about a robot who learns to paint.", "--max-tokens", "24", "--temperature", "0"]
        let local = try cli.run(prompt + ["--threads", "1"])
        #expect(local.status == 0, "\(local.stderr)")
        // Half the layers (SmolLM2-135M has 30) on the worker, then all of them.
        for layers in ["15", "99"] {
            let split = try cli.run(prompt + ["--threads", "1", "--rpc", worker.endpoint, "--gpu-layers", layers, "--verbose"])
            #expect(split.status == 0, "\(split.stderr.suffix(2000))")
            #expect(split.stdout == local.stdout, "with \(layers) layers on the worker")
            #expect(
                split.stderr.contains("RPC0[\(worker.endpoint)] model buffer size"), "the worker holds layers: \(split.stderr.suffix(2000))"
            )
        }
    }

    @Test func aWorkerThatIsNotThereOrCannotStartIsAClearError() throws {
        let (cli, home, _) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let port = try TestEnvironment.freePort()
        let missing = try cli.run(["generate", "Hi", "--max-tokens", "2", "--rpc", "127.0.0.1:\(port)"])
        #expect(missing.status == 1 && missing.stderr.contains("No RPC worker answers at 127.0.0.1:\(port)"), "\(missing.stderr)")
        let malformed = try cli.run(["generate", "Hi", "--rpc", "localhost"])
        #expect(malformed.status == 64 && malformed.stderr.contains("An RPC worker is HOST:PORT"), "\(malformed.stderr)")

        let device = try cli.run(["rpc-worker", "--port", "\(port)", "--device", "NoSuchDevice"])
        #expect(device.status == 1 && device.stderr.contains("No device named NoSuchDevice here; there are: CPU"), "\(device.stderr)")
        let ipv6 = try cli.run(["rpc-worker", "--host", "::1", "--port", "\(port)"])
        #expect(ipv6.status == 1 && ipv6.stderr.contains("listens on an IPv4 address"), "\(ipv6.stderr)")
        let worker = try Worker(cli)
        defer { worker.stop() }
        let taken = try cli.run(["rpc-worker", "--port", "\(worker.port)"])
        #expect(taken.status == 1 && taken.stderr.contains("Cannot listen at 127.0.0.1:\(worker.port)"), "\(taken.stderr)")
    }

    /// `serve --rpc`: a second model cannot take a worker another model's engine process holds;
    /// a worker lost after the load fails that model's request with llama.cpp's reason, the
    /// server answers on, and the next request says the worker is gone.
    @Test(.hangLimit(.seconds(600))) func theServerOutlivesABusyOrLostWorker() async throws {
        let (cli, home, model) = try CLIRunner.isolatedWithDefaultModel()
        defer { try? FileManager.default.removeItem(at: home) }
        let other = home.appendingPathComponent("other.gguf")
        try FileManager.default.linkItem(at: model, to: other)
        #expect(try cli.run(["models", "import", other.path, "--id", "other-model"]).status == 0)
        let worker = try Worker(cli)
        defer { worker.stop() }
        let server = try ServeProcess(cli, arguments: ["--threads", "1", "--parallel", "1", "--rpc", worker.endpoint])
        defer { _ = server.stop() }
        let url = "\(server.baseURL)/chat/completions"
        func ask(_ model: String) async throws -> (status: Int, json: [String: Any]) {
            try await RerankRouteTests.post(
                url, ["model": model, "messages": [["role": "user", "content": "Hi"]], "max_tokens": 4, "temperature": 0])
        }
        func message(_ json: [String: Any]) -> String { (json["error"] as? [String: Any])?["message"] as? String ?? "\(json)" }

        let first = try await ask(SDKConstants.Models.defaultModelID)
        #expect(first.status == 200, "\(first.json)")
        let busy = try await ask("other-model")
        #expect(busy.status >= 500 && message(busy.json).contains("serves one client at a time"), "\(busy.json)")

        worker.stop()
        let lost = try await ask(SDKConstants.Models.defaultModelID)
        #expect(lost.status >= 500 && message(lost.json).contains("ggml-rpc.cpp"), "llama.cpp's reason: \(lost.json)")
        _ = try await GPUCLITests.request("http://127.0.0.1:\(server.port)/health")  // the server answers on
        let gone = try await ask(SDKConstants.Models.defaultModelID)
        #expect(gone.status >= 500 && message(gone.json).contains("No RPC worker answers at \(worker.endpoint)"), "\(gone.json)")
        #expect(server.stop() == 0, "\(server.standardError.suffix(2000))")
    }

}
