/// What an engine computed for a list of texts: one pooled vector per text, as the model's
/// pooling made it (not yet normalized), and the tokens each text took.
public struct EngineEmbeddings: Sendable, Equatable {
    /// One vector per text, in the order given.
    public let vectors: [[Float]]
    /// The tokens each text took, special tokens included, after any truncation.
    public let tokenCounts: [Int]

    /// Creates an engine's output.
    public init(vectors: [[Float]], tokenCounts: [Int]) {
        self.vectors = vectors
        self.tokenCounts = tokenCounts
    }
}

/// A text-embedding model an engine has loaded.
public protocol EmbeddingService: AnyObject, Sendable {
    /// The length of the vectors the model makes.
    var dimensions: Int { get }
    /// The most tokens one text may take, its special tokens included.
    var contextLength: Int { get }

    /// Embeds `texts` (a non-empty list of non-empty texts), batching as many as fit into each
    /// engine call; calls on one model run one at a time. A text longer than ``contextLength``
    /// throws ``ErrorCode/contextTooLong`` naming its index and token count unless
    /// `options.truncate`; ``EmbeddingOptions/threads`` overrides the model's threads.
    /// Normalizing is the runtime's work, not the engine's. Raising `cancellation` stops the work
    /// with `CancellationError` at the next engine call or sooner.
    func embed(_ texts: [String], options: EmbeddingOptions, cancellation: CancellationFlag) async throws -> EngineEmbeddings

    /// Frees the model's memory, returning once it is freed (after its running work has ended);
    /// the runtime calls it when it unloads the model, and uses the model no more. The default
    /// does nothing: the memory goes with the last reference.
    func unload() async
}

extension EmbeddingService {
    /// Does nothing: the model's memory is freed with its last reference.
    public func unload() async {}
}
