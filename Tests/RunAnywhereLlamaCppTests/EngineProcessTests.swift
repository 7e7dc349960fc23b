import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// A runtime whose language, embedding and reranking models run in engine worker processes
/// (``EngineProcesses``, the `runanywhere engine-worker` built beside the tests): the default
/// models (and a generated reranker) answer as they do in this process, cancellation reaches the worker's engine, and a
/// worker that dies (a real abort() in it, or SIGKILL) fails only its request, after which the
/// model is loaded again.
extension LlamaTests {
    @Suite struct EngineProcess {
        /// A runtime over `models` (by default the installed ones) whose llama.cpp models run in workers.
        static func isolatedRuntime(models: URL = TestEnvironment.installedModelsDirectory) -> RunAnywhereRuntime {
            let runtime = EngineWorkers.runtime(models: models)
            runtime.frameworks.register(LlamaCppAdapter())
            return runtime
        }

        static func workers(holding model: String) -> [Int32] { EngineWorkers.holding(model) }

        static func answer(_ runtime: RunAnywhereRuntime, _ prompt: String, tokens: Int = 8) async throws -> LLMGenerationResult {
            let streaming = try await runtime.generateStream(
                prompt, context: nil, options: greedy(tokens), model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions
            )
            for try await _ in streaming.stream {}
            return try await streaming.result.value
        }

        @Test func aModelInAWorkerAnswersAsItDoesInThisProcess() async throws {
            let inProcess = try await makeRuntime(load: false)
            let isolated = Self.isolatedRuntime()
            let here = try await Self.answer(inProcess, "Name three colours.")
            await inProcess.unloadAllModels()
            let there = try await Self.answer(isolated, "Name three colours.")
            #expect(there.text == here.text, "greedy, alone, from a fresh context: the same tokens")
            #expect(there.tokensUsed == here.tokensUsed)
            #expect(there.inputTokens == here.inputTokens, "the prompt is planned with the worker's tokenizer and chat template")
            let pids = Self.workers(holding: RunAnywhere.defaultModelID)
            #expect(pids.count == 1, "one worker, its command line naming the model: \(pids)")
            await isolated.unloadModel(id: RunAnywhere.defaultModelID)
            #expect(Self.workers(holding: RunAnywhere.defaultModelID).isEmpty, "unloading the model ends its worker")
        }

        @Test func cancellingTheConsumerStopsTheWorkersEngine() async throws {
            let runtime = Self.isolatedRuntime()
            let streaming = try await runtime.generateStream(
                "1, 2, 3, 4, 5, 6,", context: nil, options: greedy(400, raw: true), model: RunAnywhere.defaultModelID,
                loadOptions: testLoadOptions
            )
            let result = try await cancelConsumer(of: streaming, after: 3)
            #expect(result.stopReason == .cancelled)
            #expect(result.tokensUsed < 40, "stopped after \(result.tokensUsed) tokens")
            let pid = Self.workers(holding: RunAnywhere.defaultModelID)
            #expect(try await Self.answer(runtime, "Say hello.", tokens: 4).tokensUsed > 0)
            #expect(Self.workers(holding: RunAnywhere.defaultModelID) == pid, "the same worker goes on")
            await runtime.unloadAllModels()
        }

        @Test(.enabled(if: EmbeddingModel.installed, "needs the default embedding model: run scripts/setup --tests"))
        func anEmbeddingModelInAWorkerEmbedsAsItDoesHereAndOutlivesACrash() async throws {
            let texts = ["A man is eating food.", "The girl is carrying a baby."]
            let inProcess = try await makeRuntime(load: false)
            let here = try await inProcess.embed(texts, options: EmbeddingOptions(threads: 1))
            await inProcess.unloadAllModels()
            let isolated = Self.isolatedRuntime()
            let there = try await isolated.embed(texts, options: EmbeddingOptions(threads: 1))
            #expect(there.embeddings == here.embeddings, "the same engine on the same texts: the same vectors, bit for bit")
            #expect(there.tokenCounts == here.tokenCounts && there.dimensions == here.dimensions)
            let first = Self.workers(holding: SDKConstants.Models.defaultEmbeddingModelID)
            #expect(first.count == 1, "one worker, named after the embedding model: \(first)")

            setenv("RUNANYWHERE_TEST_ENGINE_FAULTS", "1", 1)  // read by the workers started from here
            defer { unsetenv("RUNANYWHERE_TEST_ENGINE_FAULTS") }
            await isolated.unloadAllModels()
            let error = await #expect(throws: SDKError.self) {
                try await isolated.embed(["Hello", "[[engine-fault:abort]]"], options: EmbeddingOptions(threads: 1))
            }
            #expect(error?.code == .engineCrashed && error?.message.contains("SIGABRT") == true, "\(String(describing: error))")
            let again = try await isolated.embed(texts, options: EmbeddingOptions(threads: 1))
            #expect(again.embeddings == here.embeddings, "the model loaded again answers as before")
            await isolated.unloadAllModels()
            #expect(Self.workers(holding: SDKConstants.Models.defaultEmbeddingModelID).isEmpty)
        }

