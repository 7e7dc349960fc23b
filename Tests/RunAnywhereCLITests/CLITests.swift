import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLITests {
    @Test func infoReportsHardwareAndFrameworks() throws {
        try CLIRunner.withData { cli, _ in
            let output = try cli.run(["info", "--json"])
            #expect(output.status == 0, "\(output.stderr)")
            let json = try output.json()
            let hardware = try #require(json["hardware"] as? [String: Any])
            #expect((hardware["cores"] as? Int ?? 0) >= 1)
            #expect((hardware["totalMemoryBytes"] as? Int ?? 0) > 0)
            let frameworks = try #require(json["frameworks"] as? [[String: Any]])
            let llama = try #require(frameworks.first { $0["framework"] as? String == "LlamaCpp" })
            #expect((llama["availability"] as? [String: Any])?["available"] != nil)
            let coreml = try #require(frameworks.first { $0["framework"] as? String == "CoreML" })
            #expect(((coreml["availability"] as? [String: Any])?["unavailable"] as? [String: Any])?["reason"] as? String != nil)
            #expect(json["defaultModelInstalled"] as? Bool == true)
            #expect((json["initializationMs"] as? Double ?? -1) >= 0)
            let text = try cli.run(["info"])
            #expect(text.stdout.contains("llama.cpp") && text.stdout.contains("available"))
        }
    }

    @Test func modelsListAndInfo() throws {
        try CLIRunner.withData { cli, _ in
            let list = try cli.run(["models", "list", "--json"])
            #expect(list.status == 0)
            let models = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            let smol = try #require(models.first { $0["id"] as? String == "smollm2-135m-instruct-q4_1" })
            #expect(smol["isDownloaded"] as? Bool == true)
            #expect(models.contains { $0["id"] as? String == "lfm2-350m-q4-k-m" && $0["isDownloaded"] as? Bool == false })
            let info = try cli.run(["models", "info", "smollm2-135m-instruct-q4_1", "--json"])
            #expect(info.status == 0)
            let json = try info.json()
            let model = try #require(json["model"] as? [String: Any])
            for key in [
                "id", "name", "category", "format", "framework", "localPath", "downloadSize", "contextLength", "supportsThinking", "source",
                "isDownloaded",
            ] {
                #expect(model[key] != nil, "models info lacks \(key)")
            }
            let gguf = try #require(json["gguf"] as? [String: Any])
            #expect(gguf["architecture"] as? String == "llama")
            #expect(gguf["quantization"] as? String == "Q4_1")
            #expect((gguf["chatTemplate"] as? String)?.contains("im_start") == true)
            let text = try cli.run(["models", "info", "smollm2-135m-instruct-q4_1"])
            #expect(text.stdout.contains("localPath") && text.stdout.contains("135M"))
        }
    }

    @Test func generateJSONHasEveryResultField() throws {
        try CLIRunner.withData { cli, _ in
            let output = try cli.run(["generate", "--json", "--temperature", "0", "--max-tokens", "8", "--threads", "1", "What is 2+2?"])
            #expect(output.status == 0, "\(output.stderr)")
            let json = try output.json()
            // thinkingContent is left out: it is only printed when the model thought.
            for key in [
                "text", "inputTokens", "tokensUsed", "latencyMs", "timeToFirstTokenMs", "tokensPerSecond", "promptTokensPerSecond",
                "decodeTokensPerSecond", "cachedInputTokens", "responseTokens", "stopReason", "modelUsed", "framework",
            ] {
                #expect(json[key] != nil, "generate --json lacks \(key)")
            }
            #expect(!(json["text"] as? String ?? "").isEmpty)
            #expect(json["modelUsed"] as? String == "smollm2-135m-instruct-q4_1")
            #expect(json["framework"] as? String == "llama.cpp")
            #expect((json["cachedInputTokens"] as? Int ?? -1) >= 0)
            #expect((json["responseTokens"] as? Int ?? Int.max) <= (json["tokensUsed"] as? Int ?? 0))

            // With --logprobs and --prompt-logprobs: each answer token's, and each prompt token's after the first.
            let scored = try cli.run([
                "generate", "--json", "--raw", "--temperature", "0", "--max-tokens", "2", "--threads", "1", "--logprobs", "1",
                "--prompt-logprobs", "2", "The capital of France is",
            ])
            #expect(scored.status == 0, "\(scored.stderr)")
            let result = try scored.json()
            let answer = result["logprobs"] as? [[String: Any]] ?? []
            let prompt = result["promptLogprobs"] as? [[String: Any]] ?? []
            #expect(answer.count == result["tokensUsed"] as? Int && prompt.count == (result["inputTokens"] as? Int ?? 0) - 1)
            #expect(prompt.allSatisfy { ($0["topLogprobs"] as? [Any])?.count == 2 } && !prompt.isEmpty)
            #expect(try cli.run(["generate", "--prompt-logprobs", "0", "Hi"]).stderr.contains("--prompt-logprobs needs --json"))
        }
    }

    /// `generate --suffix` fills in the gap with a code model (the fill-in-the-middle fixture): its
    /// prompt is the prefix's and the suffix's tokens between the model's three marks; a model
    /// without such marks is an error that says so.
    @Test(.enabled(if: TestEnvironment.infillFixture != nil, "needs the fill-in-the-middle fixture: run scripts/setup --tests"))
    func generateWithASuffixFillsInTheMiddle() throws {
        try CLIRunner.withData { cli, _ in
            let (prefix, suffix) = ("def area(r):\n    return ", "\n\nprint(area(2))\n")
            let filled = try cli.run([
                "generate", "--model", SDKConstants.Models.infillFixtureID, "--json", "--temperature", "0", "--max-tokens", "2",
                "--threads", "1", "--prompt-logprobs", "0", "--suffix", suffix, prefix,
            ])
            #expect(filled.status == 0, "\(filled.stderr)")
            let result = try filled.json()
            let shown = (result["promptLogprobs"] as? [[String: Any]] ?? []).flatMap { ($0["bytes"] as? [Int] ?? []).map(UInt8.init) }
            #expect(String(decoding: shown, as: UTF8.self) == prefix + "<|fim_suffix|>" + suffix + "<|fim_middle|>", "\(result)")
            let refused = try cli.run(["generate", "--threads", "1", "--max-tokens", "2", "--suffix", suffix, prefix])
            #expect(refused.status != 0 && refused.stderr.contains("was not trained to fill in the middle"), "\(refused.stderr)")
        }
    }

    /// A seeded run in its own process gives the text an in-process run with the same options gives,
    /// even one that reuses the prompt from its KV cache.
    @Test func seededGenerationIsTheSameInAnotherProcess() async throws {
        let prompt =
            String(repeating: "The keeper climbs the lighthouse stairs each evening, lights the lamp and watches the sea. ", count: 10)
            + "Write a short story about this lighthouse keeper finding a message in a bottle."
        let cli = try CLIRunner.withData { cli, _ in
            try cli.run(["generate", "--json", "--seed", "1234", "--temperature", "0.9", "--max-tokens", "16", "--threads", "1", prompt])
        }
        #expect(cli.status == 0, "\(cli.stderr)")

        let data = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: data))
        runtime.frameworks.register(LlamaCppAdapter())
        try await runtime.loadModel(RunAnywhere.defaultModelID, options: ModelLoadOptions(threads: 1))
        var options = GenerationSettings().options
        options.maxTokens = 16
        options.temperature = 0.9
        options.seed = 1234
        options.threads = 1
        let first = try await runtime.generate(prompt, options: options)
        let second = try await runtime.generate(prompt, options: options)
        let chunk = ModelLoadOptions().batchSize
        #expect(first.inputTokens > 3 * chunk)
        #expect(second.cachedInputTokens == (first.inputTokens - 1) / chunk * chunk)
        #expect(try first.text == cli.json()["text"] as? String)
        #expect(second.text == first.text)
    }

    @Test func generateStreamsTheSameTextAsJSON() throws {
        try CLIRunner.withData { cli, _ in
            let arguments = ["--temperature", "0", "--max-tokens", "12", "--threads", "1", "Name a planet."]
            let json = try cli.run(["generate", "--json"] + arguments).json()
            let streamed = try cli.run(["generate"] + arguments)
            #expect(streamed.status == 0)
            #expect(streamed.stdout == (json["text"] as? String ?? "") + "\n")
        }
    }

    @Test func chatStreamsAnswersAndSavesTheConversation() throws {
        try CLIRunner.withData { chat, data in
            let output = try chat.run(
                ["chat", "--temperature", "0", "--max-tokens", "12", "--threads", "1"], input: "Hello!\n/stats\n/bogus\n/reset\n/exit\n")
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains("tok/s"))
            #expect(output.stdout.contains("messages               2 (1 answer)"))
            #expect(output.stdout.contains("Unknown command /bogus"))
            #expect(output.stdout.contains("Started a new conversation"))
            let saved = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("conversations").path)
            #expect(saved.count == 1)
            let conversation = try String(contentsOf: data.appendingPathComponent("conversations/\(saved[0])"), encoding: .utf8)
            #expect(conversation.contains("\"title\" : \"Hello!\""))
            let endOfInput = try chat.run(["chat", "--max-tokens", "4", "--threads", "1"], input: "")
            #expect(endOfInput.status == 0)
        }
    }
}

