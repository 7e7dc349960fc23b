/// How to rerank documents against a query.
public struct RerankOptions: Codable, Sendable, Equatable {
    /// The most documents one call ranks.
    package static let maxDocuments = 1024

    /// How many of the best documents to return; nil returns them all. Each keeps its index in
    /// the list given.
    public var topN: Int?
    /// Cut a query-document pair longer than the model reads (its context) to fit by shortening
    /// the document, keeping the query and the model's special tokens; when false such a pair is
    /// refused with ``ErrorCode/contextTooLong`` naming the document and its token count.
    public var truncate: Bool
    /// CPU threads for this request; nil uses the model's (its load options', else the SDK's default).
    public var threads: Int?

    /// Creates options.
    public init(topN: Int? = nil, truncate: Bool = false, threads: Int? = nil) {
        self.topN = topN
        self.truncate = truncate
        self.threads = threads
    }

    /// Throws ``ErrorCode/invalidConfiguration`` unless ``topN`` is nil or at least 1 and
    /// ``threads`` is nil or 1 to ``SDKConstants/Limits/maxThreads``.
    package func validate() throws {
        if let topN, topN < 1 { throw SDKError(.invalidConfiguration, "topN must be at least 1 (got \(topN))") }
        try ModelLoadOptions.checkThreads(threads)
    }
}
