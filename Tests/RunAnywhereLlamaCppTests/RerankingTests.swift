import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Reranking through the model cache on llama.cpp's rank pooling. No reranker weights can be
/// installed here, so the model is a generated fixture (``GGUFWriter/rerankerFixture(seed:context:pooling:classifier:)``:
/// a tiny BERT cross-encoder with seeded random weights): the real code path (pairs built as
/// llama.cpp's server builds them, packed calls, the classifier head's score), whose scores are
/// noise, not relevance.
extension LlamaTests {
    @Suite struct Reranking {
        static let query = "where is the cat"
        static let documents = [
            "the cat sat on the mat", "paris is the capital of france", "rain on the river", "the dog sleeps", "tea in the city",
        ]
        static let fixtureID = "reranker-fixture"

        /// A runtime over a private models folder holding the fixture (id ``fixtureID``, a reranker).
        static func makeFixtureRuntime() async throws -> RunAnywhereRuntime {
            let runtime = try await makeRuntime(load: false, models: TestEnvironment.temporaryDirectory("models"))
            try register(GGUFWriter.rerankerFixture(), id: fixtureID, category: .reranking, in: runtime)
            return runtime
        }

        /// Writes `fixture` into `runtime`'s models folder and registers it as `id`, a `category` model.
        static func register(_ fixture: GGUFWriter, id: String, category: ModelCategory, in runtime: RunAnywhereRuntime) throws {
            let file = runtime.configuration.modelsDirectory.appendingPathComponent("\(id).gguf")
            try fixture.write(to: file)
            try runtime.registerModel(id: id, name: id, url: file, framework: .llamaCpp, modality: category)
        }

        let options = RerankOptions(threads: 1)

        @Test func everyDocumentGetsAScoreAndTheyComeBestFirst() async throws {
            let runtime = try await Self.makeFixtureRuntime()
            defer { try? FileManager.default.removeItem(at: runtime.configuration.modelsDirectory) }
            let result = try await runtime.rerank(query: Self.query, documents: Self.documents, model: Self.fixtureID, options: options)
            #expect(result.modelId == Self.fixtureID && result.results.count == Self.documents.count)
            #expect(result.results.map(\.index).sorted() == Array(Self.documents.indices))
            #expect(result.results.allSatisfy { $0.document == Self.documents[$0.index] && $0.score.isFinite })
            #expect(zip(result.results, result.results.dropFirst()).allSatisfy { $0.score >= $1.score }, "\(result.results.map(\.score))")
            #expect(Set(result.results.map(\.score)).count > 1, "the classifier head scores each pair: \(result.results.map(\.score))")
            // [CLS] where is the cat [SEP] the cat sat on the mat [SEP]
            #expect(result.results.first { $0.index == 0 }?.tokens == 13)
            #expect(result.totalTokens == result.results.map(\.tokens).reduce(0, +) && result.latencyMs > 0)
            let top = try await runtime.rerank(
                query: Self.query, documents: Self.documents, model: Self.fixtureID, options: RerankOptions(topN: 2, threads: 1))
            #expect(top.results.map(\.index) == result.results.prefix(2).map(\.index))
            #expect(top.totalTokens == result.totalTokens, "every pair was scored")
            let more = try await runtime.rerank(
                query: Self.query, documents: Self.documents, model: Self.fixtureID, options: RerankOptions(topN: 99, threads: 1))
            #expect(more.results.count == Self.documents.count)
            await runtime.unloadAllModels()
        }

        /// Pairs packed into one call, or split over several, score as they do alone: close, not
        /// bit-exact (the attention of a packed call runs over more, masked, positions). With flash
        /// attention (the default) llama.cpp keeps keys and values in F16, which moves a score by
        /// up to about 1e-3; without it, by float rounding.
        @Test(arguments: [(ModelLoadOptions.FlashAttention.auto, 2e-3), (.disabled, 1e-4)])
        func aPairScoresTheSameAloneAndInABatch(flashAttention: ModelLoadOptions.FlashAttention, tolerance: Double) async throws {
            let runtime = try await Self.makeFixtureRuntime()
            defer { try? FileManager.default.removeItem(at: runtime.configuration.modelsDirectory) }
            let load = ModelLoadOptions(threads: 1, flashAttention: flashAttention)
            // About 13 tokens a pair: 30 pairs take more than the fixture's 128-token context, so several calls.
            let many = (0..<30).map { "\(Self.documents[$0 % Self.documents.count]) \($0)" }
            let together = try await runtime.rerank(
                query: Self.query, documents: many, model: Self.fixtureID, options: options, loadOptions: load)
            #expect(together.totalTokens > 128)
            for index in [0, 1, 14, 29] {
                let alone = try await runtime.rerank(
                    query: Self.query, documents: [many[index]], model: Self.fixtureID, options: options, loadOptions: load
                ).results[0]
                let packed = try #require(together.results.first { $0.index == index })
                #expect(abs(alone.score - packed.score) <= tolerance, "document \(index): \(alone.score) alone, \(packed.score) packed")
                #expect(alone.tokens == packed.tokens)
            }
            await runtime.unloadAllModels()
        }

