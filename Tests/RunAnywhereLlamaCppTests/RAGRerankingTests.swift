import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// RAG retrieval reranked: the real embedding model retrieves the cosine candidates and the
/// generated reranker fixture (``GGUFWriter/rerankerFixture(seed:context:pooling:classifier:rerankTemplate:)``,
/// whose scores are noise, not relevance) reranks them, so the mechanics are checked, not the
/// ranking's quality: how many candidates are read, the order and scores the sources keep, the
/// `topK` kept, a named model that is not a reranker refused, and reranking turned off.
extension LlamaTests {
    @Suite(.enabled(if: RAGCorpus.modelsInstalled, "needs the default embedding model: run scripts/setup --tests"))
    struct RAGReranking {
        static let question = RAGCorpus.questions[0].0

        @Test func theCandidatesAreRerankedAndTheTopKKeptInTheRerankersOrder() async throws {
            try await Self.withSession { session, runtime in
                let topK = 2
                let candidates = try await session.retrieve(
                    Self.question, collection: "corpus", topK: RAGReranker.candidates(for: topK), threads: 1, reranker: .off)
                #expect(
                    RAGReranker.candidates(for: topK) == 8 && candidates.count == 8,
                    "the corpus makes at least 8 chunks: \(candidates.count)")
                #expect(candidates.allSatisfy { $0.rerankScore == nil })

                // The fixture is the only reranker downloaded: it reranks by default.
                let reranked = try await session.retrieve(Self.question, collection: "corpus", topK: topK, threads: 1)
                let scores = reranked.compactMap(\.rerankScore)
                #expect(
                    reranked.count == topK && scores.count == topK && scores == scores.sorted(by: >),
                    "best first by the reranker: \(scores)")
                // Exactly the reranker's own ranking of the 8 cosine candidates, each with its cosine score kept.
                let direct = try await runtime.rerank(
                    query: Self.question, documents: candidates.map(\.text), model: LlamaTests.Reranking.fixtureID,
                    options: RerankOptions(truncate: true, threads: 1)
                )
                let expected = direct.results.prefix(topK).map { (source: candidates[$0.index], score: $0.score) }
                #expect(reranked.map(Self.place) == expected.map { Self.place($0.source) })
                #expect(
                    zip(reranked, expected).allSatisfy {
                        $0.score == $1.source.score && abs(($0.rerankScore ?? .nan) - $1.score) <= 1e-6 * max(1, abs($1.score))
                    })

