/// One passage of a document, as a RAG collection stores and retrieves it.
package struct TextChunk: Codable, Sendable, Equatable {
    /// Its place among its document's chunks, from 0.
    package let ordinal: Int
    /// Its text: the document's text from ``start`` to ``end``.
    package let text: String
    /// Where it starts in its document's text (``DocumentText/text``), in Unicode scalars (code
    /// points, as Python's `str` counts them).
    package let start: Int
    /// Where it ends (exclusive), in Unicode scalars.
    package let end: Int

    /// Creates a chunk.
    package init(ordinal: Int, text: String, start: Int, end: Int) {
        self.ordinal = ordinal
        self.text = text
        self.start = start
        self.end = end
    }
}

/// Splits a document's text into overlapping chunks for retrieval.
///
/// Sizes count characters, not tokens: Unicode scalars (code points), so that splitting needs no
/// model and a chunk's offsets mean the same to every reader. The default, 800 characters with
/// 150 of overlap, is about 150 to 200 tokens of English for all-MiniLM-L6-v2's word pieces, well
/// inside the 256 it was trained on.
///
/// A chunk is at most ``size`` characters long and, except for a document's last, at least half
/// of that: it ends at the last blank line (paragraph break) in its second half, else the last
/// line break, else the last sentence end (`.`, `!`, `?` before a space, or `。`, `！`, `？`), else the last space;
/// only a run of text without any of those is cut in the middle (never inside a character's
/// combining marks). The next chunk starts about ``overlap`` characters before the previous one
/// ended, at the first sentence start in that overlap, else its first word; spaces around a chunk
/// are left out.
public struct TextChunker: Codable, Sendable, Equatable {
    /// The default chunk size, in characters.
    public static let defaultSize = 800
    /// The default overlap, in characters.
    public static let defaultOverlap = 150
    /// The smallest chunk size allowed.
    package static let minimumSize = 20

    /// The most characters of a chunk.
    public var size: Int
    /// About how many characters a chunk repeats from the end of the one before it; less than half of ``size``.
    public var overlap: Int

    /// Creates a chunker.
    public init(size: Int = TextChunker.defaultSize, overlap: Int = TextChunker.defaultOverlap) {
        self.size = size
        self.overlap = overlap
    }

    /// Throws ``ErrorCode/invalidConfiguration`` unless ``size`` is at least ``minimumSize`` and
    /// ``overlap`` is 0 or more and less than half of ``size``.
    package func validate() throws {
        guard size >= Self.minimumSize else {
            throw SDKError(.invalidConfiguration, "The chunk size must be at least \(Self.minimumSize) characters, not \(size)")
        }
        guard overlap >= 0, overlap < size / 2 else {
            throw SDKError(
                .invalidConfiguration, "The chunk overlap must be 0 or more and less than half the chunk size (\(size / 2)), not \(overlap)"
            )
        }
    }

    /// The chunks of `text`, in order; none when it is all spaces.
    package func chunks(of text: String) throws -> [TextChunk] {
        try validate()
        let scalars = Array(text.unicodeScalars)
        var chunks: [TextChunk] = []
        var start = Self.skippingSpaces(scalars, from: 0)
        while start < scalars.count {
            let end = scalars.count - start <= size ? scalars.count : breakPoint(scalars, start: start)
            var textEnd = end
            while textEnd > start, scalars[textEnd - 1].properties.isWhitespace { textEnd -= 1 }
            // A window whose text all lies in the previous chunk (spaces follow it) adds no chunk.
            if textEnd > chunks.last?.end ?? start {
                chunks.append(
                    TextChunk(
                        ordinal: chunks.count, text: String(String.UnicodeScalarView(scalars[start..<textEnd])), start: start, end: textEnd
                    ))
            }
            guard end < scalars.count else { break }
            let next = overlap == 0 ? end : Self.overlapStart(scalars, from: max(end - overlap, start + 1), before: end)
            start = Self.skippingSpaces(scalars, from: next)
        }
        return chunks
    }

    /// Where the chunk starting at `start` ends (exclusive): the best break in its second half.
    private func breakPoint(_ scalars: [Unicode.Scalar], start: Int) -> Int {
        let limit = start + size
        let floor = start + size / 2
        var line: Int?
        var sentence: Int?
        var space: Int?
        for point in stride(from: limit, through: floor, by: -1) {
            let before = scalars[point - 1]
            if before == "\n", scalars[point - 2] == "\n" { return point }
            if line == nil, before == "\n" { line = point }
            if sentence == nil, Self.endsSentence(before), scalars[point].properties.isWhitespace || !before.isASCII { sentence = point }
            if space == nil, scalars[point].properties.isWhitespace { space = point }
        }
        if let found = line ?? sentence ?? space { return found }
        // No break: cut, but not between a character and its combining marks.
        var cut = limit
        while cut > floor, Self.continuesCharacter(scalars[cut]) || scalars[cut - 1] == "\u{200D}" { cut -= 1 }
        return cut
    }

    /// The first sentence start in `from..<before`, else its first word start, else `before`.
    private static func overlapStart(_ scalars: [Unicode.Scalar], from: Int, before: Int) -> Int {
        var word: Int?
        for point in from..<before where !scalars[point].properties.isWhitespace && scalars[point - 1].properties.isWhitespace {
            if scalars[point - 1] == "\n" || (point >= 2 && endsSentence(scalars[point - 2])) { return point }
            if word == nil { word = point }
        }
        return word ?? before
    }

    /// Whether `scalar` belongs to the character before it: a combining mark, a joiner, a
    /// variation selector, an emoji modifier.
    private static func continuesCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isGraphemeExtend || scalar == "\u{200D}" || scalar.properties.isVariationSelector
            || scalar.properties.isEmojiModifier
    }

    private static func endsSentence(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "." || scalar == "!" || scalar == "?" || scalar == "。" || scalar == "！" || scalar == "？"
    }

    private static func skippingSpaces(_ scalars: [Unicode.Scalar], from index: Int) -> Int {
        var index = index
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        return index
    }
}
