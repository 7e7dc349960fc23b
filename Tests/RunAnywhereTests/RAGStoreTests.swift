import Foundation
import Logging
import RunAnywhere
import RunAnywherePostgres
import RunAnywhereTestSupport
import Testing

/// What every RAG store keeps (replacing, removing, rolling back, refusing another model, ranking
/// by cosine), each a function of a store with vectors the tests write themselves: run on a real
/// SQLite file by ``RAGStoreTests`` and on a throwaway PostgreSQL cluster by ``PostgresRAGStoreTests``.
enum RAGStoreBehaviours {
    /// A document `path` whose chunks are `texts`, with `vectors`.
    static func document(_ path: String, _ texts: [String], _ vectors: [[Float]], sha: String = String(repeating: "a", count: 64))
        -> IngestedDocument
    {
        var offset = 0
        let chunks = texts.enumerated().map { index, text in
            defer { offset += text.unicodeScalars.count + 1 }
            return TextChunk(ordinal: index, text: text, start: offset, end: offset + text.unicodeScalars.count)
        }
        let text = DocumentText(path: path, format: .plainText, text: texts.joined(separator: "\n"), size: offset, sha256: sha)
        return IngestedDocument(document: text, chunks: chunks, vectors: vectors)
    }

    static func storesAndRanksByCosineBestFirst(_ store: any RAGStore) async throws {
        let written = try await store.write(
            [
                document("/docs/a.txt", ["east", "north-east"], [[1, 0, 0], [1, 1, 0]]),
                document("/docs/b.txt", ["up", "west"], [[0, 0, 2], [-1, 0, 0]]),
            ], collection: "docs", embeddingModel: "m", dimensions: 3)
        #expect(written.map(\.document.chunkCount) == [2, 2] && written.allSatisfy { !$0.replaced })

        let sources = try await store.search([0.9, 0.1, 0], collection: "docs", topK: 3)
        #expect(sources.map(\.text) == ["east", "north-east", "up"])
        #expect(abs(sources[0].score - 0.9 / 0.82.squareRoot()) < 1e-6)
        #expect(abs(sources[1].score - 1.0 / (0.82.squareRoot() * 2.squareRoot())) < 1e-6)
        #expect(sources[2].score == 0 && sources[0].documentPath == "/docs/a.txt" && sources[1].ordinal == 1)
        #expect(sources[1].start == 5 && sources[1].end == 15)
        #expect(try await store.search([-1, 0, 0], collection: "docs", topK: 10).map(\.text) == ["west", "up", "north-east", "east"])

        let collection = try #require(try await store.collections().first)
        #expect(collection.name == "docs" && collection.embeddingModelId == "m" && collection.dimensions == 3)
        #expect(collection.documentCount == 2 && collection.chunkCount == 4)
        #expect(try await store.documents(in: "docs").map(\.path) == ["/docs/a.txt", "/docs/b.txt"])

        await expectSDKError(.fileNotFound, ["'nope'"]) { _ = try await store.search([1, 0, 0], collection: "nope", topK: 1) }
        await expectSDKError(.modelIncompatible, ["3 dimensions"]) { _ = try await store.search([1, 0], collection: "docs", topK: 1) }
    }

    static func ingestingAgainReplacesTheDocumentsChunks(_ store: any RAGStore) async throws {
        _ = try await store.write(
            [document("/a.md", ["one", "two"], [[1, 0], [0, 1]]), document("/b.md", ["bee"], [[1, 1]])],
            collection: "c", embeddingModel: "m", dimensions: 2)
        let again = try await store.write(
            [document("/a.md", ["uno", "dos", "tres"], [[1, 0], [0, 1], [1, 1]], sha: String(repeating: "b", count: 64))],
            collection: "c", embeddingModel: "m", dimensions: 2)
        #expect(again.first?.replaced == true)
        let documents = try await store.documents(in: "c")
        #expect(documents.map(\.path) == ["/a.md", "/b.md"] && documents.map(\.chunkCount) == [3, 1])
        #expect(documents[0].sha256 == String(repeating: "b", count: 64))
        #expect(try await store.chunkRowCount() == 4, "the old chunks are gone, not kept beside the new")
        let texts = try await store.search([1, 0], collection: "c", topK: 10).map(\.text)
        #expect(Set(texts) == ["uno", "dos", "tres", "bee"])
    }

