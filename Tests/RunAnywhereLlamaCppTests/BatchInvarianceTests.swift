import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereLlamaCpp

/// A model loaded reproducible on the CPU runs in llama.cpp's batch-invariant configuration:
/// greedy and seeded requests share the batch with everyone else and still get the same tokens
/// alone, among 7 others, after a cached history, and in another process.
extension LlamaTests {
    @Suite struct BatchInvariance {
        static let load = ModelLoadOptions(contextLength: 512, threads: 1, parallel: 8, queueLimit: 8, reproducible: true)

        static func answer(_ runtime: RunAnywhereRuntime, _ prompt: String, _ options: LLMGenerationOptions, load: ModelLoadOptions = load)
            async throws -> LLMGenerationResult
        {
            try await Batching.answer(runtime, prompt, options, load: load)
        }

        @Test func theDefaultModelIsBatchInvariantOnlyWithFlashAttentionOnTheCPU() throws {
            let metadata = try GGUFReader.read(try #require(TestEnvironment.defaultModelFile))
            #expect(LlamaBatchInvariance.obstacle(options: Self.load, gpuLayers: 0, metadata: metadata) == nil)
            var disabled = Self.load
            disabled.flashAttention = .disabled
            #expect(LlamaBatchInvariance.obstacle(options: disabled, gpuLayers: 0, metadata: metadata) == "flash attention is disabled")
            #expect(LlamaBatchInvariance.obstacle(options: Self.load, gpuLayers: 31, metadata: metadata) == "layers run on a GPU")
            #expect(LlamaBatchInvariance.obstacle(options: Self.load, gpuLayers: 0, metadata: nil) != nil)
            // The embedding model's matrices are 16-bit floats, whose products switch kernels with the batch.
            let bert = try GGUFReader.read(try #require(TestEnvironment.embeddingModelFile))
            let obstacle = try #require(LlamaBatchInvariance.obstacle(options: Self.load, gpuLayers: 0, metadata: bert))
            #expect(obstacle.contains("not Q4_1 or Q8_0"), "\(obstacle)")
        }

        /// The property itself, in llama.cpp: the logits after a history decoded token by token
        /// are bit-identical to those of the same history read again as a prompt in full chunks
        /// on the batch-invariant context, and differ on llama.cpp's default one (which makes
        /// this test able to fail).
        @Test func aHistoryDecodedTokenByTokenHasTheLogitsOfTheSameHistoryReadAsAPrompt() throws {
            let library = try LlamaLibrary.load(logger: Logger(label: "test"))
            let info = try RunAnywhereRuntime(
                configuration: RuntimeConfiguration(
                    modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: try TestEnvironment.temporaryDirectory()
                )
            ).model(id: RunAnywhere.defaultModelID)
            let path = try #require(TestEnvironment.defaultModelFile).path
            var identical: [Bool] = []
            for reproducible in [true, false] {
                let options = ModelLoadOptions(contextLength: 512, threads: 1, reproducible: reproducible)
                let llama = try LlamaContext(
                    library: library, path: path, options: options, modelInfo: info, threads: 1, invarianceObstacle: nil)
                defer { llama.free() }
                let api = library.api
                let memory = api.llama_get_memory(llama.context)
                let batch = LlamaBatch(api: api, capacity: llama.batchCapacity)
                let vocabulary = llama.vocabularySize
                func read(_ tokens: [Int32], from start: Int) -> [Float] {
                    for chunk in stride(from: start, to: tokens.count, by: llama.promptChunk) {
                        batch.clear()
                        let end = min(chunk + llama.promptChunk, tokens.count)
                        for index in chunk..<end {
                            batch.add(tokens[index], position: index, sequence: 0, output: index == tokens.count - 1)
                        }
                        #expect(api.llama_decode(llama.context, batch.batch) == 0)
                    }
                    let logits = api.llama_get_logits_ith(llama.context, -1)!
                    return Array(UnsafeBufferPointer(start: logits, count: vocabulary))
                }
                var history = try llama.tokenize(longPrompt, addSpecial: true)
                var logits = read(history, from: 0)
                for _ in 0..<24 {  // greedy, one token per call
                    let token = Int32(logits.indices.max { logits[$0] < logits[$1] }!)
                    history.append(token)
                    logits = read(history, from: history.count - 1)
                }
                _ = api.llama_memory_seq_rm(memory, 0, -1, -1)
                identical.append(read(history, from: 0) == logits)
            }
            #expect(identical == [true, false], "bit-identical on the batch-invariant context, then on llama.cpp's default: \(identical)")
        }

        @Test func aReproducibleContextIsBatchInvariantAndAnOrdinaryOneIsNot() async throws {
            let runtime = RunAnywhereRuntime(
                configuration: RuntimeConfiguration(
                    modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: try TestEnvironment.temporaryDirectory()
                ))
            let model = try runtime.model(id: RunAnywhere.defaultModelID)
            for (options, invariant) in [(Self.load, true), (ModelLoadOptions(contextLength: 512, threads: 1), false)] {
                let service = try #require(
                    try await LlamaCppAdapter().loadLanguageModel(model, options: options, logger: Logger(label: "test"))
                        as? LlamaCppService)
                #expect(service.llama.batchInvariant == invariant && service.llama.reproducible == options.reproducible)
                await service.unload()
            }
        }

        /// The other process is short (one 20-token answer) and runs under this suite's lane only:
        /// taking the process lane as well while holding this one would deadlock against a suite
        /// waiting for every lane.
        @Test func greedyAndSeededAnswersAreTheSameAloneAmongSevenOthersAndInAnotherProcess() async throws {
            let runtime = try await makeRuntime(load: false)
            let raw = "The three primary colours are"
            let reproducible: [(String, LLMGenerationOptions)] = [
                ("Name three colours.", greedy(20)), (longPrompt, greedy(20)), (raw, greedy(20, raw: true)),
                ("What is the capital of Italy?", Batching.sampled(seed: 99)),
            ]
            var alone: [String] = []
            for (prompt, options) in reproducible { alone.append(try await Self.answer(runtime, prompt, options).text) }
            let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, (prompt, options)) in reproducible.enumerated() {
                    group.addTask { (index, try await Self.answer(runtime, prompt, options).text) }
                }
                for (index, prompt) in ["Write a haiku about rain.", "Describe a forest.", "Say hello.", "Count to five."].enumerated() {
                    group.addTask { (100 + index, try await Self.answer(runtime, prompt, Batching.sampled(seed: nil)).text) }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            for index in reproducible.indices {
                #expect(!alone[index].isEmpty && together[index] == alone[index], "request \(index) answered differently among 7 others")
            }
            // Another process with an empty cache: `runanywhere generate --reproducible`.
            let data = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: data) }
            let output = try Self.run(
                [
                    "generate", "--raw", "--json", "--reproducible", "--temperature", "0", "--max-tokens", "20", "--threads", "1",
                    "--context-length", "512", raw,
                ],
                environment: ["RUNANYWHERE_DATA": data.path]
            )
            let text = try #require(JSONSerialization.jsonObject(with: output) as? [String: Any])["text"] as? String
            #expect(text == alone[2], "another process answered \(text ?? "nothing"), this one \(alone[2])")
        }

