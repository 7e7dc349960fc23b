extension RunAnywhere {
    /// The embedding model scripts/setup installs, used when an app or the CLI names none.
    public static let defaultEmbeddingModelID = SDKConstants.Models.defaultEmbeddingModelID

    /// Embeds `text` with the embedding model `model` (``defaultEmbeddingModelID`` when nil):
    /// a result with one vector and its token count.
    public static func embed(_ text: String, model: String? = nil, options: EmbeddingOptions = EmbeddingOptions()) async throws
        -> EmbeddingResult
    {
        try await runtime().embed(text, model: model, options: options)
    }

    /// Embeds `texts` with the embedding model `model` (``defaultEmbeddingModelID`` when nil): one
    /// vector per text, in order, batched into as few engine calls as the model's context allows.
    public static func embed(_ texts: [String], model: String? = nil, options: EmbeddingOptions = EmbeddingOptions()) async throws
        -> EmbeddingResult
    {
        try await runtime().embed(texts, model: model, options: options)
    }
}