    static func removingADocumentOrACollectionRemovesItsVectors(_ store: any RAGStore) async throws {
        _ = try await store.write(
            [document("/a.md", ["one", "two"], [[1, 0], [0, 1]]), document("/b.md", ["bee"], [[1, 1]])],
            collection: "c", embeddingModel: "m", dimensions: 2)
        _ = try await store.write([document("/a.md", ["other"], [[1, 0]])], collection: "d", embeddingModel: "m", dimensions: 2)
        #expect(try await store.chunkRowCount() == 4)

        try await store.removeDocument(path: "/a.md", collection: "c")
        #expect(try await store.chunkRowCount() == 2)
        #expect(try await store.search([1, 0], collection: "c", topK: 10).map(\.text) == ["bee"])
        #expect(try await store.documents(in: "d").map(\.path) == ["/a.md"], "the other collection's document of that path stays")
        await expectSDKError(.fileNotFound, ["'c'", "/a.md"]) { try await store.removeDocument(path: "/a.md", collection: "c") }

        try await store.removeCollection("c")
        #expect(try await store.chunkRowCount() == 1)
        #expect(try await store.collections().map(\.name) == ["d"])
        await expectSDKError(.fileNotFound, ["'c'"]) { _ = try await store.documents(in: "c") }
        await expectSDKError(.fileNotFound, ["'c'"]) { try await store.removeCollection("c") }
    }

    static func aFailedWriteLeavesTheCollectionAsItWas(_ store: any RAGStore) async throws {
        _ = try await store.write(
            [document("/a.md", ["one", "two"], [[1, 0], [0, 1]])], collection: "c", embeddingModel: "m", dimensions: 2)
        let before = try await store.documents(in: "c")
        // The first document is written (replacing /a.md) before the second, with a vector too short, fails.
        await expectSDKError(.invalidInput, ["/b.md", "not 2 finite"]) {
            _ = try await store.write(
                [document("/a.md", ["new"], [[1, 1]]), document("/b.md", ["bee", "bad"], [[1, 0], [1]])],
                collection: "c", embeddingModel: "m", dimensions: 2)
        }
        await expectSDKError(.invalidInput, ["/b.md", "not 2 finite"]) {
            _ = try await store.write([document("/b.md", ["nan"], [[.nan, 0]])], collection: "c", embeddingModel: "m", dimensions: 2)
        }
        await expectSDKError(.invalidInput, ["/b.md", "2 chunks but 1 vectors"]) {
            _ = try await store.write([document("/b.md", ["x", "y"], [[1, 0]])], collection: "c", embeddingModel: "m", dimensions: 2)
        }
        #expect(try await store.documents(in: "c") == before)
        #expect(try await store.search([1, 0], collection: "c", topK: 10).map(\.text) == ["one", "two"])
        #expect(try await store.chunkRowCount() == 2)

        // A new collection whose first write fails is not made.
        await expectSDKError(.invalidInput, ["/z.md"]) {
            _ = try await store.write([document("/z.md", ["z"], [[1]])], collection: "new", embeddingModel: "m", dimensions: 2)
        }
        #expect(try await store.collections().map(\.name) == ["c"])
    }

    static func aCollectionRefusesAnotherEmbeddingModel(_ store: any RAGStore) async throws {
        _ = try await store.write(
            [document("/a.md", ["one"], [[1, 0]])], collection: "c", embeddingModel: "all-minilm-l6-v2", dimensions: 2)
        await expectSDKError(.modelIncompatible, ["'c'", "'all-minilm-l6-v2'", "'nomic-embed-text'"]) {
            _ = try await store.write(
                [document("/b.md", ["b"], [[1, 0]])], collection: "c", embeddingModel: "nomic-embed-text", dimensions: 2)
        }
        await expectSDKError(.modelIncompatible, ["2 dimensions", "makes 3"]) {
            _ = try await store.write(
                [document("/b.md", ["b"], [[1, 0, 0]])], collection: "c", embeddingModel: "all-minilm-l6-v2", dimensions: 3)
        }
        #expect(try await store.documents(in: "c").map(\.path) == ["/a.md"])
    }

