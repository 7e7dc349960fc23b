extension RunAnywhere {
    /// Ranks `documents` by relevance to `query` with the reranker `model` (the first downloaded
    /// one when nil): the documents by descending score, each with its index in `documents`.
    public static func rerank(
        query: String, documents: [String], model: String? = nil, options: RerankOptions = RerankOptions()
    ) async throws -> RerankResult {
        try await runtime().rerank(query: query, documents: documents, model: model, options: options)
    }
}
