extension RunAnywhereRuntime {
    /// The ids of the tokens `text` becomes in the vocabulary of the language model `model` (the
    /// current model when nil), loaded through the model cache as generation loads it (with
    /// `loadOptions` if it is not loaded; `keepAlive`, when given, replaces how long it stays).
    /// With the defaults, the count is what a prompt of `text` counts as in generation.
    public nonisolated func tokenize(
        _ text: String, model: String? = nil, addSpecial: Bool = true, parseSpecial: Bool = true,
        loadOptions: ModelLoadOptions = ModelLoadOptions(), keepAlive: KeepAlive? = nil
    ) async throws -> [Int32] {
        try await withTokenizer(model: model, loadOptions: loadOptions, keepAlive: keepAlive) {
            try $0.tokenize(text, addSpecial: addSpecial, parseSpecial: parseSpecial)
        }
    }

    /// ``tokenize(_:model:addSpecial:parseSpecial:loadOptions:keepAlive:)`` with each token's piece of text.
    public nonisolated func tokenizeWithPieces(
        _ text: String, model: String? = nil, addSpecial: Bool = true, parseSpecial: Bool = true,
        loadOptions: ModelLoadOptions = ModelLoadOptions(), keepAlive: KeepAlive? = nil
    ) async throws -> [TokenPiece] {
        try await withTokenizer(model: model, loadOptions: loadOptions, keepAlive: keepAlive) {
            try $0.pieces($0.tokenize(text, addSpecial: addSpecial, parseSpecial: parseSpecial))
        }
    }

    /// Each of `tokens` with its piece of text in the vocabulary of `model` (the current model when
    /// nil); an id outside the vocabulary throws ``ErrorCode/invalidInput``.
    package nonisolated func pieces(
        of tokens: [Int32], model: String?, loadOptions: ModelLoadOptions = ModelLoadOptions(), keepAlive: KeepAlive? = nil
    ) async throws -> [TokenPiece] {
        try await withTokenizer(model: model, loadOptions: loadOptions, keepAlive: keepAlive) { try $0.pieces(tokens) }
    }

    /// The text `tokens` stand for in the vocabulary of the language model `model` (the current
    /// model when nil): their pieces joined, special tokens written out. An id outside the
    /// vocabulary throws ``ErrorCode/invalidInput``.
    public nonisolated func detokenize(
        _ tokens: [Int32], model: String? = nil, loadOptions: ModelLoadOptions = ModelLoadOptions(), keepAlive: KeepAlive? = nil
    ) async throws -> String {
        try await withTokenizer(model: model, loadOptions: loadOptions, keepAlive: keepAlive) { try $0.detokenize(tokens) }
    }

    /// Runs `work` with the vocabulary of `model` (the current model when nil) on an engine
    /// thread, the model lent to it meanwhile so that it is not unloaded under the work.
    private nonisolated func withTokenizer<T: Sendable>(
        model: String?, loadOptions: ModelLoadOptions, keepAlive: KeepAlive?, _ work: @escaping @Sendable (any TokenizerAdapter) throws -> T
    ) async throws -> T {
        let lease = try await lendForTokenizing(model, loadOptions: loadOptions, keepAlive: keepAlive)
        do {
            guard let tokenizer = lease.engine as? any TokenizerAdapter else {
                throw SDKError(
                    .modelIncompatible,
                    "Model '\(lease.info.id)' runs on \(lease.framework.displayName), which has no tokenizer the SDK can reach")
            }
            let result = try await runBlocking { try work(tokenizer) }
            await release(lease)
            return result
        } catch {
            await release(lease)
            throw error
        }
    }

    /// Lends the language model `id` (the current model when nil), loading it if needed.
    private func lendForTokenizing(_ id: String?, loadOptions: ModelLoadOptions, keepAlive: KeepAlive?) async throws -> ModelLease<
        any LLMService
    > {
        guard let id else {
            guard let current = current[.language] else { throw Self.noModelLoaded }
            return try await acquire(current.info, options: current.options, keepAlive: nil)
        }
        let model = try catalog.model(id: id)
        guard model.category == .language || model.category == .multimodal else {
            throw SDKError(
                .modelIncompatible, "Model '\(id)' is \(model.category.aModel); only language models have a vocabulary to tokenize with")
        }
        return try await acquire(model, options: loadOptions, keepAlive: keepAlive)
    }
}
