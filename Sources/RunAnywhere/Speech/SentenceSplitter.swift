import Foundation

/// Splits long text into chunks of whole sentences for synthesis.
enum SentenceSplitter {
    /// Sentences end at `.`, `!`, `?` (followed by a space or the end) or a line break; chunks
    /// join sentences up to `limit` characters (a longer sentence is cut at spaces). `growing`
    /// chunks, a stream's, start with one sentence, so that its first audio comes soon, and each
    /// holds up to twice the one before (a voice speaks a few long chunks faster than many short ones).
    static func chunks(_ text: String, limit: Int = 400, growing: Bool = false) -> [String] {
        var sentences: [String] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            current.append(character)
            let next = index + 1 < characters.count ? characters[index + 1] : " "
            if character.isNewline || ("!?.".contains(character) && next.isWhitespace) {
                sentences.append(current)
                current = ""
            }
        }
        sentences.append(current)
        var chunks: [String] = []
        var chunk = ""
        var room = growing ? 0 : limit
        for sentence in sentences.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !sentence.isEmpty {
            for piece in cut(sentence, limit: limit) {
                if !chunk.isEmpty, chunk.count + piece.count + 1 > room {
                    chunks.append(chunk)
                    if growing { room = min(limit, max(room, chunk.count) * 2) }
                    chunk = ""
                }
                chunk += chunk.isEmpty ? piece : " " + piece
            }
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        return chunks
    }

    private static func cut(_ sentence: String, limit: Int) -> [String] {
        guard sentence.count > limit else { return [sentence] }
        var pieces: [String] = []
        var piece = ""
        for word in sentence.split(separator: " ") {
            if !piece.isEmpty, piece.count + word.count + 1 > limit {
                pieces.append(piece)
                piece = ""
            }
            piece += piece.isEmpty ? String(word) : " " + word
        }
        if !piece.isEmpty { pieces.append(piece) }
        return pieces
    }
}
