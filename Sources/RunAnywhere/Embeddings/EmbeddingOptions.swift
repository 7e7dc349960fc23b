/// How to embed texts.
public struct EmbeddingOptions: Codable, Sendable, Equatable {
    /// Cut a text longer than the model reads (its context) to fit, keeping its start and the
    /// model's special tokens; when false such a text is refused with ``ErrorCode/contextTooLong``
    /// naming the text and its token count.
    public var truncate: Bool
    /// Scale each vector to unit length (L2), as sentence-transformers' `Normalize` module does,
    /// so that a dot product is the cosine similarity. The model's own pooling (mean, CLS, last
    /// token), read from its file, makes the vector before this.
    public var normalize: Bool
    /// CPU threads for this request; nil uses the model's (its load options', else the SDK's default).
    public var threads: Int?

    /// Creates options.
    public init(truncate: Bool = false, normalize: Bool = true, threads: Int? = nil) {
        self.truncate = truncate
        self.normalize = normalize
        self.threads = threads
    }

    /// Throws ``ErrorCode/invalidConfiguration`` unless ``threads`` is nil or 1 to
    /// ``SDKConstants/Limits/maxThreads``.
    package func validate() throws {
        try ModelLoadOptions.checkThreads(threads)
    }
}
