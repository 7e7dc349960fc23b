import RunAnywhere

/// The model's vocabulary through llama.cpp: `llama_tokenize`, and `llama_token_to_piece` with
/// special tokens written out, as llama-server's `/tokenize` and `/detokenize` use them. Both
/// read only the vocabulary, which never changes once loaded, so they run on any thread.
extension LlamaCppService: TokenizerAdapter {
    var vocabularySize: Int { llama.vocabularySize }

    var fillInTheMiddleTokens: FillInTheMiddleTokens? { llama.fillInTheMiddleTokens }

    func tokenize(_ text: String, addSpecial: Bool, parseSpecial: Bool) throws -> [Int32] {
        try llama.tokenize(text, addSpecial: addSpecial, parseSpecial: parseSpecial)
    }

    /// The id is checked first: llama.cpp aborts the process on one outside the vocabulary.
    func piece(_ token: Int32) throws -> [UInt8] {
        try checkVocabulary([token])
        return llama.piece(token, special: true)
    }
}
