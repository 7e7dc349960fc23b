/// A loaded model's vocabulary: text to token ids and back. An engine's ``LLMService`` that can
/// tokenize conforms to it too (llama.cpp's does); ``RunAnywhereRuntime/tokenize(_:model:addSpecial:parseSpecial:loadOptions:keepAlive:)``
/// and ``RunAnywhereRuntime/detokenize(_:model:loadOptions:keepAlive:)`` reach it through the
/// model cache, as generation does.
public protocol TokenizerAdapter: Sendable {
    /// How many tokens the vocabulary has: valid ids are 0 to one less than this.
    var vocabularySize: Int { get }

    /// The ids of the tokens `text` becomes. `addSpecial` adds the tokens the model puts around a
    /// text (a beginning-of-text token, for models that want one); `parseSpecial` reads special-token
    /// text such as `<|im_start|>` as that token rather than as plain text.
    func tokenize(_ text: String, addSpecial: Bool, parseSpecial: Bool) throws -> [Int32]

    /// The bytes of `token`'s text, special tokens written out as their text; a piece may end
    /// inside a UTF-8 character. An id outside the vocabulary throws ``ErrorCode/invalidInput``.
    func piece(_ token: Int32) throws -> [UInt8]

    /// The tokens the model was trained to fill in the middle with, or nil when it was not
    /// (``Infill``).
    var fillInTheMiddleTokens: FillInTheMiddleTokens? { get }
}

/// The special tokens of a model trained to fill in the middle (``Infill``): the markers of
/// the prefix, the suffix and the middle it writes, and for repository-level context the
/// project's name and the files' separator.
public struct FillInTheMiddleTokens: Sendable, Equatable, Codable {
    /// Begins the text before the gap (Qwen's `<|fim_prefix|>`, CodeLlama's `<PRE>`).
    public var prefix: Int32
    /// Begins the text after the gap.
    public var suffix: Int32
    /// Ends the prompt: what follows is the text of the gap.
    public var middle: Int32
    /// Begins the project's name (Qwen's `<|repo_name|>`); nil when the model has none.
    public var repository: Int32?
    /// Begins each file of the project (Qwen's `<|file_sep|>`); nil when the model has none.
    public var fileSeparator: Int32?

    /// A model's fill-in-the-middle tokens.
    public init(prefix: Int32, suffix: Int32, middle: Int32, repository: Int32? = nil, fileSeparator: Int32? = nil) {
        self.prefix = prefix
        self.suffix = suffix
        self.middle = middle
        self.repository = repository
        self.fileSeparator = fileSeparator
    }
}

extension TokenizerAdapter {
    /// Default: a model not trained to fill in the middle.
    public var fillInTheMiddleTokens: FillInTheMiddleTokens? { nil }

    /// Throws ``ErrorCode/invalidInput`` naming the first of `tokens` outside the vocabulary.
    public func checkVocabulary(_ tokens: [Int32]) throws {
        guard let index = firstOutsideVocabulary(tokens) else { return }
        throw outsideVocabulary(tokens, at: index)
    }

    /// The text of `tokens`: their pieces joined, as llama-server's `/detokenize` writes it (bytes
    /// that are not UTF-8 become U+FFFD). Ids outside the vocabulary throw ``ErrorCode/invalidInput``.
    public func detokenize(_ tokens: [Int32]) throws -> String {
        try checkVocabulary(naming: tokens)
        var bytes: [UInt8] = []
        for token in tokens { bytes += try piece(token) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Each token of `tokens` with its piece; ids outside the vocabulary throw ``ErrorCode/invalidInput``.
    public func pieces(_ tokens: [Int32]) throws -> [TokenPiece] {
        try checkVocabulary(naming: tokens)
        return try tokens.map { TokenPiece(id: $0, bytes: try piece($0)) }
    }

    /// ``checkVocabulary(_:)`` for `tokens` given as they are: its error names the element
    /// (`tokens.2`).
    private func checkVocabulary(naming tokens: [Int32]) throws {
        guard let index = firstOutsideVocabulary(tokens) else { return }
        throw outsideVocabulary(tokens, at: index).naming("tokens.\(index)")
    }

    private func firstOutsideVocabulary(_ tokens: [Int32]) -> Int? {
        tokens.firstIndex { $0 < 0 || Int($0) >= vocabularySize }
    }

    private func outsideVocabulary(_ tokens: [Int32], at index: Int) -> SDKError {
        SDKError(
            .invalidInput,
            "Token \(tokens[index]) (at position \(index)) is not in the model's vocabulary of \(vocabularySize) tokens (ids 0 to \(vocabularySize - 1))"
        )
    }
}

/// A token and the bytes of its text.
public struct TokenPiece: Sendable, Equatable, Hashable {
    /// The token's id in the vocabulary.
    public let id: Int32
    /// The bytes of its text; a piece may end inside a UTF-8 character.
    public let bytes: [UInt8]

    /// Creates a token piece.
    public init(id: Int32, bytes: [UInt8]) {
        self.id = id
        self.bytes = bytes
    }

    /// The piece as text, or nil when its bytes are not whole UTF-8 (part of a character).
    public var text: String? { String(validating: bytes, as: UTF8.self) }
}
