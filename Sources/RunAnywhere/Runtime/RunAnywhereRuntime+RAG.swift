import Foundation

extension RunAnywhereRuntime {
    /// A RAG session of this runtime over the collections in `rag.sqlite` in its data folder
    /// (``RuntimeConfiguration/dataDirectory``), reading and splitting documents as `reader`
    /// and `chunker` do.
    public nonisolated func ragSession(reader: DocumentReader = DocumentReader(), chunker: TextChunker = TextChunker()) -> RAGSession {
        RAGSession(runtime: self, reader: reader, chunker: chunker)
    }
}
