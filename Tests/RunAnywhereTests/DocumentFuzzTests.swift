import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Seeded random documents through the RAG reader and chunker: markup cut anywhere, references,
/// spaces, combining marks and emoji never crash them, and every split keeps its invariants.
struct DocumentFuzzTests {
    /// Pieces a random document is made of.
    static let pieces = [
        "<p>", "</p>", "<div class=\"a>b\">", "</div>", "<br>", "<br/>", "<script>", "</script>", "<style>x{}</style>", "<!--", "-->",
        "<pre>\n", "</pre>", "<li>", "<td>", "<", ">", "&", "&amp;", "&#", "&#x1F431;", "&eacute", "&nbsp;", "&#99999999;", "'", "\"",
        " ", "  ", "\n", "\n\n", "\t", ".", "! ", "? ", "word", "Sentence. ", "e\u{301}", "👩‍👩‍👧", "\u{200D}", "日本語。", "x",
    ]

    @Test(arguments: 0..<TestEnvironment.fuzzCases())
    func randomDocumentsReadAndSplit(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed))
        let text = (0..<Int.random(in: 0...400, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
        let html = HTMLText.text(of: text)
        // Spaces never end the text (a `<pre>`'s may start it).
        #expect(html.unicodeScalars.last?.properties.isWhitespace != true, "\(text.debugDescription)")
        let size = Int.random(in: TextChunker.minimumSize...300, using: &random)
        let chunker = TextChunker(size: size, overlap: Int.random(in: 0..<(size / 2), using: &random))
        for document in [text, html] {
            let scalars = Array(document.unicodeScalars)
            let chunks = try chunker.chunks(of: document)
            var covered = 0
            for (index, chunk) in chunks.enumerated() {
                #expect(chunk.ordinal == index && chunk.end - chunk.start <= size && chunk.start < chunk.end)
                #expect(chunk.text == String(String.UnicodeScalarView(scalars[chunk.start..<chunk.end])))
                if index > 0 {
                    let previous = chunks[index - 1]
                    #expect(chunk.start > previous.start && chunk.end > previous.end && previous.end - chunk.start <= chunker.overlap)
                }
                covered = chunk.end
            }
            #expect(scalars[covered...].allSatisfy { $0.properties.isWhitespace }, "the text after the last chunk is spaces")
        }
    }
}