        @Test func aRerankerInAWorkerRanksAsItDoesHereAndOutlivesACrash() async throws {
            let (query, documents, id) = (Reranking.query, Reranking.documents, Reranking.fixtureID)
            let options = RerankOptions(threads: 1)
            let inProcess = try await Reranking.makeFixtureRuntime()
            defer { try? FileManager.default.removeItem(at: inProcess.configuration.modelsDirectory) }
            let here = try await inProcess.rerank(query: query, documents: documents, model: id, options: options)
            await inProcess.unloadAllModels()
            let isolated = Self.isolatedRuntime(models: try TestEnvironment.temporaryDirectory("models"))
            defer { try? FileManager.default.removeItem(at: isolated.configuration.modelsDirectory) }
            try Reranking.register(GGUFWriter.rerankerFixture(), id: id, category: .reranking, in: isolated)
            let there = try await isolated.rerank(query: query, documents: documents, model: id, options: options)
            #expect(there.results == here.results, "the same engine on the same pairs: the same scores, bit for bit")
            #expect(Self.workers(holding: id).count == 1, "one worker, named after the reranker")

            setenv("RUNANYWHERE_TEST_ENGINE_FAULTS", "1", 1)  // read by the workers started from here
            defer { unsetenv("RUNANYWHERE_TEST_ENGINE_FAULTS") }
            await isolated.unloadAllModels()
            let error = await #expect(throws: SDKError.self) {
                try await isolated.rerank(query: query, documents: ["[[engine-fault:segv]]"], model: id, options: options)
            }
            #expect(error?.code == .engineCrashed && error?.message.contains("SIGSEGV") == true, "\(String(describing: error))")
            #expect(try await isolated.rerank(query: query, documents: documents, model: id, options: options).results == here.results)
            await isolated.unloadAllModels()
            #expect(Self.workers(holding: id).isEmpty)
        }

        @Test func aWorkerThatDiesFailsItsRequestAndTheNextLoadsTheModelAgain() async throws {
            setenv("RUNANYWHERE_TEST_ENGINE_FAULTS", "1", 1)  // read by the workers this test starts
            defer { unsetenv("RUNANYWHERE_TEST_ENGINE_FAULTS") }
            let runtime = Self.isolatedRuntime()
            _ = try await Self.answer(runtime, "Hello", tokens: 2)
            let first = Self.workers(holding: RunAnywhere.defaultModelID)
            #expect(first.count == 1)

            let error = await #expect(throws: SDKError.self) { try await Self.answer(runtime, "Hello [[engine-fault:abort]]") }
            #expect(error?.code == .engineCrashed)
            for part in [RunAnywhere.defaultModelID, "SIGABRT", "restarted"] {
                #expect(error?.message.contains(part) == true, "the error names \(part): \(error?.message ?? "")")
            }
            #expect(try await Self.answer(runtime, "Hello", tokens: 2).tokensUsed > 0, "the next request loads the model again")
            let second = Self.workers(holding: RunAnywhere.defaultModelID)
            #expect(second.count == 1 && second != first, "in a new worker: \(first) then \(second)")

            // Killed while idle: the next request notices and loads it again.
            kill(try #require(second.first), SIGKILL)
            let deadline = ContinuousClock.now + .seconds(30)
            while Self.workers(holding: RunAnywhere.defaultModelID) == second, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await Self.answer(runtime, "Hello", tokens: 2).tokensUsed > 0)
            #expect(Self.workers(holding: RunAnywhere.defaultModelID).count == 1)
            await runtime.unloadAllModels()
        }
    }
}
