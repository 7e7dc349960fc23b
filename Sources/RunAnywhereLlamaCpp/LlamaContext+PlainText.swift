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
        var afterSpecial = true  // as llama.cpp reads a prompt's start
        for piece in pieces where !piece.text.isEmpty {
            let read = try tokenize(piece.text, parseSpecial: !piece.plain, afterSpecial: afterSpecial)
            tokens += read
            if let last = read.last { afterSpecial = isSpecial(last, parsed: !piece.plain) }
        }
        tokens += affixes.dropFirst(leading)
        if tokens.count >= 2, tokens[0] == bos, tokens[1] == bos { tokens.removeFirst() }  // the template wrote BOS too
        return tokens
    }

    /// The tokens of `text` read as the middle of a prompt: where a SentencePiece vocabulary adds
    /// a space before text (Llama 2's, Mistral's, Phi-3's), llama.cpp adds it only at the start
    /// and after a special token, so text that follows other text is read behind a newline whose
    /// tokens are then taken off (`▁Hi` would be a space the prompt does not have). Should the
    /// newline join what follows it into one token, the text is read alone.
    private func tokenize(_ text: String, parseSpecial: Bool, afterSpecial: Bool) throws -> [llama_token] {
        guard !afterSpecial, addsSpacePrefix else { return try tokenize(text, addSpecial: false, parseSpecial: parseSpecial) }
        let lead = try tokenize("\n", addSpecial: false, parseSpecial: false)
        let read = try tokenize("\n" + text, addSpecial: false, parseSpecial: parseSpecial)
        guard read.starts(with: lead) else { return try tokenize(text, addSpecial: false, parseSpecial: parseSpecial) }
        return Array(read.dropFirst(lead.count))
    }

    /// Whether the vocabulary adds a space before the text it reads (a SentencePiece one whose
    /// `add_space_prefix` is on, as llama.cpp's default for them is).
    var addsSpacePrefix: Bool {
        guard let first = try? tokenize("a", addSpecial: false, parseSpecial: false).first else { return false }
        return piece(first).first == UInt8(ascii: " ")
    }

    /// Whether `token` is one that llama.cpp found by its text, after which it reads text as a
    /// prompt's start: a control, user-defined or unknown token where special tokens were
    /// `parsed`, a user-defined one (found by its text even then) where they were not.
    func isSpecial(_ token: llama_token, parsed: Bool) -> Bool {
        let special =
            parsed
            ? LLAMA_TOKEN_ATTR_CONTROL.rawValue | LLAMA_TOKEN_ATTR_USER_DEFINED.rawValue | LLAMA_TOKEN_ATTR_UNKNOWN.rawValue
            : LLAMA_TOKEN_ATTR_USER_DEFINED.rawValue
        return library.api.llama_vocab_get_attr(vocab, token).rawValue & special != 0
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
