extension RAGSession {
    /// The `topK` passages of the collection `collection` closest to `question`, best first
    /// with their scores: the question is embedded with the collection's embedding model and
    /// compared with every chunk's vector (cosine similarity). An unknown collection throws
    /// ``ErrorCode/fileNotFound``, and `embeddingModel`, when given and not the collection's,
    /// ``ErrorCode/modelIncompatible``.
    public func retrieve(
        _ question: String, collection: String = RAGCollection.defaultName, topK: Int = RAGQueryOptions.defaultTopK,
        embeddingModel: String? = nil, threads: Int? = nil
    ) async throws -> [RAGSource] {
        try RAGCollection.validateName(collection)
        guard (1...RAGQueryOptions.maxTopK).contains(topK) else {
            throw SDKError(.invalidInput, "topK must be 1 to \(RAGQueryOptions.maxTopK), not \(topK)")
        }
        guard question.contains(where: { !$0.isWhitespace }) else { throw SDKError(.emptyInput, "The question is empty") }
        guard let info = try await store.collection(named: collection) else { throw RAGStore.noCollection(collection) }
        if let embeddingModel { try RAGStore.check(info, model: embeddingModel, dimensions: info.dimensions) }
        let embedded = try await runtime.embed(
            question, model: info.embeddingModelId, options: EmbeddingOptions(threads: threads), loadOptions: ModelLoadOptions(threads: threads)
        )
        return try await store.search(embedded.embeddings[0], collection: collection, topK: topK)
    }

    /// Answers `question` from the collection `collection`: retrieves its `topK` closest
    /// passages (``retrieve(_:collection:topK:embeddingModel:threads:)``), then starts the
    /// language model (``RAGQueryOptions/model``) on a prompt of the passages numbered from 1,
    /// best first, and the question, asking it to answer from them and cite them as `[n]`.
    /// Returns once the generation has started: the answer streams from the result, whose
    /// ``RAGAnswerEvents/sources`` are the passages. A collection with no documents left throws
    /// ``ErrorCode/emptyInput``, and options offering tools ``ErrorCode/invalidInput``.
    public func query(
        _ question: String, collection: String = RAGCollection.defaultName, topK: Int = RAGQueryOptions.defaultTopK,
        options: RAGQueryOptions = RAGQueryOptions()
    ) async throws -> RAGAnswerEvents {
        if options.generation?.offersTools == true { throw SDKError(.invalidInput, "A RAG question takes no tools: it is answered from its sources") }
        try options.generation?.validate()
        let sources = try await retrieve(question, collection: collection, topK: topK, embeddingModel: options.embeddingModel, threads: options.embeddingThreads)
        guard !sources.isEmpty else { throw SDKError(.emptyInput, "Collection '\(collection)' has no documents to answer from; ingest some first") }
        let prompt = RAGPrompt.make(question: question, sources: sources)
        let generation: GenerationEvents
        if options.model == nil, await runtime.currentModel != nil {
            generation = try await runtime.generateEvents(prompt, context: nil, options: options.generation)
        } else {
            generation = try await runtime.generateEvents(
                prompt, context: nil, options: options.generation, model: options.model ?? RunAnywhere.defaultModelID, loadOptions: options.loadOptions
            )
        }
        return RAGAnswerEvents(sources: sources, collection: collection, generation: generation)
    }
}
