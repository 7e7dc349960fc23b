import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// Cancellation, unloading, context limits and bad model files, each on its own runtime.
extension LlamaTests {
    @Suite struct Lifecycle {
        /// Cancelling the task that consumes the stream stops the engine within a step or two, and
        /// the model stays usable.
        @Test func cancellingTheConsumerStopsTheEngine() async throws {
            let runtime = try await SharedModel.runtime.value
            let streaming = try await runtime.generateStream("1, 2, 3, 4, 5, 6,", options: greedy(400, raw: true))
            let result = try await cancelConsumer(of: streaming, after: 3)
            #expect(result.stopReason == .cancelled)
            #expect(result.tokensUsed < 40, "stopped after \(result.tokensUsed) tokens")
            let after = try await runtime.generate("Say hello.", options: greedy(4))
            #expect(after.tokensUsed > 0)
        }

        @Test func cancelGenerationStopsARunningGeneration() async throws {
            let runtime = try await SharedModel.runtime.value
            let streaming = try await runtime.generateStream("1, 2, 3, 4, 5, 6,", options: greedy(400, raw: true))
            var iterator = streaming.stream.makeAsyncIterator()
            _ = try await iterator.next()
            await runtime.cancelGeneration()
            let result = try await streaming.result.value
            #expect(result.stopReason == .cancelled)
            #expect(result.tokensUsed < 40)
        }

        @Test func cancellingANonStreamingCallStopsIt() async throws {
            let runtime = try await SharedModel.runtime.value
            let task = Task { try await runtime.generate("1, 2, 3, 4, 5, 6,", options: greedy(2000, raw: true)) }
            try await Task.sleep(for: .milliseconds(150))
            task.cancel()
            let result = try await task.value
            #expect(result.stopReason == .cancelled)
            #expect(result.tokensUsed < 2000)
        }

        @Test func unloadAndReloadGiveTheSameAnswer() async throws {
            let runtime = try await makeRuntime()
            let before = try await runtime.generate("Name a fruit.", options: greedy(12))
            await runtime.unloadModel()
            #expect(await !runtime.isModelLoaded)
            let unloaded = await #expect(throws: SDKError.self) { try await runtime.generate("Name a fruit.", options: greedy(12)) }
            #expect(unloaded?.code == .notInitialized)
            try await runtime.loadModel(RunAnywhere.defaultModelID, options: testLoadOptions)
            #expect(await runtime.currentModel?.id == RunAnywhere.defaultModelID)
            let after = try await runtime.generate("Name a fruit.", options: greedy(12))
            #expect(after.text == before.text)
        }