                let named = try await session.retrieve(
                    Self.question, collection: "corpus", topK: topK, threads: 1, reranker: .model(LlamaTests.Reranking.fixtureID))
                #expect(named.map(Self.place) == reranked.map(Self.place))
                // More asked than the collection holds: every chunk is reranked and all are kept.
                let all = try await session.retrieve(Self.question, collection: "corpus", topK: 50, threads: 1)
                let every = try await session.retrieve(Self.question, collection: "corpus", topK: 50, threads: 1, reranker: .off)
                #expect(all.count == every.count && Set(all.map(Self.place)) == Set(every.map(Self.place)))
                #expect(
                    all.allSatisfy { $0.rerankScore != nil }
                        && all.map { $0.rerankScore ?? 0 } == all.map { $0.rerankScore ?? 0 }.sorted(by: >))
                await runtime.unloadAllModels()
            }
        }

        @Test func noneSkipsTheRerankerAndANamedModelMustBeOne() async throws {
            try await Self.withSession { session, runtime in
                let off = try await session.retrieve(Self.question, collection: "corpus", topK: 3, threads: 1, reranker: .off)
                let cosine = try await session.retrieve(Self.question, collection: "corpus", topK: 8, threads: 1, reranker: .off)
                #expect(off == Array(cosine.prefix(3)) && off.allSatisfy { $0.rerankScore == nil })
                #expect(off.map(\.score) == off.map(\.score).sorted(by: >))
                #expect(await !runtime.loadedModels().contains { $0.modelId == LlamaTests.Reranking.fixtureID }, "no reranker was loaded")

                await runtime.unloadAllModels()
                let embedding = SDKConstants.Models.defaultEmbeddingModelID
                await expectSDKError(.modelIncompatible, ["Model '\(embedding)' is an embedding model, not a reranker"]) {
                    _ = try await session.retrieve(Self.question, collection: "corpus", threads: 1, reranker: .model(embedding))
                }
                await expectSDKError(.modelNotFound, []) {
                    _ = try await session.retrieve(Self.question, collection: "corpus", threads: 1, reranker: .model("no-such-reranker"))
                }
                await expectSDKError(.modelIncompatible, ["not a reranker"]) {
                    _ = try await session.query(
                        Self.question, collection: "corpus", options: RAGQueryOptions(embeddingThreads: 1, reranker: .model(embedding)))
                }
                #expect(await runtime.loadedModels().isEmpty, "a bad reranker is refused before the question is embedded")
            }
        }

        @Test func theAnswerCarriesTheRerankerAndTheSourcesScores() async throws {
            try await Self.withSession { session, runtime in
                let answer = try await session.query(
                    Self.question, collection: "corpus", topK: 2,
                    options: RAGQueryOptions(
                        generation: greedy(4), model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions, embeddingThreads: 1
                    ))
                #expect(answer.reranker == LlamaTests.Reranking.fixtureID && answer.sources.count == 2)
                #expect(answer.sources.allSatisfy { $0.rerankScore != nil })
                let result = try await answer.result()
                #expect(result.reranker == LlamaTests.Reranking.fixtureID && result.sources == answer.sources)

                let plain = try await session.query(
                    Self.question, collection: "corpus", topK: 2,
                    options: RAGQueryOptions(
                        generation: greedy(4), model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions, embeddingThreads: 1,
                        reranker: .off
                    ))
                plain.cancel()
                let unranked = try await plain.result()
                #expect(unranked.reranker == nil && unranked.sources.allSatisfy { $0.rerankScore == nil })
                await runtime.unloadAllModels()
            }
        }

        @Test func aRerankerIsNamedOrTurnedOffByName() throws {
            #expect(try RAGReranker(parsing: "none") == .off)
            #expect(try RAGReranker(parsing: "Off") == .off)
            #expect(try RAGReranker(parsing: "auto") == .automatic)
            #expect(try RAGReranker(parsing: "jina-reranker-v1-tiny-en") == .model("jina-reranker-v1-tiny-en"))
            #expect(throws: SDKError.self) { try RAGReranker(parsing: "") }
            #expect(RAGReranker.candidates(for: 1) == 4 && RAGReranker.candidates(for: 25) == 100)
            #expect(RAGReranker.candidates(for: 40) == 100 && RAGReranker.candidates(for: 100) == 100)
        }

        /// Where a source comes from: its document and chunk.
        static func place(_ source: RAGSource) -> String {
            "\(source.documentPath)#\(source.ordinal)"
        }

        /// A session over a private models folder that links the installed embedding and
        /// language models and holds the reranker fixture, with the corpus ingested (1 thread)
        /// into the collection `corpus`.
        static func withSession(_ body: (RAGSession, RunAnywhereRuntime) async throws -> Void) async throws {
            let models = try TestEnvironment.temporaryDirectory("models")
            defer { try? FileManager.default.removeItem(at: models) }
            for id in [SDKConstants.Models.defaultEmbeddingModelID, RunAnywhere.defaultModelID] {
                try FileManager.default.createSymbolicLink(
                    at: models.appendingPathComponent(id),
                    withDestinationURL: TestEnvironment.installedModelsDirectory.appendingPathComponent(id)
                )
            }
            let runtime = try await makeRuntime(load: false, models: models)
            defer { try? FileManager.default.removeItem(at: runtime.configuration.dataDirectory) }
            try LlamaTests.Reranking.register(
                GGUFWriter.rerankerFixture(), id: LlamaTests.Reranking.fixtureID, category: .reranking, in: runtime)
            let folder = try TestEnvironment.temporaryDirectory("corpus")
            defer { try? FileManager.default.removeItem(at: folder) }
            for (name, text) in RAGCorpus.files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
            let session = runtime.ragSession(chunker: TextChunker(size: 160, overlap: 30))
            _ = try await session.ingest(paths: [folder.path], collection: "corpus", options: RAGIngestOptions(threads: 1))
            try await body(session, runtime)
        }
    }
}
