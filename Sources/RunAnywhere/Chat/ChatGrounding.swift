import Foundation

/// What a chat answer was grounded on: a document collection and the passages retrieved from it
/// for the question (``RAGSession/retrieve(_:collection:topK:embeddingModel:threads:reranker:)``),
/// best first. The model reads them numbered from 1 with the question, as a RAG answer does, and
/// cites them as `[1]`, `[2]`… in this order; the saved answer keeps them, so that its sources
/// can be shown again, and the saved question stays as the user wrote it.
public struct ChatGrounding: Codable, Sendable, Equatable {
    /// The collection the passages came from.
    public let collection: String
    /// The passages, best first: `[n]` in the answer cites the n-th.
    public let sources: [RAGSource]

    /// Grounding on `sources` from `collection`.
    public init(collection: String, sources: [RAGSource]) {
        self.collection = collection
        self.sources = sources
    }

    /// The prompt the model reads for `question`: the numbered passages, then the question.
    func prompt(for question: String) -> String {
        RAGPrompt.make(question: question, sources: sources)
    }
}
