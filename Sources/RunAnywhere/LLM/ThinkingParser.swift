import Foundation

/// A piece of generated text, classified as reasoning or answer.
package enum ThinkingChunk: Sendable, Equatable {
    /// Text between the thinking tags.
    case thinking(String)
    /// Text outside them.
    case response(String)
}

/// Splits streamed text into thinking and answer at the thinking tags, also when a tag is cut
/// across pieces: the end of a piece that could be the start of a tag is held back until the
/// next piece tells.
package struct ThinkingParser: Sendable {
    /// The tags to look for.
    package let pattern: ThinkingTagPattern
    /// Whether the parser is between an opening and a closing tag.
    package private(set) var isThinking = false
    /// Whether any opening tag has been seen.
    package private(set) var sawThinking = false
    private var pending = ""

    /// Creates a parser for `pattern`.
    package init(pattern: ThinkingTagPattern = .defaultPattern) {
        self.pattern = pattern
    }

    /// Feeds a piece and returns the chunks that are now certain, in order (tags removed).
    package mutating func feed(_ piece: String) -> [ThinkingChunk] {
        var buffer = pending + piece
        pending = ""
        var chunks: [ThinkingChunk] = []
        while true {
            let tag = isThinking ? pattern.closingTag : pattern.openingTag
            guard Self.mayMeet(tag, in: buffer) else {
                append(buffer, to: &chunks)
                return chunks
            }
            if let range = buffer.range(of: tag) {
                append(String(buffer[..<range.lowerBound]), to: &chunks)
                isThinking.toggle()
                if isThinking { sawThinking = true }
                buffer = String(buffer[range.upperBound...])
                continue
            }
            let held = Self.longestSuffix(of: buffer, thatPrefixes: tag)
            append(String(buffer.dropLast(held)), to: &chunks)
            pending = String(buffer.suffix(held))
            return chunks
        }
    }

    /// Returns what is still held back, at the end of the text.
    package mutating func finish() -> [ThinkingChunk] {
        var chunks: [ThinkingChunk] = []
        append(pending, to: &chunks)
        pending = ""
        return chunks
    }

    /// Splits a whole text at once: the thinking (nil when there was none) and the answer.
    package static func split(_ text: String, pattern: ThinkingTagPattern = .defaultPattern) -> (thinking: String?, response: String) {
        var parser = ThinkingParser(pattern: pattern)
        var thinking = ""
        var response = ""
        for chunk in parser.feed(text) + parser.finish() {
            switch chunk {
            case .thinking(let t): thinking += t
            case .response(let r): response += r
            }
        }
        return parser.sawThinking
            ? (thinking.trimmingCharacters(in: .whitespacesAndNewlines), response.trimmingLeadingWhitespace())
            : (nil, response)
    }

    private func append(_ text: String, to chunks: inout [ThinkingChunk]) {
        guard !text.isEmpty else { return }
        chunks.append(isThinking ? .thinking(text) : .response(text))
    }

    /// Whether `text` may hold `tag` or the start of it. Not when the tag begins with an ASCII
    /// character that `text` lacks: then neither a search nor a held-back suffix finds anything,
    /// and most pieces of generated text skip Foundation's search, which copies both strings.
    static func mayMeet(_ tag: String, in text: String) -> Bool {
        guard let first = tag.utf8.first, first < 0x80 else { return true }
        return text.utf8.contains(first)
    }

    /// Length in characters of the longest proper suffix of `text` that is a prefix of `tag`.
    static func longestSuffix(of text: String, thatPrefixes tag: String) -> Int {
        let maximum = min(text.count, tag.count - 1)
        guard maximum > 0 else { return 0 }
        for length in stride(from: maximum, through: 1, by: -1) where tag.hasPrefix(String(text.suffix(length))) {
            return length
        }
        return 0
    }
}

extension String {
    func trimmingLeadingWhitespace() -> String {
        String(drop(while: { $0.isWhitespace }))
    }
}
