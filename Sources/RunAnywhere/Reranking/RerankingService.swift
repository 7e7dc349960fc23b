/// What an engine computed for a query and its documents: one score per document and the tokens
/// each query-document pair took.
public struct EngineRanking: Sendable, Equatable {
    /// One score per document, in the order given.
    public let scores: [Float]
    /// The tokens each pair took, special tokens included, after any truncation.
    public let tokenCounts: [Int]

    /// Creates an engine's output.
    public init(scores: [Float], tokenCounts: [Int]) {
        self.scores = scores
        self.tokenCounts = tokenCounts
    }
}

/// A reranker (a cross-encoder that scores a query and a document read together) an engine has loaded.
public protocol RerankingService: AnyObject, Sendable {
    /// The most tokens one query-document pair may take, its special tokens included.
    var contextLength: Int { get }

    /// Scores each of `documents` (a non-empty list of non-empty texts) against `query` (not
    /// empty), batching as many pairs as fit into each engine call; calls on one model run one
    /// at a time. A pair longer than ``contextLength`` throws ``ErrorCode/contextTooLong`` naming
    /// the document and its token count unless `options.truncate` (which shortens the document;
    /// a query too long to leave room for any of it is refused either way).
    /// ``RerankOptions/threads`` overrides the model's threads; ranking and ``RerankOptions/topN``
    /// are the runtime's work. Raising `cancellation` stops the work with `CancellationError`.
    func rerank(query: String, documents: [String], options: RerankOptions, cancellation: CancellationFlag) async throws -> EngineRanking

    /// Frees the model's memory, returning once it is freed (after its running work has ended).
    /// The default does nothing: the memory goes with the last reference.
    func unload() async
}

extension RerankingService {
    /// Does nothing: the model's memory is freed with its last reference.
    public func unload() async {}
}
