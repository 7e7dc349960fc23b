/// A passage retrieved for a question: where it came from, its text and how close it is.
public struct RAGSource: Codable, Sendable, Equatable {
    /// The document's path.
    public let documentPath: String
    /// The chunk's place in its document, from 0.
    public let ordinal: Int
    /// The chunk's text.
    public let text: String
    /// Where the chunk starts in its document's text, in Unicode scalars.
    public let start: Int
    /// Where it ends (exclusive), in Unicode scalars.
    public let end: Int
    /// The cosine similarity of the chunk's vector and the question's, -1 to 1; higher is closer.
    public let score: Double
    /// The reranker's score of the chunk read with the question (``RerankResult/Item/score``:
    /// higher is more relevant, comparable only with the same reranker's), or nil when the
    /// passages were not reranked (``RAGReranker``).
    public let rerankScore: Double?

    /// Creates a source.
    package init(documentPath: String, ordinal: Int, text: String, start: Int, end: Int, score: Double, rerankScore: Double? = nil) {
        self.documentPath = documentPath
        self.ordinal = ordinal
        self.text = text
        self.start = start
        self.end = end
        self.score = score
        self.rerankScore = rerankScore
    }

    /// This source with the reranker's score `rerankScore`.
    func reranked(_ rerankScore: Double) -> RAGSource {
        RAGSource(documentPath: documentPath, ordinal: ordinal, text: text, start: start, end: end, score: score, rerankScore: rerankScore)
    }
}