        @Test func longConversationsAreFittedAndTooLongMessagesRefused() async throws {
            let runtime = try await makeRuntime(options: ModelLoadOptions(contextLength: 160, threads: 1, flashAttention: .disabled))
            let contextLength = try #require(await runtime.loadedContextLength)
            #expect((160...512).contains(contextLength), "llama.cpp rounds the context up a little")
            let history = (0..<20).flatMap { turn in
                [
                    Message(role: .user, content: "Tell me fact number \(turn) about the ocean."),
                    Message(role: .assistant, content: "Fact \(turn): the ocean is deep and wide."),
                ]
            }
            let result = try await runtime.generate("And one more?", context: Context(messages: history), options: greedy(24))
            #expect(result.inputTokens + result.tokensUsed <= contextLength)
            #expect(result.inputTokens > 24)
            let error = await #expect(throws: SDKError.self) {
                try await runtime.generate(String(repeating: "ocean ", count: 700), context: Context(messages: history), options: greedy(8))
            }
            #expect(error?.code == .contextTooLong)
            let raw = await #expect(throws: SDKError.self) {
                try await runtime.generate(String(repeating: "ocean ", count: 700), options: greedy(8, raw: true))
            }
            #expect(raw?.code == .contextTooLong)
        }

        /// A prompt longer than one decode batch is read in chunks of the batch size, and a repeat
        /// reuses exactly its whole chunks and gives the same answer.
        @Test func promptsLongerThanABatchAreReadInChunks() async throws {
            let prompt = (1...60).map(String.init).joined(separator: ", ") + ","
            let small = try await makeRuntime(
                options: ModelLoadOptions(contextLength: 256, threads: 1, flashAttention: .disabled, batchSize: 16, reproducible: true))
            let chunked = try await small.generate(prompt, options: greedy(6, raw: true))
            let repeated = try await small.generate(prompt, options: greedy(6, raw: true))
            #expect(chunked.inputTokens > 100)
            #expect(chunked.tokensUsed == 6)
            #expect(chunked.cachedInputTokens == 0)
            #expect(repeated.cachedInputTokens == (chunked.inputTokens - 1) / 16 * 16)
            #expect(repeated.text == chunked.text)
        }

        @Test func badModelFilesAreRefusedBeforeTheEngine() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let runtime = try await makeRuntime(load: false, models: folder.appendingPathComponent("models"))
            let real = try #require(TestEnvironment.defaultModelFile)
            let truncated = folder.appendingPathComponent("truncated.gguf")
            try TestEnvironment.writeTruncatedCopy(of: real, to: truncated, bytes: 4 << 20)
            let text = folder.appendingPathComponent("text.gguf")
            try Data("not a model".utf8).write(to: text)
            let empty = folder.appendingPathComponent("empty.gguf")
            try Data().write(to: empty)
            for url in [truncated, text, empty] {
                let model = try runtime.registerModel(name: url.lastPathComponent, url: url, framework: .llamaCpp)
                let error = await #expect(throws: SDKError.self) { try await runtime.loadModel(model.id, options: testLoadOptions) }
                #expect(error?.code == .invalidModelFormat, "\(url.lastPathComponent): \(String(describing: error))")
                #expect(await !runtime.isModelLoaded)
            }
            let missing = try runtime.registerModel(name: "gone", url: folder.appendingPathComponent("gone.gguf"), framework: .llamaCpp)
            let error = await #expect(throws: SDKError.self) { try await runtime.loadModel(missing.id) }
            #expect(error?.code == .modelNotDownloaded)
            let good = try runtime.registerModel(id: "real", name: "Real", url: real, framework: .llamaCpp)
            try await runtime.loadModel(good.id, options: testLoadOptions)
            #expect(try await runtime.generate("Hi", options: greedy(2)).tokensUsed > 0)
        }

        /// A model without a chat template is formatted with the fallback its vocabulary suggests:
        /// for SmolLM2 that is ChatML, the same format as its own template, so the answers match.
        @Test func modelsWithoutATemplateUseTheFallback() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let bare = folder.appendingPathComponent("no-template.gguf")
            try GGUFEditor.copy(try #require(TestEnvironment.defaultModelFile), to: bare, removing: ["tokenizer.chat_template"])
            #expect(try GGUFReader.read(bare).chatTemplate == nil)
            let runtime = try await makeRuntime(load: false, models: folder.appendingPathComponent("models"))
            let model = try runtime.registerModel(id: "bare", name: "Bare", url: bare, framework: .llamaCpp)
            try await runtime.loadModel(model.id, options: testLoadOptions)
            let context = Context(
                systemPrompt: "You are helpful.",
                messages: [Message(role: .user, content: "Hi"), Message(role: .assistant, content: "Hello!")])
            let fallback = try await runtime.generate("Name a color.", context: context, options: greedy(12))
            let own = try await SharedModel.runtime.value.generate("Name a color.", context: context, options: greedy(12))
            #expect(fallback.inputTokens == own.inputTokens)
            #expect(fallback.text == own.text)
        }

        @Test func missingLibraryIsReportedNotFatal() {
            let availability = LlamaCppAdapter(libraryPath: "/nonexistent/libllama.so").availability()
            guard case .unavailable(let reason) = availability else {
                Issue.record("a missing library cannot be available")
                return
            }
            #expect(reason.contains("install the engines with `\(EngineInstallation.command)`"))
            #expect(reason.contains("RUNANYWHERE_LLAMA_LIB"))
        }

        @Test func engineUnavailableIsAClearError() async throws {
            let runtime = RunAnywhereRuntime(
                configuration: RuntimeConfiguration(
                    modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: FileManager.default.temporaryDirectory
                ))
            let error = await #expect(throws: SDKError.self) { try await runtime.loadModel(RunAnywhere.defaultModelID) }
            #expect(error?.code == .frameworkNotAvailable)
            #expect(error?.message.contains("no llama.cpp adapter is registered") == true)
        }
    }
}