    static func opensAPassageAndNamesWhatIsMissing(_ store: any RAGStore) async throws {
        _ = try await store.write(
            [document("/a.md", ["one", "two", "three"], [[1, 0], [0, 1], [1, 1]])], collection: "c", embeddingModel: "m", dimensions: 2)
        let passage = try await store.passage(document: "/a.md", ordinal: 1, collection: "c")
        #expect(
            passage == RAGPassage(collection: "c", documentPath: "/a.md", ordinal: 1, documentChunkCount: 3, text: "two", start: 4, end: 7))
        await expectSDKError(.fileNotFound, ["no chunk 3", "it has 3"]) {
            _ = try await store.passage(document: "/a.md", ordinal: 3, collection: "c")
        }
        await expectSDKError(.fileNotFound, ["no document /b.md"]) {
            _ = try await store.passage(document: "/b.md", ordinal: 0, collection: "c")
        }
        await expectSDKError(.fileNotFound, ["'d'"]) { _ = try await store.passage(document: "/a.md", ordinal: 0, collection: "d") }
    }
}

/// The RAG store on a real SQLite file.
struct RAGStoreTests {
    func withStore<T>(_ body: (SQLiteRAGStore, URL) async throws -> T) async throws -> T {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        return try await body(SQLiteRAGStore(url: folder.appendingPathComponent("rag.sqlite"), logger: Logger(label: "test")), folder)
    }

    func document(_ path: String, _ texts: [String], _ vectors: [[Float]]) -> IngestedDocument {
        RAGStoreBehaviours.document(path, texts, vectors)
    }

    @Test func storesAndRanksByCosineBestFirst() async throws {
        try await withStore { store, _ in try await RAGStoreBehaviours.storesAndRanksByCosineBestFirst(store) }
    }

    @Test func ingestingAgainReplacesTheDocumentsChunks() async throws {
        try await withStore { store, _ in try await RAGStoreBehaviours.ingestingAgainReplacesTheDocumentsChunks(store) }
    }

    @Test func removingADocumentOrACollectionRemovesItsVectors() async throws {
        try await withStore { store, _ in try await RAGStoreBehaviours.removingADocumentOrACollectionRemovesItsVectors(store) }
    }

    @Test func aFailedWriteLeavesTheCollectionAsItWas() async throws {
        try await withStore { store, _ in try await RAGStoreBehaviours.aFailedWriteLeavesTheCollectionAsItWas(store) }
    }

    @Test func aCollectionRefusesAnotherEmbeddingModel() async throws {
        try await withStore { store, _ in try await RAGStoreBehaviours.aCollectionRefusesAnotherEmbeddingModel(store) }
    }

    @Test func opensAPassageAndNamesWhatIsMissing() async throws {
        try await withStore { store, _ in try await RAGStoreBehaviours.opensAPassageAndNamesWhatIsMissing(store) }
    }

    @Test func validatesCollectionNames() async throws {
        for name in ["", "a/b", ".hidden", "-x", "two words", "ü", String(repeating: "x", count: 65), "../up"] {
            #expect(throws: SDKError.self, "\(name)") { try RAGCollection.validateName(name) }
        }
        for name in ["default", "docs_v1.2-x", String(repeating: "x", count: 64)] {
            #expect(throws: Never.self) { try RAGCollection.validateName(name) }
        }
        try await withStore { store, _ in
            await expectSDKError(.invalidInput, ["Invalid collection name"]) {
                _ = try await store.write([document("/a.md", ["a"], [[1]])], collection: "a b", embeddingModel: "m", dimensions: 1)
            }
        }
    }

    @Test func readingCreatesNoFileAndADamagedFileIsAClearError() async throws {
        try await withStore { store, _ in
            #expect(try await store.collections().isEmpty)
            #expect(try await store.collection(named: "c") == nil)
            #expect(!FileManager.default.fileExists(atPath: store.url.path))
            await expectSDKError(.fileNotFound, ["'c'"]) { _ = try await store.documents(in: "c") }

            try Data(repeating: 0x5A, count: 4096).write(to: store.url)
            await expectSDKError(.modelStorageCorrupted, [store.url.path, "damaged"]) { _ = try await store.collections() }
            await expectSDKError(.modelStorageCorrupted, ["damaged"]) {
                _ = try await store.write([document("/a.md", ["a"], [[1]])], collection: "c", embeddingModel: "m", dimensions: 1)
            }
            #expect(try Data(contentsOf: store.url) == Data(repeating: 0x5A, count: 4096), "the damaged file is left as it was")
        }
    }
}
