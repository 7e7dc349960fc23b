extension RunAnywhere {
    /// A RAG session over the collections in the data folder's `rag.sqlite`: ingest documents,
    /// ask questions answered from them with numbered sources (see ``RAGSession``).
    public static func ragSession() throws -> RAGSession {
        try runtime().ragSession()
    }

    /// Ingests the files `paths` (folders: their document files) into the collection
    /// `collection`: each document with its chunk count (``RAGSession/ingest(paths:collection:options:)``).
    public static func ingestDocuments(
        _ paths: [String], collection: String = RAGCollection.defaultName, options: RAGIngestOptions = RAGIngestOptions()
    ) async throws -> RAGIngestReport {
        try await ragSession().ingest(paths: paths, collection: collection, options: options)
    }

    /// Answers `question` from the collection `collection` with the current (or default) language
    /// model, streaming, the sources in the final result (``RAGSession/query(_:collection:topK:options:)``).
    public static func queryDocuments(
        _ question: String, collection: String = RAGCollection.defaultName, topK: Int = RAGQueryOptions.defaultTopK,
        options: RAGQueryOptions = RAGQueryOptions()
    ) async throws -> RAGAnswerEvents {
        try await ragSession().query(question, collection: collection, topK: topK, options: options)
    }

    /// Every RAG collection, by name.
    public static func listRAGCollections() async throws -> [RAGCollection] {
        try await ragSession().listCollections()
    }

    /// The documents of the RAG collection `collection`, by path.
    public static func listRAGDocuments(collection: String = RAGCollection.defaultName) async throws -> [RAGDocument] {
        try await ragSession().listDocuments(collection: collection)
    }

    /// Removes the document `path` from the RAG collection `collection`, with its vectors.
    public static func removeRAGDocument(_ path: String, collection: String = RAGCollection.defaultName) async throws {
        try await ragSession().removeDocument(path, collection: collection)
    }

    /// Removes the RAG collection `name`, with its documents and vectors.
    public static func removeRAGCollection(_ name: String) async throws {
        try await ragSession().removeCollection(name)
    }
}
