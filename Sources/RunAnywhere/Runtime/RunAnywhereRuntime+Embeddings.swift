import Foundation

extension RunAnywhereRuntime {
    /// Embeds `text` with the embedding model `model` (the installed default,
    /// ``SDKConstants/Models/defaultEmbeddingModelID``, when nil): a result with one vector, as
    /// the list form below computes it.
    public func embed(
        _ text: String, model: String? = nil, options: EmbeddingOptions = EmbeddingOptions(),
        loadOptions: ModelLoadOptions = ModelLoadOptions(),
        keepAlive: KeepAlive? = nil
    ) async throws -> EmbeddingResult {
        try await embed([text], model: model, options: options, loadOptions: loadOptions, keepAlive: keepAlive)
    }

    /// Embeds `texts` with the embedding model `model` (the installed default,
    /// ``SDKConstants/Models/defaultEmbeddingModelID``, when nil), loaded into the model cache
    /// if needed (with `loadOptions`; `keepAlive`, when given, replaces how long it stays) and
    /// lent to the request: one vector per text, in order, batched into as few engine calls as
    /// the model's context allows. An empty list or an empty text throws ``ErrorCode/emptyInput``
    /// and a model that is not an embedding model ``ErrorCode/modelIncompatible``, before anything
    /// loads; a text longer than the model reads throws ``ErrorCode/contextTooLong`` (naming the
    /// text and its token count) before any text is embedded, unless ``EmbeddingOptions/truncate``.
    /// Cancelling the calling task stops the engine (`CancellationError`).
    public func embed(
        _ texts: [String], model: String? = nil, options: EmbeddingOptions = EmbeddingOptions(),
        loadOptions: ModelLoadOptions = ModelLoadOptions(),
        keepAlive: KeepAlive? = nil
    ) async throws -> EmbeddingResult {
        try options.validate()
        guard !texts.isEmpty else { throw SDKError(.emptyInput, "There are no texts to embed") }
        if let index = texts.firstIndex(where: \.isEmpty) {
            throw SDKError(.emptyInput, "Text \(index) is empty; there is nothing to embed")
        }
        let info = try self.model(id: model ?? SDKConstants.Models.defaultEmbeddingModelID, category: .embedding)
        return try await againIfItsWorkerDied(info) {
            try await embedOnce(texts, model: info, options: options, loadOptions: loadOptions, keepAlive: keepAlive)
        }
    }

    /// Loads the embedding model `id` into the cache, as an embedding would, and keeps it for
    /// `keepAlive` once idle (ollama's embed request without texts).
    package func preloadEmbeddingModel(_ id: String, options: ModelLoadOptions, keepAlive: KeepAlive?) async throws {
        release(try await acquire(try model(id: id, category: .embedding), as: .embedding, options: options, keepAlive: keepAlive))
    }

    private func embedOnce(
        _ texts: [String], model info: ModelInfo, options: EmbeddingOptions, loadOptions: ModelLoadOptions, keepAlive: KeepAlive?
    ) async throws -> EmbeddingResult {
        let lease = try await acquire(info, as: .embedding, options: loadOptions, keepAlive: keepAlive, taking: \.embedding)
        defer { release(lease) }
        let service = lease.engine
        let cancellation = CancellationFlag()
        let started = ContinuousClock.now
        let output = try await withTaskCancellationHandler {
            try await service.embed(texts, options: options, cancellation: cancellation)
        } onCancel: {
            cancellation.cancel()
        }
        guard output.vectors.count == texts.count, output.tokenCounts.count == texts.count,
            output.vectors.allSatisfy({ $0.count == service.dimensions })
        else {
            throw SDKError(
                .generationFailed,
                "\(lease.framework.displayName) returned \(output.vectors.count) vectors for \(texts.count) texts of model '\(info.id)'")
        }
        return EmbeddingResult(
            embeddings: options.normalize ? output.vectors.map(EmbeddingMath.l2Normalized) : output.vectors,
            tokenCounts: output.tokenCounts,
            dimensions: service.dimensions, modelId: info.id, latencyMs: (ContinuousClock.now - started).inSeconds * 1000
        )
    }
}
