import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// Several generations at once on one model: the llama.cpp scheduler's sequences, batching,
/// queue and cancellation, on the real default model.
extension LlamaTests {
    @Suite struct Batching {
        static func options(parallel: Int, queue: Int) -> ModelLoadOptions {
            ModelLoadOptions(contextLength: 512, threads: 1, flashAttention: .disabled, parallel: parallel, queueLimit: queue)
        }

        /// Starts a request and returns it once the engine has taken it.
        static func start(_ runtime: RunAnywhereRuntime, _ prompt: String, _ options: LLMGenerationOptions, load: ModelLoadOptions)
            async throws -> LLMStreamingResult
        {
            try await runtime.generateStream(prompt, context: nil, options: options, model: RunAnywhere.defaultModelID, loadOptions: load)
        }

        /// A whole answer, its stream read to the end.
        static func answer(_ runtime: RunAnywhereRuntime, _ prompt: String, _ options: LLMGenerationOptions, load: ModelLoadOptions)
            async throws -> LLMGenerationResult
        {
            let generation = try await start(runtime, prompt, options, load: load)
            for try await _ in generation.stream {}
            return try await generation.result.value
        }

        static func sampled(seed: UInt32?) -> LLMGenerationOptions {
            LLMGenerationOptions(maxTokens: 20, temperature: 0.9, seed: seed, threads: 1)
        }

        /// Without flash attention the context cannot be batch-invariant: greedy and seeded
        /// requests of a model loaded reproducible decode alone, and keep their answers.
        @Test func concurrentReproducibleRequestsGetTheirLoneAnswers() async throws {
            let load = ModelLoadOptions(
                contextLength: 512, threads: 1, flashAttention: .disabled, parallel: 4, queueLimit: 8, reproducible: true)
            let runtime = try await makeRuntime(load: false)
            let reproducible: [(String, LLMGenerationOptions)] = [
                ("Name three colours.", greedy(20)), (longPrompt, greedy(20)),
                ("Tell me about cats.", Self.sampled(seed: 7)), ("What is the capital of Italy?", Self.sampled(seed: 99)),
            ]
            var alone: [String] = []
            for (prompt, options) in reproducible { alone.append(try await Self.answer(runtime, prompt, options, load: load).text) }

            // The same four at once, among randomly sampled requests that are decoded in batches.
            let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, (prompt, options)) in reproducible.enumerated() {
                    group.addTask { (index, try await Self.answer(runtime, prompt, options, load: load).text) }
                }
                for (index, prompt) in ["Write a haiku about rain.", "Describe a forest.", "Say hello."].enumerated() {
                    group.addTask { (100 + index, try await Self.answer(runtime, prompt, Self.sampled(seed: nil), load: load).text) }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            for index in reproducible.indices {
                #expect(together[index] == alone[index], "request \(index) answered differently among others")
            }
            #expect((100..<103).allSatisfy { !(together[$0] ?? "").isEmpty })
            #expect(await runtime.loadedModels().first?.activeRequests == 0)
        }

        /// A sampled request's prompt read beside other requests' tokens is off the chunk grid:
        /// a reproducible request decoding alone never reuses it, and reuses its own chunks as before.
        @Test func promptsReadTogetherAreNeverReusedByAReproducibleRequest() async throws {
            let load = ModelLoadOptions(
                contextLength: 512, threads: 1, flashAttention: .disabled, batchSize: 16, parallel: 2, queueLimit: 0, reproducible: true
            )
            let runtime = try await makeRuntime(load: false)
            // A decoding request, so that the next prompt is read in the calls that decode its tokens.
            let chatty = LLMGenerationOptions(maxTokens: 400, temperature: 0.9, threads: 1, applyChatTemplate: false)
            let running = try await Self.start(runtime, "Once upon a time", chatty, load: load)
            var pieces = running.stream.makeAsyncIterator()
            _ = try await pieces.next()
            let together = try await Self.answer(runtime, longPrompt, Self.sampled(seed: nil), load: load)
            running.result.cancel()
            _ = try? await running.result.value
            #expect(together.cachedInputTokens == 0 && together.inputTokens > 3 * load.batchSize, "\(together.inputTokens) prompt tokens")

            let first = try await Self.answer(runtime, longPrompt, greedy(12), load: load)
            #expect(first.cachedInputTokens == 0, "a reproducible request reused tokens read in a shared batch")
            let second = try await Self.answer(runtime, longPrompt, greedy(12), load: load)
            #expect(second.cachedInputTokens > 0 && second.text == first.text)
        }

        @Test func theMemoryEstimateCountsEverySequencesKVCache() throws {
            let model = try #require(try makeRuntimeModel())
            let metadata = try GGUFReader.read(try #require(model.primaryFile))
            // SmolLM2 135M: 30 layers, 3 key-value heads of 64 dimensions, keys and values at 16 bits.
            #expect(metadata.kvBytesPerToken == 30 * 3 * (64 + 64) * 2)
            let adapter = LlamaCppAdapter()
            let one = adapter.estimateMemoryUsage(for: model, options: Self.options(parallel: 1, queue: 0))
            let four = adapter.estimateMemoryUsage(for: model, options: Self.options(parallel: 4, queue: 0))
            #expect(four - one == 3 * 512 * Int64(30 * 3 * 128 * 2))
            #expect(one > Int64(metadata.fileSize))
        }

        /// The installed default model's catalog entry.
        func makeRuntimeModel() throws -> ModelInfo? {
            RunAnywhereRuntime(
                configuration: RuntimeConfiguration(
                    modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: FileManager.default.temporaryDirectory)
            )
            .availableModels().first { $0.id == RunAnywhere.defaultModelID }
        }

        @Test func aFullQueueIsBusyAndACancelledRequestFreesItsSlot() async throws {
            let load = Self.options(parallel: 1, queue: 1)
            let runtime = try await makeRuntime(load: false)
            // Greedy counting runs to its token budget (the same tokens every time).
            let counting = LLMGenerationOptions(maxTokens: 400, temperature: 0, threads: 1, applyChatTemplate: false)
            let first = try await Self.start(runtime, "1, 2, 3, 4, 5, 6, 7, 8, 9, 10,", counting, load: load)
            var pieces = first.stream.makeAsyncIterator()
            _ = try await pieces.next()
            let queued = try await Self.start(runtime, "Say hello.", greedy(4), load: load)
            let status = try #require(await runtime.loadedModels().first)
            #expect(status.activeRequests == 2 && status.queuedRequests == 1, "\(status)")
            do {
                _ = try await Self.start(runtime, "Say hello.", greedy(4), load: load)
                Issue.record("a third request was taken while the only slot was busy and the queue of one was full")
            } catch let error as SDKError {
                #expect(error.code == .busy, "\(error)")
            }
            queued.result.cancel()
            #expect(try await queued.result.value.stopReason == .cancelled)
            first.result.cancel()
            #expect(try await first.result.value.stopReason == .cancelled)
            let next = try await Self.answer(runtime, "Say hello.", greedy(4), load: load)
            #expect(next.tokensUsed > 0, "the cancelled request's slot is free again")
        }
    }
}
