import CLlamaCpp
import RunAnywhere

/// Prompts whose messages' text is read as text (``LLMEngineRequest/plainText``): special-token
/// text a message writes (`<|im_end|>`) stays the characters it is, so no message can end its
/// turn or open another, while the template around them is read with special tokens parsed.
extension LlamaContext {
    /// The tokens of `prompt`, BOS added as the model wants, read as the template wrote it
    /// outside `plainText` and as text inside. A prompt whose ranges hold no special-token text
    /// (nearly all) is tokenized whole, as if it had none.
    func tokenize(prompt: String, plainText: [Range<Int>]) throws -> [llama_token] {
        guard let pieces = try pieces(of: prompt, plainText: plainText) else { return try tokenize(prompt, addSpecial: true) }
        // BOS (and EOS, for a model that wants one after its text) once, around all the pieces.
        let affixes = try tokenize("", addSpecial: true)
        let bos = library.api.llama_vocab_bos(vocab)
        let leading = affixes.first == bos ? 1 : 0
        var tokens = Array(affixes.prefix(leading))
        for piece in pieces {
            tokens += try tokenize(piece.text, addSpecial: false, parseSpecial: !piece.plain)
        }
        tokens += affixes.dropFirst(leading)
        if tokens.count >= 2, tokens[0] == bos, tokens[1] == bos { tokens.removeFirst() }  // the template wrote BOS too
        return tokens
    }

    /// `prompt` cut into what is read with special tokens parsed and what is read as text: the
    /// `plainText` ranges that hold special-token text (or `marker`, which must not stand for
    /// an image there) and what lies between them. Nil when no range needs it.
    func pieces(of prompt: String, plainText: [Range<Int>], marker: String? = nil) throws -> [(text: String, plain: Bool)]? {
        guard !plainText.isEmpty else { return nil }
        let bytes = Array(prompt.utf8)
        var end = 0
        for range in plainText {
            // Each range in order, within the prompt, starting and ending between characters.
            let between = { (offset: Int) in offset == bytes.count || bytes[offset] & 0xC0 != 0x80 }
            guard range.lowerBound >= end, range.upperBound <= bytes.count, between(range.lowerBound), between(range.upperBound) else {
                throw SDKError.llm(
                    .invalidInput,
                    "The prompt's plain-text ranges must be in order, apart, and between characters of its \(bytes.count) UTF-8 bytes")
            }
            end = range.upperBound
        }
        let text = { (range: Range<Int>) in String(decoding: bytes[range], as: UTF8.self) }
        let readAlike = { (text: String) in
            try self.tokenize(text, addSpecial: false, parseSpecial: true) == self.tokenize(text, addSpecial: false, parseSpecial: false)
        }
        // One look at all the ranges together first: each alone only where they hold some.
        let holdsMarker = { (text: String) in marker.map { text.contains($0) } ?? false }
        let all = plainText.map(text).joined(separator: "\n")
        guard try holdsMarker(all) || !readAlike(all) else { return nil }
        let cut = try plainText.filter { range in
            let piece = text(range)
            return try holdsMarker(piece) || !readAlike(piece)
        }
        guard !cut.isEmpty else { return nil }
        var pieces: [(text: String, plain: Bool)] = []
        var position = 0
        for range in cut {
            pieces.append((text(position..<range.lowerBound), false))
            pieces.append((text(range), true))
            position = range.upperBound
        }
        pieces.append((text(position..<bytes.count), false))
        return pieces
    }
}
