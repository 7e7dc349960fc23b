import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// A RAG session's checks that come before any model runs: a bad file in a batch, another
/// embedding model, bad questions. (Retrieval and answers with the real models are in
/// RunAnywhereLlamaCppTests' RAGTests.)
struct RAGSessionTests {
    /// A session over a new data folder (no engines: nothing here may reach a model), with a
    /// collection "docs" holding `good.md` as made with the default embedding model (3 dimensions).
    func withSession(_ body: (RAGSession, SQLiteRAGStore, URL) async throws -> Void) async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder.appendingPathComponent("data")
            ))
        let session = runtime.ragSession(reader: DocumentReader(maxFileSize: 4096))
        #expect(session.database == folder.appendingPathComponent("data/rag.sqlite").path)
        let store = SQLiteRAGStore(url: URL(fileURLWithPath: session.database), logger: Logger(label: "test"))
        let good = folder.appendingPathComponent("good.md")
        try Data("# Good\n\nA good document.".utf8).write(to: good)
        let text = try DocumentReader().read(good)
        let chunks = try TextChunker().chunks(of: text.text)
        _ = try await store.write(
            [IngestedDocument(document: text, chunks: chunks, vectors: chunks.map { _ in [1, 0, 0] })],
            collection: "docs", embeddingModel: SDKConstants.Models.defaultEmbeddingModelID, dimensions: 3)
        try await body(session, store, folder)
    }

    @Test func aBadFileInABatchLeavesTheCollectionAsItWas() async throws {
        try await withSession { session, store, folder in
            let before = try await session.listDocuments(collection: "docs")
            let rows = try await store.chunkRowCount()
            let other = folder.appendingPathComponent("other.txt")
            try Data("Another document.".utf8).write(to: other)
            let good = folder.appendingPathComponent("good.md").path
            for (name, bytes, message) in [
                ("binary.txt", Data([0x68, 0x69, 0x00, 0x01]), "NUL byte"), ("huge.txt", Data(repeating: 0x61, count: 5000), "larger than"),
                ("paper.pdf", Data("%PDF-1.7".utf8), "PDF is not read here"), ("latin1.html", Data([0x3C, 0x70, 0x3E, 0xE9]), "not UTF-8"),
            ] {
                let bad = folder.appendingPathComponent(name)
                try bytes.write(to: bad)
                await expectSDKError(.invalidInput, [name, message]) {
                    _ = try await session.ingest(paths: [good, bad.path, other.path], collection: "docs")
                }
            }
            await expectSDKError(.fileNotFound, ["missing.md"]) {
                _ = try await session.ingest(paths: [other.path, folder.appendingPathComponent("missing.md").path], collection: "docs")
            }
            #expect(try await session.listDocuments(collection: "docs") == before)
            #expect(try await store.chunkRowCount() == rows)
            #expect(try await session.listCollections().map(\.name) == ["docs"], "no collection was made by a failed ingest")
        }
    }

    @Test func aCollectionRefusesAnotherEmbeddingModelBeforeEmbedding() async throws {
        try await withSession { session, _, folder in
            let good = folder.appendingPathComponent("good.md").path
            await expectSDKError(.modelIncompatible, ["'docs'", "'\(SDKConstants.Models.defaultEmbeddingModelID)'", "'nomic-embed-text'"]) {
                _ = try await session.ingest(
                    paths: [good], collection: "docs", options: RAGIngestOptions(embeddingModel: "nomic-embed-text"))
            }
            await expectSDKError(.modelIncompatible, ["'docs'", "'\(SDKConstants.Models.defaultEmbeddingModelID)'", "'nomic-embed-text'"]) {
                _ = try await session.query(
                    "What is good?", collection: "docs", options: RAGQueryOptions(embeddingModel: "nomic-embed-text"))
            }
        }
    }

    @Test func refusesBadQuestionsAndNames() async throws {
        try await withSession { session, _, folder in
            await expectSDKError(.invalidInput, ["topK must be 1 to 100"]) {
                _ = try await session.retrieve("q", collection: "docs", topK: 0)
            }
            await expectSDKError(.emptyInput, ["question is empty"]) { _ = try await session.retrieve(" \n", collection: "docs") }
            await expectSDKError(.fileNotFound, ["'none'"]) { _ = try await session.query("q", collection: "none") }
            await expectSDKError(.invalidInput, ["Invalid collection name"]) { _ = try await session.query("q", collection: "../x") }
            await expectSDKError(.invalidInput, ["takes no tools"]) {
                let tool = Tool(name: "f", description: "f")
                _ = try await session.query(
                    "q", collection: "docs", options: RAGQueryOptions(generation: LLMGenerationOptions(tools: [tool])))
            }
            await expectSDKError(.emptyInput, ["No documents"]) { _ = try await session.ingest(paths: [], collection: "docs") }
            let empty = folder.appendingPathComponent("empty")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            await expectSDKError(.emptyInput, ["has no documents"]) {
                _ = try await session.ingest(paths: [empty.path], collection: "docs")
            }
            let text = try DocumentReader().read(Data("x".utf8), path: "upload.txt")
            await expectSDKError(.invalidInput, ["given twice"]) {
                _ = try await session.ingest(documents: [text, text], collection: "docs")
            }
            await expectSDKError(.invalidConfiguration, ["overlap"]) {
                var chunked = session
                chunked.chunker = TextChunker(size: 100, overlap: 60)
                _ = try await chunked.ingest(documents: [text], collection: "docs")
            }
        }
    }
}
