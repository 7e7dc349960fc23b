import Foundation

/// Splits long text into chunks of whole sentences for synthesis.
enum SentenceSplitter {
    /// Sentences end at `.`, `!`, `?` (followed by a space or the end) or a line break; chunks
    /// join sentences up to `limit` characters (a longer sentence is cut at spaces).
    static func chunks(_ text: String, limit: Int = 400) -> [String] {
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
        for sentence in sentences.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !sentence.isEmpty {
            for piece in cut(sentence, limit: limit) {
                if !chunk.isEmpty, chunk.count + piece.count + 1 > limit {
                    chunks.append(chunk)
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
