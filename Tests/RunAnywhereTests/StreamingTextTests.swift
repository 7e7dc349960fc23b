import RunAnywhere
import Testing

@Suite struct UTF8StreamDecoderTests {
    /// Splitting the bytes of multi-byte text at every position never yields a broken character.
    @Test func holdsBackSplitCharacters() {
        let text = "héllo 🌍 日本語 ok"
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var decoder = UTF8StreamDecoder()
            let first = decoder.decode(Array(bytes[..<cut]))
            let second = decoder.decode(Array(bytes[cut...]))
            let rest = decoder.finish()
            #expect(first + second + rest == text, "cut at \(cut)")
            #expect(!first.contains("\u{FFFD}") && !second.contains("\u{FFFD}"))
        }
    }

    @Test func byteByByte() {
        let text = "🌍a€"
        var decoder = UTF8StreamDecoder()
        var pieces: [String] = []
        for byte in text.utf8 { pieces.append(decoder.decode([byte])) }
        #expect(pieces == ["", "", "", "🌍", "a", "", "", "€"])
    }

    @Test func invalidBytesBecomeReplacementCharacters() {
        var decoder = UTF8StreamDecoder()
        #expect(decoder.decode([0x61, 0xFF, 0x62]) == "a\u{FFFD}b")
        #expect(decoder.decode([0xE2, 0x82]) == "")
        #expect(decoder.finish() == "\u{FFFD}")
    }
}

@Suite struct ThinkingParserTests {
    static let text = "<think>Let me add 2 and 2.</think>The answer is 4."

    @Test func splitsWholeText() {
        let split = ThinkingParser.split(Self.text)
        #expect(split.thinking == "Let me add 2 and 2.")
        #expect(split.response == "The answer is 4.")
    }

    @Test func noTagsMeansNoThinking() {
        let split = ThinkingParser.split("Just an answer <thin")
        #expect(split.thinking == nil)
        #expect(split.response == "Just an answer <thin")
    }

    /// A tag cut across two pieces at any point is still recognised and never shown.
    @Test func tagsCutAcrossPieces() {
        for cut in 0...Self.text.count {
            var parser = ThinkingParser()
            let first = parser.feed(String(Self.text.prefix(cut)))
            let second = parser.feed(String(Self.text.dropFirst(cut)))
            let chunks = first + second + parser.finish()
            let thinking = chunks.compactMap { if case .thinking(let t) = $0 { t } else { nil } }.joined()
            let response = chunks.compactMap { if case .response(let r) = $0 { r } else { nil } }.joined()
            #expect(thinking == "Let me add 2 and 2.", "cut at \(cut)")
            #expect(response == "The answer is 4.", "cut at \(cut)")
        }
    }

    @Test func characterByCharacter() {
        var parser = ThinkingParser()
        var chunks: [ThinkingChunk] = []
        for character in Self.text { chunks += parser.feed(String(character)) }
        chunks += parser.finish()
        #expect(!chunks.contains { if case .response(let r) = $0 { r.contains("<") } else { false } })
        #expect(parser.sawThinking)
        #expect(!parser.isThinking)
    }

    @Test func unclosedThinkingStaysThinking() {
        var parser = ThinkingParser()
        let chunks = parser.feed("<think>still going") + parser.finish()
        #expect(chunks == [.thinking("still going")])
        #expect(parser.isThinking)
    }

    @Test func customPattern() {
        let split = ThinkingParser.split("<thinking>hmm</thinking> ok", pattern: .thinkingPattern)
        #expect(split.thinking == "hmm")
        #expect(split.response == "ok")
    }
}