        @Test func aPairOverTheContextIsRefusedUnlessTruncationIsAsked() async throws {
            let runtime = try await Self.makeFixtureRuntime()
            defer { try? FileManager.default.removeItem(at: runtime.configuration.modelsDirectory) }
            let long = String(repeating: "cat ", count: 200)
            await expectSDKError(.contextTooLong, ["Document 1 makes a pair of 207 tokens", "at most 128", "truncation"]) {
                _ = try await runtime.rerank(query: Self.query, documents: ["the mat", long], model: Self.fixtureID, options: options)
            }
            let truncated = try await runtime.rerank(
                query: Self.query, documents: ["the mat", long], model: Self.fixtureID, options: RerankOptions(truncate: true, threads: 1)
            )
            #expect(truncated.results.first { $0.index == 1 }?.tokens == 128)
            // The same as the document cut by hand to what fits: 128 - 7 tokens of the query's frame.
            let fitting = try await runtime.rerank(
                query: Self.query, documents: [String(repeating: "cat ", count: 121)], model: Self.fixtureID, options: options)
            let cut = try #require(truncated.results.first { $0.index == 1 })
            #expect(fitting.results[0].tokens == 128 && abs(fitting.results[0].score - cut.score) <= 1e-4 * max(1, abs(cut.score)))
            await expectSDKError(.contextTooLong, ["The query takes 203 tokens", "no room for a document"]) {
                _ = try await runtime.rerank(
                    query: long, documents: ["the mat"], model: Self.fixtureID, options: RerankOptions(truncate: true, threads: 1))
            }
            await runtime.unloadAllModels()
        }

        @Test func badInputIsRefusedBeforeAnyWork() async throws {
            let runtime = try await makeRuntime(load: false, models: TestEnvironment.temporaryDirectory("models"))
            defer { try? FileManager.default.removeItem(at: runtime.configuration.modelsDirectory) }
            await expectSDKError(
                .modelNotDownloaded, ["No reranker is downloaded", "models pull \(SDKConstants.Models.suggestedRerankerID)"]
            ) {
                _ = try await runtime.rerank(query: "q", documents: ["d"])
            }
            try Self.register(GGUFWriter.rerankerFixture(), id: Self.fixtureID, category: .reranking, in: runtime)
            await expectSDKError(.emptyInput, ["The query is empty"]) { _ = try await runtime.rerank(query: "", documents: ["d"]) }
            await expectSDKError(.emptyInput, ["no documents"]) { _ = try await runtime.rerank(query: "q", documents: []) }
            await expectSDKError(.emptyInput, ["Document 1 is empty"]) { _ = try await runtime.rerank(query: "q", documents: ["d", ""]) }
            await expectSDKError(.invalidInput, ["1025 documents", "at most 1024"]) {
                _ = try await runtime.rerank(query: "q", documents: Array(repeating: "d", count: 1025))
            }
            await expectSDKError(.invalidConfiguration, ["topN must be at least 1"]) {
                _ = try await runtime.rerank(query: "q", documents: ["d"], options: RerankOptions(topN: 0))
            }
            let language = try runtime.registerModel(
                id: "language", name: "language", url: try #require(TestEnvironment.defaultModelFile), framework: .llamaCpp,
                modality: .language
            )
            await expectSDKError(.modelIncompatible, ["is a language model, not a reranker"]) {
                _ = try await runtime.rerank(query: "q", documents: ["d"], model: language.id)
            }
            await expectSDKError(.modelNotFound, []) { _ = try await runtime.rerank(query: "q", documents: ["d"], model: "no-such-model") }
            #expect(await runtime.loadedModels().isEmpty, "nothing was loaded for the refusals")
        }

