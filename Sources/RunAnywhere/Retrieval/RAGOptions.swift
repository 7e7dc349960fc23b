/// How to ingest documents into a collection.
public struct RAGIngestOptions: Sendable, Equatable {
    /// The embedding model of a new collection: nil for the collection's own, or
    /// ``SDKConstants/Models/defaultEmbeddingModelID`` for a new one. An existing collection made with
    /// another model refuses it (``ErrorCode/modelIncompatible``).
    public var embeddingModel: String?
    /// CPU threads for embedding; nil for the model's default.
    public var threads: Int?

    /// Creates options.
    public init(embeddingModel: String? = nil, threads: Int? = nil) {
        self.embeddingModel = embeddingModel
        self.threads = threads
    }
}

/// How to answer a question over a collection.
public struct RAGQueryOptions: Sendable {
    /// The default number of passages retrieved.
    public static let defaultTopK = 4
    /// The most passages one question may retrieve.
    package static let maxTopK = 100

    /// How to generate the answer (sampling, most tokens, system prompt…); nil for the defaults.
    /// Tools are refused: the answer comes from the sources.
    public var generation: LLMGenerationOptions?
    /// The language model that answers: nil for the current model (``RunAnywhere/loadModel(_:options:)``)
    /// when one is loaded, else ``RunAnywhere/defaultModelID``, loaded with ``loadOptions``.
    public var model: String?
    /// How to load ``model`` when it is not loaded yet.
    public var loadOptions: ModelLoadOptions
    /// The embedding model to embed the question with: nil for the collection's own; another is
    /// refused (``ErrorCode/modelIncompatible``), since its vectors could not be compared.
    public var embeddingModel: String?
    /// CPU threads for embedding the question (and reranking its passages); nil for the model's default.
    public var embeddingThreads: Int?
    /// Whether and with which reranker the passages are reranked: by default with the first
    /// downloaded reranker, when there is one.
    public var reranker: RAGReranker

    /// Creates options.
    public init(
        generation: LLMGenerationOptions? = nil, model: String? = nil, loadOptions: ModelLoadOptions = ModelLoadOptions(),
        embeddingModel: String? = nil, embeddingThreads: Int? = nil, reranker: RAGReranker = .automatic
    ) {
        self.generation = generation
        self.model = model
        self.loadOptions = loadOptions
        self.embeddingModel = embeddingModel
        self.embeddingThreads = embeddingThreads
        self.reranker = reranker
    }
}

/// What an ingest did: each document with its chunk count.
public struct RAGIngestReport: Codable, Sendable, Equatable {
    /// One ingested document.
    public struct Document: Codable, Sendable, Equatable {
        /// The file, as an absolute path.
        public let path: String
        /// What it was read as.
        public let format: DocumentFormat
        /// The chunks it was split into.
        public let chunkCount: Int
        /// Whether it replaced the chunks of an earlier ingest of the same path.
        public let replaced: Bool
    }

    /// The collection's name.
    public let collection: String
    /// The embedding model that made the vectors.
    public let embeddingModelId: String
    /// The documents, in the order given.
    public let documents: [Document]
    /// The tokens the embedding model read.
    public let embeddingTokens: Int
}
