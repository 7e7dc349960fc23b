extension RAGSession {
    /// The `topK` passages of the collection `collection` most relevant to `question`, best
    /// first with their scores: the question is embedded with the collection's embedding model
    /// and compared with every chunk's vector (cosine similarity, ``RAGSource/score``); a question
    /// longer than the embedding model reads is cut to fit for this, as the reranker's reading is. With a
    /// reranker (`reranker`: by default the first downloaded one, if any), the
    /// `RAGReranker.candidates(for:)` closest passages are read with the question by the
    /// reranker (each cut to what it reads) and the `topK` best by its score
    /// (``RAGSource/rerankScore``) are kept, in that order. An unknown collection throws
    /// ``ErrorCode/fileNotFound``, `embeddingModel`, when given and not the collection's,
    /// ``ErrorCode/modelIncompatible``, and so does a named reranker that is not one; `threads`
    /// are the embedding model's and the reranker's.
    public func retrieve(
        _ question: String, collection: String = RAGCollection.defaultName, topK: Int = RAGQueryOptions.defaultTopK,
        embeddingModel: String? = nil, threads: Int? = nil, reranker: RAGReranker = .automatic
    ) async throws -> [RAGSource] {
        try await retrieval(
            question, collection: collection, topK: topK, embeddingModel: embeddingModel, threads: threads, reranker: reranker
        ).sources
    }

    /// Answers `question` from the collection `collection`: retrieves its `topK` most relevant
    /// passages (``retrieve(_:collection:topK:embeddingModel:threads:reranker:)``, reranked as
    /// ``RAGQueryOptions/reranker`` says), then starts the language model
    /// (``RAGQueryOptions/model``) on a prompt of the passages numbered from 1, best first, and
    /// the question, asking it to answer from them and cite them as `[n]`. Returns once the
    /// generation has started: the answer streams from the result, whose
    /// ``RAGAnswerEvents/sources`` are the passages. A collection with no documents left throws
    /// ``ErrorCode/emptyInput``, and options offering tools ``ErrorCode/invalidInput``.
    public func query(
        _ question: String, collection: String = RAGCollection.defaultName, topK: Int = RAGQueryOptions.defaultTopK,
        options: RAGQueryOptions = RAGQueryOptions()
    ) async throws -> RAGAnswerEvents {
        if options.generation?.offersTools == true {
            throw SDKError(.invalidInput, "A RAG question takes no tools: it is answered from its sources")
        }
        try options.generation?.validate()
        let found = try await retrieval(
            question, collection: collection, topK: topK, embeddingModel: options.embeddingModel, threads: options.embeddingThreads,
            reranker: options.reranker
        )
        guard !found.sources.isEmpty else {
            throw SDKError(.emptyInput, "Collection '\(collection)' has no documents to answer from; ingest some first")
        }
        let prompt = RAGPrompt.make(question: question, sources: found.sources)
        let generation: GenerationEvents
        if options.model == nil, await runtime.currentModel != nil {
            generation = try await runtime.generateEvents(prompt, context: nil, options: options.generation)
        } else {
            generation = try await runtime.generateEvents(
                prompt, context: nil, options: options.generation, model: options.model ?? RunAnywhere.defaultModelID,
                loadOptions: options.loadOptions
            )
        }
        return RAGAnswerEvents(sources: found.sources, collection: collection, reranker: found.reranker, generation: generation)
    }

    /// The passages ``retrieve(_:collection:topK:embeddingModel:threads:reranker:)`` returns, and
    /// the reranker that ordered them (nil when none did). Every check, the reranker's included,
    /// comes before the question is embedded.
    private func retrieval(
        _ question: String, collection: String, topK: Int, embeddingModel: String?, threads: Int?, reranker: RAGReranker
    ) async throws -> (sources: [RAGSource], reranker: String?) {
        try RAGCollection.validateName(collection)
        guard (1...RAGQueryOptions.maxTopK).contains(topK) else {
            throw SDKError(.invalidInput, "topK must be 1 to \(RAGQueryOptions.maxTopK), not \(topK)")
        }
        guard question.contains(where: { !$0.isWhitespace }) else { throw SDKError(.emptyInput, "The question is empty") }
        let rerankerModel: ModelInfo? =
            switch reranker {
            case .automatic: try? runtime.defaultReranker()
            case .model(let id): try runtime.model(id: id, category: .reranking)
            case .off: nil
            }
        guard let info = try await store.collection(named: collection) else { throw RAGStoreChecks.noCollection(collection) }
        if let embeddingModel { try RAGStoreChecks.check(info, model: embeddingModel, dimensions: info.dimensions) }
        let embedded = try await runtime.embed(
            question, model: info.embeddingModelId, options: EmbeddingOptions(truncate: true, threads: threads),
            loadOptions: ModelLoadOptions(threads: threads)
        )
        guard let rerankerModel else { return (try await store.search(embedded.embeddings[0], collection: collection, topK: topK), nil) }
        let candidates = try await store.search(embedded.embeddings[0], collection: collection, topK: RAGReranker.candidates(for: topK))
        guard !candidates.isEmpty else { return ([], rerankerModel.id) }
        let ranked = try await runtime.rerank(
            query: question, documents: candidates.map(\.text), model: rerankerModel.id,
            options: RerankOptions(topN: topK, truncate: true, threads: threads), loadOptions: ModelLoadOptions(threads: threads)
        )
        return (ranked.results.map { candidates[$0.index].reranked($0.score) }, ranked.modelId)
    }
}
