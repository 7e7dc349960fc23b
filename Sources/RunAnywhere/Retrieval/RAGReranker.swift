/// Whether, and with which reranker, RAG retrieval reorders its passages: it takes more
/// passages by cosine similarity than it keeps (`candidates(for:)`), has the reranker read
/// each with the question, and keeps the best by the reranker's score.
public enum RAGReranker: Sendable, Hashable {
    /// The first downloaded reranker (``RunAnywhereRuntime/defaultReranker()``) when there is
    /// one; without one, the passages closest by cosine similarity, as ``off``.
    case automatic
    /// The reranker with this model id; a model that is not a reranker is refused
    /// (``ErrorCode/modelIncompatible``).
    case model(String)
    /// No reranking: the passages closest by cosine similarity.
    case off

    /// How many passages by cosine similarity are reranked for each one kept.
    package static let candidatesPerSource = 4
    /// The most passages one question has reranked (never fewer than it keeps).
    package static let maxCandidates = 100

    /// The reranker a command line or request names: `none` (or `off`) for ``off``, `auto` for
    /// ``automatic``, anything else a model id. An empty name throws ``ErrorCode/invalidInput``.
    package init(parsing name: String) throws {
        switch name.lowercased() {
        case "": throw SDKError(.invalidInput, "The reranker is empty: name a reranker model, or none")
        case "none", "off": self = .off
        case "auto": self = .automatic
        default: self = .model(name)
        }
    }

    /// The passages retrieved by cosine similarity to be reranked down to `topK`:
    /// ``candidatesPerSource`` times as many, at most ``maxCandidates`` but never fewer than `topK`.
    package static func candidates(for topK: Int) -> Int {
        max(topK, min(topK * candidatesPerSource, maxCandidates))
    }
}
