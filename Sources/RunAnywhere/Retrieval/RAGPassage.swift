import Foundation

/// One stored chunk of a document, as a source's number opens it: its text and where it lies.
public struct RAGPassage: Codable, Sendable, Equatable {
    /// Its collection's name.
    public let collection: String
    /// The document's path, as ingested.
    public let documentPath: String
    /// The chunk's place in its document, from 0.
    public let ordinal: Int
    /// The chunks its document has.
    public let documentChunkCount: Int
    /// The chunk's text.
    public let text: String
    /// Where the chunk starts in its document's text, in Unicode scalars.
    public let start: Int
    /// Where it ends (exclusive), in Unicode scalars.
    public let end: Int

    /// Creates a passage.
    package init(collection: String, documentPath: String, ordinal: Int, documentChunkCount: Int, text: String, start: Int, end: Int) {
        self.collection = collection
        self.documentPath = documentPath
        self.ordinal = ordinal
        self.documentChunkCount = documentChunkCount
        self.text = text
        self.start = start
        self.end = end
    }
}

extension RAGSession {
    /// The chunk `ordinal` of the document `path` (exactly as ingested, as ``RAGSource/documentPath``
    /// names it) in `collection`: the passage a source came from. An unknown collection, document
    /// or chunk throws ``ErrorCode/fileNotFound``.
    public func passage(document path: String, ordinal: Int, collection: String = RAGCollection.defaultName) async throws -> RAGPassage {
        try RAGCollection.validateName(collection)
        return try await store.passage(document: path, ordinal: ordinal, collection: collection)
    }
}
