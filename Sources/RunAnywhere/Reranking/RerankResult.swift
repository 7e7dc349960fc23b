/// Documents ranked by a reranker against one query, the most relevant first.
public struct RerankResult: Codable, Sendable, Equatable {
    /// One ranked document.
    public struct Item: Codable, Sendable, Equatable {
        /// Its index in the list of documents given.
        public let index: Int
        /// The model's relevance score: its classifier's raw output (a logit for BERT-style
        /// cross-encoders, not a probability), higher for a more relevant document. Scores of one
        /// model compare with each other, not with another model's.
        public let score: Double
        /// The document's text.
        public let document: String
        /// The tokens the query and document took together, the model's special tokens included,
        /// after any truncation.
        public let tokens: Int

        /// Creates an item.
        package init(index: Int, score: Double, document: String, tokens: Int) {
            self.index = index
            self.score = score
            self.document = document
            self.tokens = tokens
        }
    }

    /// The documents by descending score (ties in the order given), at most
    /// ``RerankOptions/topN`` of them.
    public let results: [Item]
    /// The tokens of every pair scored together, those not returned included.
    public let totalTokens: Int
    /// The model that scored them.
    public let modelId: String
    /// Milliseconds from the request reaching the loaded model to its last score (a wait behind
    /// another request on the same model included).
    public let latencyMs: Double

    /// Creates a result.
    package init(results: [Item], totalTokens: Int, modelId: String, latencyMs: Double) {
        self.results = results
        self.totalTokens = totalTokens
        self.modelId = modelId
        self.latencyMs = latencyMs
    }
}