        /// A reranker is refused as an embedding model and an embedding model as a reranker, by
        /// what their GGUFs say; so is a rank-pooled GGUF with no classifier head to score with.
        @Test func theFileDecidesWhatAModelIs() async throws {
            let runtime = try await Self.makeFixtureRuntime()
            defer { try? FileManager.default.removeItem(at: runtime.configuration.modelsDirectory) }
            try Self.register(GGUFWriter.rerankerFixture(), id: "reranker-as-embedding", category: .embedding, in: runtime)
            await expectSDKError(.modelIncompatible, ["is a reranker (its GGUF pools by rank), not an embedding model"]) {
                _ = try await runtime.embed("q", model: "reranker-as-embedding")
            }
            try Self.register(GGUFWriter.rerankerFixture(pooling: 1), id: "mean-pooled", category: .reranking, in: runtime)
            await expectSDKError(.modelIncompatible, ["'mean-pooled' is not a reranker: its GGUF pools by mean (an embedding model)"]) {
                _ = try await runtime.rerank(query: "q", documents: ["d"], model: "mean-pooled")
            }
            try Self.register(GGUFWriter.rerankerFixture(classifier: false), id: "headless", category: .reranking, in: runtime)
            await expectSDKError(.invalidModelFormat, ["has no classifier head"]) {
                _ = try await runtime.rerank(query: "q", documents: ["d"], model: "headless")
            }
            #expect(await runtime.loadedModels().allSatisfy { $0.state != .loaded }, "none of them loaded")
            // With no model named, the downloaded reranker.
            let chosen = try await runtime.rerank(query: Self.query, documents: ["the mat"], options: options)
            #expect(chosen.modelId == Self.fixtureID)
            await runtime.unloadAllModels()
        }

        /// A GGUF's rerank template lays the pair out instead of BOS, EOS and SEP: one spelling
        /// BERT's own layout gives the same tokens and scores; one with no `{document}` is refused.
        @Test func theModelsRerankTemplateBuildsThePair() async throws {
            let runtime = try await Self.makeFixtureRuntime()
            defer { try? FileManager.default.removeItem(at: runtime.configuration.modelsDirectory) }
            try Self.register(
                GGUFWriter.rerankerFixture(rerankTemplate: "[CLS]{query}[SEP]{document}[SEP]"), id: "templated", category: .reranking,
                in: runtime)
            let plain = try await runtime.rerank(query: Self.query, documents: Self.documents, model: Self.fixtureID, options: options)
            let templated = try await runtime.rerank(query: Self.query, documents: Self.documents, model: "templated", options: options)
            #expect(
                templated.results.map(\.index) == plain.results.map(\.index)
                    && templated.results.map(\.tokens) == plain.results.map(\.tokens))
            #expect(
                zip(templated.results, plain.results).allSatisfy { abs($0.score - $1.score) <= 1e-6 },
                "\(templated.results) vs \(plain.results)")
            // The query's and the document's own text never become special tokens.
            let spelled = try await runtime.rerank(query: "[SEP]", documents: ["[CLS]"], model: "templated", options: options)
            #expect(spelled.results[0].tokens > 5, "[SEP] and [CLS] in the texts are spelled out: \(spelled.results[0].tokens) tokens")
            try Self.register(
                GGUFWriter.rerankerFixture(rerankTemplate: "{query} only"), id: "no-document", category: .reranking, in: runtime)
            await expectSDKError(.modelLoadFailed, ["rerank template has no {document}"]) {
                _ = try await runtime.rerank(query: "q", documents: ["d"], model: "no-document")
            }
            await runtime.unloadAllModels()
        }

        @Test func aHeldRerankerRanksAndIsUnloadedLikeEveryModel() async throws {
            let runtime = try await Self.makeFixtureRuntime()
            defer { try? FileManager.default.removeItem(at: runtime.configuration.modelsDirectory) }
            let handle = try await runtime.hold(Self.fixtureID, options: ModelLoadOptions(threads: 1))
            let held = try await handle.rerank(query: Self.query, documents: Self.documents, options: options)
            #expect(held.results.count == Self.documents.count && held.modelId == Self.fixtureID)
            let status = try #require(await runtime.loadedModels().first { $0.modelId == Self.fixtureID })
            #expect(status.state == .loaded && status.activeRequests == 1)
            await expectSDKError(.modelIncompatible, ["is a reranker, not an embedding model"]) { _ = try await handle.embed(["q"]) }
            await handle.release()
            await runtime.unloadModel(id: Self.fixtureID)
            #expect(await runtime.loadedModels().isEmpty)
        }
    }
}
