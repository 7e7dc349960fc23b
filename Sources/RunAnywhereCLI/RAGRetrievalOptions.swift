import ArgumentParser
import RunAnywhere

/// What `rag query` and `rag search` retrieve: the collection, how many passages, and the reranker.
struct RAGRetrievalOptions: ParsableArguments {
    @Option(name: .long, help: "The collection to search.") var collection = RAGCollection.defaultName
    @Option(name: .customLong("top-k"), help: "Passages retrieved (1 to \(RAGQueryOptions.maxTopK)).") var topK = RAGQueryOptions
        .defaultTopK
    @Option(
        name: .long,
        help:
            "Reranker id, or none: rerank \(RAGReranker.candidatesPerSource)× top-k passages and keep the best (default: the first downloaded reranker, if any)."
    ) var reranker: String?

    /// The reranker `--reranker` names; the first downloaded one, if any, without it.
    func rerankerChoice() throws -> RAGReranker {
        try reranker.map(RAGReranker.init(parsing:)) ?? .automatic
    }
}
