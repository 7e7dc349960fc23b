import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// RAG over a small real corpus with the real models: all-MiniLM-L6-v2 retrieves, the default
/// language model answers (1 thread, a few tokens; its words are never checked, only the shape of
/// the answer and its sources).
extension LlamaTests {
    @Suite(.enabled(if: RAGCorpus.modelsInstalled, "needs the default embedding model: run scripts/setup --tests"))
    struct RAG {
        @Test func retrievalRanksTheRightPassageFirst() async throws {
            try await RAGCorpus.withSession { session, folder in
                let report = try await session.ingest(paths: [folder.path], collection: "corpus", options: RAGIngestOptions(threads: 1))
                #expect(
                    report.embeddingModelId == SDKConstants.Models.defaultEmbeddingModelID
                        && report.documents.count == RAGCorpus.files.count)
                #expect(report.documents.allSatisfy { !$0.replaced && $0.chunkCount >= 1 })
                #expect(report.documents.contains { $0.chunkCount > 1 }, "the small chunk size splits the longer documents")
                let collection = try #require(try await session.listCollections().first)
                #expect(collection.dimensions == 384 && collection.documentCount == RAGCorpus.files.count)

                for (question, file, phrase) in RAGCorpus.questions {
                    let sources = try await session.retrieve(question, collection: "corpus", topK: 3, threads: 1)
                    #expect(sources.count == 3)
                    #expect(sources.map(\.score) == sources.map(\.score).sorted(by: >), "best first")
                    let best = try #require(sources.first)
                    #expect(
                        best.documentPath.hasSuffix("/" + file) && best.text.contains(phrase),
                        "\(question): \(best.documentPath) \(best.text)")
                    let text = try String(contentsOf: URL(fileURLWithPath: best.documentPath), encoding: .utf8)
                    if !file.hasSuffix(".html") {
                        // The offsets point at the passage in the file's own text.
                        let scalars = Array(text.unicodeScalars)
                        #expect(String(String.UnicodeScalarView(scalars[best.start..<best.end])) == best.text)
                    }
                }

                // The same file again, changed: its chunks are replaced, not added to.
                let cats = folder.appendingPathComponent("cats.md")
                try Data("# Cats\n\nCats purr at twenty-five to one hundred and fifty hertz.".utf8).write(to: cats)
                let again = try await session.ingest(paths: [cats.path], collection: "corpus", options: RAGIngestOptions(threads: 1))
                #expect(again.documents.map(\.replaced) == [true] && again.documents.map(\.chunkCount) == [1])
                let documents = try await session.listDocuments(collection: "corpus")
                #expect(documents.count == RAGCorpus.files.count && documents.first { $0.path == cats.path }?.chunkCount == 1)
                let purr = try await session.retrieve("At what frequency do cats purr?", collection: "corpus", topK: 10, threads: 1)
                #expect(purr.first?.text.contains("hertz") == true)
                #expect(!purr.contains { $0.text.contains("clowder") }, "the old passages are gone")

                try await session.removeDocument(cats.path, collection: "corpus")
                #expect(
                    try await session.retrieve("cats purring", collection: "corpus", topK: 100, threads: 1).allSatisfy {
                        !$0.documentPath.hasSuffix("cats.md")
                    })
            }
        }

        @Test func answersThroughTheChatPipelineWithNumberedSources() async throws {
            try await RAGCorpus.withSession { session, folder in
                _ = try await session.ingest(paths: [folder.path], collection: "corpus", options: RAGIngestOptions(threads: 1))
                let (question, file, _) = RAGCorpus.questions[1]
                let answer = try await session.query(
                    question, collection: "corpus", topK: 2,
                    options: RAGQueryOptions(
                        generation: greedy(8), model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions, embeddingThreads: 1
                    ))
                #expect(answer.sources.count == 2 && answer.sources[0].documentPath.hasSuffix("/" + file))
                var pieces: [String] = []
                var final: RAGAnswer?
                for try await event in answer {
                    switch event {
                    case .text(let text): pieces.append(text)
                    case .reasoning, .toolCall, .logprobs, .promptLogprobs: break
                    case .completed(let result): final = answer.answer(result)
                    }
                }
                let result = try #require(final)
                #expect(result.sources == answer.sources && result.collection == "corpus")
                #expect(result.text == pieces.joined() && !result.text.isEmpty)
                #expect(result.generation.modelUsed == RunAnywhere.defaultModelID && (1...8).contains(result.generation.tokensUsed))
                #expect(result.generation.inputTokens > 60, "the prompt holds the sources: \(result.generation.inputTokens) tokens")
            }
        }
    }
}

/// The corpus: four documents on unrelated subjects, in the three formats, and questions whose
/// answer only one of them holds.
enum RAGCorpus {
    static var modelsInstalled: Bool {
        let id = SDKConstants.Models.defaultEmbeddingModelID
        return TestEnvironment.engineInstalled
            && FileManager.default.fileExists(
                atPath: TestEnvironment.installedModelsDirectory.appendingPathComponent("\(id)/\(id).gguf").path)
    }

    static let files = [
        "cats.md": """
        # Cats

        Cats sleep for twelve to sixteen hours a day. A group of cats is called a clowder.

        ## Paws and whiskers

        Cats have five toes on their front paws and four on the back ones. A cat's whiskers are about as wide as its body.
        """,
        "bread.html": """
        <!doctype html><html><head><title>Sourdough</title><script>track("visit")</script></head><body>
        <h1>Baking sourdough bread</h1>
        <p>A sourdough starter is flour and water fermented by wild yeast and lactic acid bacteria; feed it every day.</p>
        <p>Bake the loaf in a hot oven at 230 &deg;C for about forty minutes, with steam for the first twenty.</p>
        </body></html>
        """,
        "saturn.txt": """
        Saturn is the sixth planet from the Sun and the second largest in the Solar System.
        Its rings are made mostly of ice particles, with a smaller amount of rock and dust.
        A day on Saturn lasts about ten and a half hours. Titan is the largest of its many moons.
        """,
        "bicycle.md": """
        Fixing a flat bicycle tyre: take the wheel off, lever the tyre from the rim and pull out the inner tube.
        Find the puncture, roughen the rubber around it, apply glue and press a patch on it. Refit the tube and pump it up.
        """,
    ]

    /// Each question, the file holding its answer, and a phrase of the passage that answers it.
    static let questions = [
        ("How many hours a day do cats sleep?", "cats.md", "twelve to sixteen hours"),
        ("At what temperature should sourdough bread be baked?", "bread.html", "230"),
        ("What are the rings of Saturn made of?", "saturn.txt", "ice particles"),
        ("How do I repair a punctured inner tube?", "bicycle.md", "patch"),
    ]

    /// A session over a new data folder (chunks of 160 characters, 30 of overlap, so that the
    /// longer documents make several), with the corpus written to a folder of its own.
    static func withSession(_ body: (RAGSession, URL) async throws -> Void) async throws {
        let runtime = try await makeRuntime(load: false)
        let folder = try TestEnvironment.temporaryDirectory("corpus")
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: runtime.configuration.dataDirectory)
        }
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        try await body(runtime.ragSession(chunker: TextChunker(size: 160, overlap: 30)), folder.standardizedFileURL)
    }
}
