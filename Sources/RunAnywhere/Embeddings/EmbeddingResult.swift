/// Texts embedded by one model: a vector per text, in the order given.
public struct EmbeddingResult: Codable, Sendable, Equatable {
    /// One vector per text, each ``dimensions`` long; unit length when the options asked to normalize.
    public let embeddings: [[Float]]
    /// The tokens each text took, the model's special tokens (such as BERT's `[CLS]` and `[SEP]`)
    /// included, after any truncation.
    public let tokenCounts: [Int]
    /// The tokens of all the texts together.
    public let totalTokens: Int
    /// The length of each vector.
    public let dimensions: Int
    /// The model that embedded them.
    public let modelId: String
    /// Milliseconds from the request reaching the loaded model to its last vector (a wait behind
    /// another request on the same model included).
    public let latencyMs: Double

    /// Creates a result; ``totalTokens`` is the sum of `tokenCounts`.
    package init(embeddings: [[Float]], tokenCounts: [Int], dimensions: Int, modelId: String, latencyMs: Double) {
        self.embeddings = embeddings
        self.tokenCounts = tokenCounts
        self.totalTokens = tokenCounts.reduce(0, +)
        self.dimensions = dimensions
        self.modelId = modelId
        self.latencyMs = latencyMs
    }
}
