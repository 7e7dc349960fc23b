import Foundation

extension RunAnywhereRuntime {
    /// Ranks `documents` by relevance to `query` with the reranker `model` (when nil,
    /// ``defaultReranker()``), loaded into the model cache if needed (with `loadOptions`;
    /// `keepAlive`, when given, replaces how long it stays) and lent to the request: the model
    /// reads each query-document pair together and scores it, as many pairs to an engine call as
    /// its context allows; the result lists the documents by descending score, at most
    /// ``RerankOptions/topN``. Before anything loads, an empty query, list or document throws
    /// ``ErrorCode/emptyInput``, more than `RerankOptions.maxDocuments` documents
    /// ``ErrorCode/invalidInput``, and a model that is not a reranker ``ErrorCode/modelIncompatible``;
    /// a pair longer than the model reads throws ``ErrorCode/contextTooLong`` (naming the document
    /// and its token count) before any pair is scored, unless ``RerankOptions/truncate``.
    /// Cancelling the calling task stops the engine (`CancellationError`).
    public func rerank(
        query: String, documents: [String], model: String? = nil, options: RerankOptions = RerankOptions(),
        loadOptions: ModelLoadOptions = ModelLoadOptions(), keepAlive: KeepAlive? = nil
    ) async throws -> RerankResult {
        try options.validate()
        guard !query.isEmpty else { throw SDKError(.emptyInput, "The query is empty; there is nothing to rank the documents against") }
        guard !documents.isEmpty else { throw SDKError(.emptyInput, "There are no documents to rank") }
        guard documents.count <= RerankOptions.maxDocuments else {
            throw SDKError(.invalidInput, "There are \(documents.count) documents; one request ranks at most \(RerankOptions.maxDocuments)")
        }
        if let index = documents.firstIndex(where: \.isEmpty) {
            throw SDKError(.emptyInput, "Document \(index) is empty; there is nothing to rank")
        }
        let info = try model.map { try self.model(id: $0, category: .reranking) } ?? defaultReranker()
        return try await againIfItsWorkerDied(info) {
            try await rerankOnce(
                query: query, documents: documents, model: info, options: options, loadOptions: loadOptions, keepAlive: keepAlive)
        }
    }

    private func rerankOnce(
        query: String, documents: [String], model info: ModelInfo, options: RerankOptions, loadOptions: ModelLoadOptions,
        keepAlive: KeepAlive?
    ) async throws -> RerankResult {
        let lease = try await acquire(info, as: .reranking, options: loadOptions, keepAlive: keepAlive, taking: \.reranking)
        defer { release(lease) }
        let service = lease.engine
        let cancellation = CancellationFlag()
        let started = ContinuousClock.now
        let output = try await withTaskCancellationHandler {
            try await service.rerank(query: query, documents: documents, options: options, cancellation: cancellation)
        } onCancel: {
            cancellation.cancel()
        }
        guard output.scores.count == documents.count, output.tokenCounts.count == documents.count else {
            throw SDKError(
                .generationFailed,
                "\(lease.framework.displayName) returned \(output.scores.count) scores for \(documents.count) documents of model '\(info.id)'"
            )
        }
        let items = documents.indices.map {
            RerankResult.Item(index: $0, score: Double(output.scores[$0]), document: documents[$0], tokens: output.tokenCounts[$0])
        }
        // A stable order: equal scores keep the order the documents were given in.
        let ranked = items.sorted { $0.score != $1.score ? $0.score > $1.score : $0.index < $1.index }
        return RerankResult(
            results: Array(ranked.prefix(options.topN ?? ranked.count)), totalTokens: output.tokenCounts.reduce(0, +), modelId: info.id,
            latencyMs: (ContinuousClock.now - started).inSeconds * 1000
        )
    }

    /// The reranker to use when none is named: the first downloaded one;
    /// ``ErrorCode/modelNotDownloaded`` when there is none.
    public nonisolated func defaultReranker() throws -> ModelInfo {
        guard let model = catalog.all().first(where: { $0.category == .reranking && $0.isDownloaded }) else {
            throw SDKError(
                .modelNotDownloaded,
                "No reranker is downloaded: run `runanywhere models pull \(SDKConstants.Models.suggestedRerankerID)`, or name one")
        }
        return model
    }
}
