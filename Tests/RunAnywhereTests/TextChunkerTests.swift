import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Splitting documents into overlapping chunks on paragraph, line, sentence and word boundaries.
struct TextChunkerTests {
    /// Checks what every split must hold: each chunk is the text between its offsets, within
    /// the size, non-empty and trimmed; chunks advance, overlap at most by about the overlap, and
    /// together cover every non-space character.
    func checkInvariants(_ chunks: [TextChunk], of text: String, chunker: TextChunker, sourceLocation: SourceLocation = #_sourceLocation) {
        let scalars = Array(text.unicodeScalars)
        var covered = Array(repeating: false, count: scalars.count)
        for (index, chunk) in chunks.enumerated() {
            #expect(chunk.ordinal == index, sourceLocation: sourceLocation)
            #expect(chunk.text == String(String.UnicodeScalarView(scalars[chunk.start..<chunk.end])), sourceLocation: sourceLocation)
            #expect(chunk.end - chunk.start <= chunker.size && !chunk.text.isEmpty, sourceLocation: sourceLocation)
            #expect(chunk.text.first?.isWhitespace == false && chunk.text.last?.isWhitespace == false, sourceLocation: sourceLocation)
            if index > 0 {
                let previous = chunks[index - 1]
                #expect(chunk.start > previous.start && chunk.end > previous.end, sourceLocation: sourceLocation)
                #expect(previous.end - chunk.start <= chunker.overlap, "overlap of chunk \(index)", sourceLocation: sourceLocation)
            }
            for offset in chunk.start..<chunk.end { covered[offset] = true }
        }
        let missed = scalars.indices.filter { !covered[$0] && !scalars[$0].properties.isWhitespace }
        #expect(missed.isEmpty, "characters in no chunk: \(missed.prefix(5))", sourceLocation: sourceLocation)
    }

    @Test func splitsOnParagraphsThenSentencesWithOverlap() throws {
        let paragraph = { (n: Int) in (1...6).map { "Paragraph \(n) sentence \($0) is here." }.joined(separator: " ") }
        let text = (1...5).map(paragraph).joined(separator: "\n\n")
        let chunker = TextChunker(size: 300, overlap: 60)
        let chunks = try chunker.chunks(of: text)
        checkInvariants(chunks, of: text, chunker: chunker)
        #expect(chunks.count > 2)
        // Each paragraph is 191 characters: a chunk ends at a paragraph's end when one is in its second half.
        for chunk in chunks.dropLast() {
            #expect(chunk.text.hasSuffix("sentence 6 is here."), "\(chunk.text)")
        }
        // The next chunk starts at a sentence of the end of the previous one.
        for (previous, chunk) in zip(chunks, chunks.dropFirst()) {
            #expect(chunk.text.hasPrefix("Paragraph"), "\(chunk.text)")
            #expect(previous.text.hasSuffix(String(String.UnicodeScalarView(Array(text.unicodeScalars)[chunk.start..<previous.end]))))
        }
    }

    @Test func splitsLongParagraphsAtSentencesThenWords() throws {
        let sentences = (1...40).map { "Sentence number \($0) ends here." }.joined(separator: " ")
        let chunker = TextChunker(size: 200, overlap: 50)
        let chunks = try chunker.chunks(of: sentences)
        checkInvariants(chunks, of: sentences, chunker: chunker)
        for chunk in chunks { #expect(chunk.text.hasPrefix("Sentence") && chunk.text.hasSuffix("here."), "\(chunk.text)") }
        #expect(chunks.dropFirst().allSatisfy { chunk in chunks[chunk.ordinal - 1].end > chunk.start }, "consecutive chunks overlap")

        let words = (1...200).map { "word\($0)" }.joined(separator: " ")
        let wordChunks = try chunker.chunks(of: words)
        checkInvariants(wordChunks, of: words, chunker: chunker)
        for chunk in wordChunks {
            #expect(chunk.text.hasPrefix("word") && chunk.text.split(separator: " ").allSatisfy { $0.hasPrefix("word") && $0.count > 4 })
        }
    }

    @Test func withoutBreaksCutsWholeCharacters() throws {
        let text = String(repeating: "e\u{301}", count: 100) + String(repeating: "👩‍👩‍👧", count: 30)
        let chunker = TextChunker(size: 41, overlap: 10)
        let chunks = try chunker.chunks(of: text)
        checkInvariants(chunks, of: text, chunker: chunker)
        for chunk in chunks {
            // Every chunk is whole characters: it starts and ends on a character boundary.
            #expect(chunk.text.unicodeScalars.first != "\u{301}" && chunk.text.unicodeScalars.last != "\u{200D}", "\(chunk.start)")
        }
    }

    @Test func shortEmptyAndOverlapFreeTexts() throws {
        #expect(try TextChunker().chunks(of: "  \n ").isEmpty)
        let one = try TextChunker().chunks(of: "\n  Just one line.  \n")
        #expect(one == [TextChunk(ordinal: 0, text: "Just one line.", start: 3, end: 17)])
        let text = (1...30).map { "Line \($0)." }.joined(separator: "\n")
        let chunker = TextChunker(size: 50, overlap: 0)
        let chunks = try chunker.chunks(of: text)
        checkInvariants(chunks, of: text, chunker: chunker)
        for (previous, chunk) in zip(chunks, chunks.dropFirst()) { #expect(chunk.start > previous.end, "no overlap") }
        for chunk in chunks { #expect(chunk.text.hasPrefix("Line") && chunk.text.hasSuffix(".")) }
    }

    @Test func validatesItsSettings() {
        #expect(throws: SDKError.self) { try TextChunker(size: 10).chunks(of: "x") }
        #expect(throws: SDKError.self) { try TextChunker(size: 100, overlap: 50).validate() }
        #expect(throws: SDKError.self) { try TextChunker(size: 100, overlap: -1).validate() }
        #expect(throws: Never.self) { try TextChunker(size: 100, overlap: 49).validate() }
    }
}