        /// A greedy chat turn reuses the previous turn's prompt and answer from the cache, and
        /// answers exactly what a fresh model answers to the whole history read as a prompt.
        @Test func aGreedyTurnReusesTheAnswerBeforeItAndAnswersAsAFreshModelDoes() async throws {
            let runtime = try await makeRuntime(load: false)
            // Long enough that the history read afresh puts the answer in a full prompt chunk.
            let first = longPrompt + "\nQuestion: What colour is the sky?\nAnswer:"
            let turn = try await Self.answer(runtime, first, greedy(16, raw: true))
            let second = first + turn.text + "\nQuestion: What colour is grass?\nAnswer:"
            let cached = try await Self.answer(runtime, second, greedy(48, raw: true))
            #expect(
                cached.cachedInputTokens > turn.inputTokens,
                "only \(cached.cachedInputTokens) of the history was reused (the first prompt had \(turn.inputTokens))")

            let fresh = try await Self.answer(try await makeRuntime(load: false), second, greedy(48, raw: true))
            #expect(fresh.cachedInputTokens == 0 && fresh.text == cached.text, "fresh \(fresh.text) vs cached \(cached.text)")
        }

        /// Without the promise, greedy requests share the batch and reuse any cached prefix, as
        /// randomly sampled ones do.
        @Test func anOrdinaryGreedyRequestReusesTheWholeCommonPrefix() async throws {
            let load = ModelLoadOptions(contextLength: 512, threads: 1, parallel: 2, queueLimit: 0)
            let runtime = try await makeRuntime(load: false)
            let first = try await Self.answer(runtime, longPrompt, greedy(4), load: load)
            let second = try await Self.answer(runtime, longPrompt, greedy(4), load: load)
            #expect(second.cachedInputTokens == first.inputTokens - 1, "\(second.cachedInputTokens) of \(first.inputTokens) reused")
        }

        /// The built `runanywhere` beside the test bundle, run with `arguments`; its standard output.
        static func run(_ arguments: [String], environment: [String: String]) throws -> Data {
            let executable = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            let process = Process()
            process.executableURL = executable.deletingLastPathComponent().appendingPathComponent("runanywhere")
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw SDKError(.generationFailed, "runanywhere \(arguments.first ?? "") exited with \(process.terminationStatus)")
            }
            return data
        }
    }
}
