import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Where models run: the accelerators `info` reports, `backend` on every result, and llama.cpp's
/// Vulkan build on Mesa's lavapipe (a real Vulkan device on a machine without a GPU).
@Suite(
    .alone, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct GPUCLITests {
    /// The accelerators come from llama.cpp's ggml registry: the CPU device always, each GPU its
    /// backends find, and CUDA and Vulkan listed with a reason when this build or machine cannot
    /// use them; `hasGPU` agrees with them.
    @Test func infoListsTheAcceleratorsTheEngineReports() throws {
        let output = try CLIRunner().run(["info", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let json = try output.json()
        let accelerators = try #require(json["accelerators"] as? [[String: Any]])
        let cpu = try #require(accelerators.first { $0["backend"] as? String == "cpu" })
        #expect(cpu["available"] as? Bool == true && cpu["kind"] as? String == "cpu" && cpu["engine"] as? String == "llama.cpp")
        #expect((cpu["memoryBytes"] as? Int ?? 0) > 0 && !(cpu["name"] as? String ?? "").isEmpty)
        for backend in ["cuda", "vulkan"] {
            let entries = accelerators.filter { $0["backend"] as? String == backend }
            #expect(!entries.isEmpty, "\(backend) is listed")
            for entry in entries where entry["available"] as? Bool == false {
                #expect(!(entry["reason"] as? String ?? "").isEmpty)
            }
        }
        let usable = accelerators.contains {
            $0["available"] as? Bool == true && ["gpu", "igpu"].contains($0["kind"] as? String ?? "") && $0["emulated"] as? Bool == false
        }
        #expect((json["hardware"] as? [String: Any])?["hasGPU"] as? Bool == usable)
        // Each ggml-based engine says which compute backends its build has.
        let frameworks = try #require(json["frameworks"] as? [[String: Any]])
        for name in ["LlamaCpp", "WhisperCpp", "StableDiffusionCpp"] {
            let available =
                (frameworks.first { $0["framework"] as? String == name }?["availability"] as? [String: Any])?["available"] as? [String: Any]
            let detail = available?["detail"] as? String ?? ""
            #expect(detail.contains("backends: "), "\(name)")
        }
        let text = try CLIRunner().run(["info"])
        #expect(text.stdout.contains("Accelerators") && text.stdout.contains("cpu CPU"))
    }

    /// llama.cpp's Vulkan build on a real Vulkan device: Mesa's lavapipe (a Vulkan driver that
    /// runs on the CPU), picked by hand with GGML_VK_VISIBLE_DEVICES since ggml skips CPU-type
    /// devices by default. `make test` builds the variant and installs lavapipe; elsewhere this
    /// runs where `RUNANYWHERE_GPU=vulkan scripts/setup` built it and mesa-vulkan-drivers is there.
    @Test(.enabled(if: TestEnvironment.vulkanOnLavapipe, "needs the Vulkan build of llama.cpp and lavapipe"))
    func theVulkanBuildRunsTheModelOnAVulkanDevice() throws {
        let runner = Self.lavapipe()
        // info tells the truth: a Vulkan device, usable, but a driver on the CPU and not a GPU.
        let info = try runner.run(["info", "--json"]).json()
        let accelerators = try #require(info["accelerators"] as? [[String: Any]])
        let vulkan = try #require(accelerators.first { $0["backend"] as? String == "vulkan" && $0["available"] as? Bool == true })
        #expect((vulkan["description"] as? String ?? "").contains("llvmpipe") && (vulkan["memoryBytes"] as? Int ?? 0) > 0)
        #expect(vulkan["emulated"] as? Bool == true && (info["hardware"] as? [String: Any])?["hasGPU"] as? Bool == false)
        #expect(try runner.run(["info"]).stdout.contains("runs on the CPU (a software GPU driver), not counted as a GPU"))
        // Whole (the default: the model fits), in part, and not at all.
        for (flags, backend) in [([String](), "vulkan"), (["--gpu-layers", "8"], "vulkan"), (["--gpu-layers", "0"], "cpu")] {
            let generated = try runner.run(
                ["generate", "--json", "--verbose", "--max-tokens", "3", "--threads", "1", "--temperature", "0"] + flags + [
                    "Name a colour."
                ])
            // Exit 0 with the engine freed before the process's teardown (CUDA's aborted when a context outlived it).
            #expect(
                generated.status == 0 && !generated.crashed && generated.stderr.contains("Unloaded model"),
                "\(flags): \(generated.stderr.suffix(2000))")
            let result = try generated.json()
            #expect(result["backend"] as? String == backend && (result["tokensUsed"] as? Int ?? 0) > 0, "\(flags)")
        }
        // A device that cannot take the model (its driver refuses every buffer over 64 KiB): the
        // CPU runs it, and the log says why.
        var refusing = runner
        refusing.environment["GGML_VK_FORCE_MAX_BUFFER_SIZE"] = "65536"
        let fallback = try refusing.run(["generate", "--json", "--max-tokens", "3", "--threads", "1", "Name a colour."])
        #expect(fallback.status == 0 && !fallback.crashed, "\(fallback.stderr)")
        #expect(try fallback.json()["backend"] as? String == "cpu")
        #expect(fallback.stderr.contains("could not be loaded on Vulkan0") && fallback.stderr.contains("loading it on the CPU"))
        // Without the variable the Vulkan build finds no GPU, so the CPU engine runs and says why Vulkan is unused.
        let plain = try CLIRunner().run(["info", "--json"]).json()
        let unused = (plain["accelerators"] as? [[String: Any]] ?? []).first { $0["backend"] as? String == "vulkan" }
        #expect(unused?["available"] as? Bool == false && (unused?["reason"] as? String ?? "").contains("installed but not used"))
    }

    /// Served from lavapipe, the model picks the same next tokens as the CPU engine (a server
    /// without the variable) over a fixed text, one greedy token after each of its first words:
    /// the devices round differently, so a near-tie may go the other way (measured: all 29 of
    /// 29 agreed; the issue's own check, 24 of 25), hence at least 10 of 12. The server counts
    /// the GPU memory apart, by layers placed, and its metrics say where generations ran.
    @Test(.enabled(if: TestEnvironment.vulkanOnLavapipe, "needs the Vulkan build of llama.cpp and lavapipe"))
    func vulkanPicksTheSameNextTokensAsTheCPUEngine() async throws {
        let model = SDKConstants.Models.defaultModelID
        let onVulkan = try ServeProcess(Self.lavapipe(), arguments: ["--threads", "1", "--parallel", "1"])
        defer { _ = onVulkan.stop() }
        let onCPU = try ServeProcess(CLIRunner(), arguments: ["--threads", "1", "--parallel", "1"])
        defer { _ = onCPU.stop() }
        let words = "The river runs down from the hills to the sea, and the rain brings it back again.".split(separator: " ")
        var agreed = 0
        for count in 2..<14 {
            let body = try JSONSerialization.data(
                withJSONObject: [
                    "model": model, "prompt": words.prefix(count).joined(separator: " "), "max_tokens": 1, "temperature": 0,
                ] as [String: Any])
            var next: [String] = []
            for server in [onVulkan, onCPU] {
                let answer = try await Self.request(
                    "http://127.0.0.1:\(server.port)/v1/completions", post: true, body: String(decoding: body, as: UTF8.self))
                next.append(try Self.completionText(of: answer))
            }
            if next[0] == next[1] { agreed += 1 }
        }
        #expect(agreed >= 10, "\(agreed) of 12 next tokens agreed")

        let root = "http://127.0.0.1:\(onVulkan.port)"
        func load(_ body: String?) async throws -> [String: Any] {
            var unload = HTTPClientRequest(url: "\(root)/api/models/\(model)/load")
            unload.method = .DELETE
            _ = try await HTTPClient.shared.execute(unload, timeout: .seconds(30))
            return try #require(
                try JSONSerialization.jsonObject(with: await Self.request("\(root)/api/models/\(model)/load", post: true, body: body))
                    as? [String: Any])
        }
        let whole = try await load(nil)
        let part = try await load(#"{"gpuLayers": 8}"#)
        let none = try await load(#"{"gpuLayers": 0}"#)
        let device = { (status: [String: Any]) in status["deviceMemoryBytes"] as? Int ?? -1 }
        #expect(device(whole) > device(part) && device(part) > 0 && device(none) == 0, "\(whole) \(part) \(none)")
        #expect((none["memoryBytes"] as? Int ?? 0) > 0)
        _ = try await load(nil)
        let ps = try #require(try JSONSerialization.jsonObject(with: await Self.request("\(root)/api/models/loaded")) as? [String: Any])
        #expect(((ps["models"] as? [[String: Any]])?.first?["deviceMemoryBytes"] as? Int ?? 0) == device(whole))
        let chat = #"{"model":"\#(model)","messages":[{"role":"user","content":"Hi"}],"max_tokens":2}"#
        _ = try await Self.request("\(root)/v1/chat/completions", post: true, body: chat)
        let metrics = String(decoding: try await Self.request("\(root)/metrics"), as: UTF8.self)
        #expect(metrics.contains("backend=\"vulkan\"") && metrics.contains("runanywhere_models_device_memory_bytes"))
    }

    /// A runner whose processes see lavapipe (GGML_VK_VISIBLE_DEVICES=0).
    static func lavapipe() -> CLIRunner {
        var runner = CLIRunner()
        runner.environment = ["GGML_VK_VISIBLE_DEVICES": "0"]
        return runner
    }

    /// The text of a /v1/completions answer.
    static func completionText(of data: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return try #require((object?["choices"] as? [[String: Any]])?.first?["text"] as? String)
    }

    /// The body of a GET, or with `post` a POST of `body`, to a test server (a 60 s limit); a
    /// status over 299 is an error.
    static func request(_ url: String, post: Bool = false, body: String? = nil) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        if post { request.method = .POST }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code < 300 else { throw ServeProcess.ServeError(message: "\(url): HTTP \(response.status.code)") }
        return Data(buffer: bytes)
    }

    /// Every result says where the model ran: the CPU with `--gpu-layers 0`, and by default the
    /// CPU where no GPU can be used (this kind of machine), a GPU backend where one can. Each
    /// command frees its model before it exits, and exits 0.
    @Test func generationsSayWhereTheyRan() throws {
        let info = try CLIRunner().run(["info", "--json"]).json()
        let hasGPU = try #require((info["hardware"] as? [String: Any])?["hasGPU"] as? Bool)
        for flags in [[], ["--gpu-layers", "0"], ["--gpu-layers", "8"]] {
            let output = try CLIRunner().run(["generate", "--json", "--verbose", "--max-tokens", "2", "--threads", "1"] + flags + ["Hi"])
            #expect(output.status == 0 && !output.crashed && output.stderr.contains("Unloaded model"), "\(output.stderr.suffix(2000))")
            let backend = try output.json()["backend"] as? String
            if flags.last == "0" || !hasGPU {
                #expect(backend == "cpu", "\(flags)")
            } else {
                #expect(["cuda", "vulkan"].contains(backend ?? ""), "\(flags)")
            }
        }
        let refused = try CLIRunner().run(["generate", "--gpu-layers=-1", "Hi"])
        #expect(refused.status != 0 && refused.stderr.contains("--gpu-layers cannot be negative"))
    }
}
