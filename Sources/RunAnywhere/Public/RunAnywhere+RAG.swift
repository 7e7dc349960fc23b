extension RunAnywhere {
    /// A RAG session over the collections in the data folder's `rag.sqlite`: ingest documents,
    /// ask questions answered from them with numbered sources (see ``RAGSession``).
    public static func ragSession() throws -> RAGSession {
        try runtime().ragSession()
    }
}