/// Every bad input ends with a one-line error and exit status 1, never a crash.
@Suite(
    .processLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct CLIBadInputTests {
    func expectError(_ output: CLIRunner.Output, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status == 1, "status \(output.status): \(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.stderr.hasPrefix("error: "), "\(output.stderr)", sourceLocation: sourceLocation)
        #expect(output.stderr.contains(fragment), "\(output.stderr)", sourceLocation: sourceLocation)
        #expect(!output.stderr.contains("Fatal error") && !output.stderr.contains("Stack dump"), sourceLocation: sourceLocation)
    }

    @Test func unknownAndUnsafeModelIDs() throws {
        try CLIRunner.withData { cli, _ in
            expectError(try cli.run(["generate", "--model", "no-such-model", "Hi"]), "not found")
            expectError(try cli.run(["generate", "--model", "../../etc/passwd", "Hi"]), "Invalid model id")
            expectError(try cli.run(["generate", "--model", "a//b", "Hi"]), "Invalid model id")
            expectError(try cli.run(["generate", "--model", "library/qwen3:8b", "Hi"]), "not found")
            expectError(try cli.run(["models", "info", ".."]), "Invalid model id")
            expectError(try cli.run(["chat", "--model", "missing"], input: "hi\n"), "not found")
        }
    }

    @Test func promptsThatCannotFit() throws {
        let prompt = String(repeating: "word ", count: 600)
        try CLIRunner.withData { cli, _ in
            expectError(try cli.run(["generate", "--context-length", "256", "--threads", "1", prompt]), "context holds")
            expectError(try cli.run(["generate", "--raw", "--context-length", "256", "--threads", "1", prompt]), "context holds")
            expectError(try cli.run(["generate", ""]), "empty")
            expectError(try cli.run(["generate", "--temperature", "7", "Hi"]), "temperature")
        }
    }

    @Test func chatReportsAFailedTurnAndGoesOn() throws {
        try CLIRunner.withData { cli, _ in
            let tooLong = String(repeating: "word ", count: 600)
            let output = try cli.run(
                ["chat", "--context-length", "256", "--threads", "1", "--max-tokens", "4"], input: "\(tooLong)\n/stats\n/exit\n")
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains("failed: The prompt needs"))
            #expect(output.stdout.contains("completion rate        0%"))
        }
    }

    @Test func importRefusesBadFilesAndAcceptsGoodOnes() throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        let empty = home.appendingPathComponent("empty.gguf")
        try Data().write(to: empty)
        let text = home.appendingPathComponent("readme.gguf")
        try Data("# not a model\n".utf8).write(to: text)
        let real = try #require(TestEnvironment.defaultModelFile)
        let truncated = home.appendingPathComponent("truncated.gguf")
        try TestEnvironment.writeTruncatedCopy(of: real, to: truncated, bytes: 2 << 20)
        expectError(try cli.run(["models", "import", empty.path]), "empty")
        expectError(try cli.run(["models", "import", text.path]), "not a valid GGUF")
        expectError(try cli.run(["models", "import", truncated.path]), "truncated")
        expectError(try cli.run(["models", "import", home.appendingPathComponent("nope.gguf").path]), "No such file")
        let tiny = home.appendingPathComponent("tiny.gguf")
        try GGUFWriter.tinyLlama().write(to: tiny)
        expectError(try cli.run(["models", "import", tiny.path, "--id", "../escape"]), "Invalid model id")
        let imported = try cli.run(["models", "import", tiny.path, "--id", "tiny", "--name", "Tiny", "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try imported.json()["id"] as? String == "tiny")
        expectError(try cli.run(["models", "import", tiny.path, "--id", "tiny"]), "already exists")
        let listed = try cli.run(["models", "list"])
        #expect(listed.stdout.contains("tiny") && listed.stdout.contains("Tiny"))
        let info = try cli.run(["models", "info", "tiny", "--json"])
        #expect(((try info.json()["gguf"] as? [String: Any])?["name"] as? String) == "Tiny Test Llama")
    }

    @Test func aModelWithoutItsFile() throws {
        let (cli, home) = try CLIRunner.isolated()
        defer { try? FileManager.default.removeItem(at: home) }
        expectError(try cli.run(["generate", "Hi"]), "not downloaded")
        expectError(try cli.run(["generate", "--model", "lfm2-350m-q4-k-m", "Hi"]), "not downloaded")
    }
}
