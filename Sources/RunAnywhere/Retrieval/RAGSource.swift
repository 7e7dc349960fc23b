/// A passage retrieved for a question: where it came from, its text and how close it is.
public struct RAGSource: Codable, Sendable, Equatable {
    /// The document's path.
    public let documentPath: String
    /// The chunk's place in its document, from 0.
    public let ordinal: Int
    /// The chunk's text.
    public let text: String
    /// Where the chunk starts in its document's text, in Unicode scalars (see ``TextChunk``).
    public let start: Int
    /// Where it ends (exclusive), in Unicode scalars.
    public let end: Int
    /// The cosine similarity of the chunk's vector and the question's, -1 to 1; higher is closer.
    public let score: Double

    /// Creates a source.
    public init(documentPath: String, ordinal: Int, text: String, start: Int, end: Int, score: Double) {
        self.documentPath = documentPath
        self.ordinal = ordinal
        self.text = text
        self.start = start
        self.end = end
        self.score = score
    }
}
