import Foundation
import RunAnywhere
import Testing

/// How an ``Infill`` becomes a prompt, on a vocabulary of single bytes (each byte its own token,
/// the marks past them), so that the layout and what is cut to fit can be read token by token.
/// The engine's own vocabulary is used in `LlamaTests.Infill`.
struct InfillTests {
    struct Bytes: TokenizerAdapter {
        var beginning: [Int32] = []
        var vocabularySize: Int { 300 }
        func tokenize(_ text: String, addSpecial: Bool, parseSpecial: Bool) throws -> [Int32] {
            (addSpecial ? beginning : []) + text.utf8.map(Int32.init)
        }
        func piece(_ token: Int32) throws -> [UInt8] { [UInt8(token)] }
    }

    static let repo: FillInTheMiddleTokens = .init(prefix: 256, suffix: 257, middle: 258, repository: 259, fileSeparator: 260)
    static let plain: FillInTheMiddleTokens = .init(prefix: 256, suffix: 257, middle: 258)

    static func bytes(_ text: String) -> [Int32] { text.utf8.map(Int32.init) }

    @Test func aGapIsWrittenPrefixSuffixMiddle() throws {
        let gap = Infill(prefix: "a = ", suffix: "\nb")
        let (tokens, trimmed) = try gap.tokens(in: Bytes(beginning: [1]), marks: Self.repo, contextLength: 100, room: 10)
        #expect(tokens == [1, 256] + Self.bytes("a = ") + [257] + Self.bytes("\nb") + [258] && !trimmed)
    }

    @Test func filesComeFirstUnderTheRepositoryAndEachSeparator() throws {
        let gap = Infill(prefix: "p", suffix: "s", files: [.init(path: "x.py", text: "X"), .init(path: "y.py", text: "Y")], path: "z.py")
        let (tokens, _) = try gap.tokens(in: Bytes(), marks: Self.repo, contextLength: 200, room: 10)
        let expected: [Int32] =
            [259] + Self.bytes("myproject\n") + [260] + Self.bytes("x.py\nX") + [260] + Self.bytes("y.py\nY") + [260]
            + Self.bytes("z.py\n") + [256] + Self.bytes("p") + [257] + Self.bytes("s") + [258]
        #expect(tokens == expected)
        let named = Infill(prefix: "p", suffix: "s", files: [], path: "z.py", repository: "geo")
        #expect(
            try named.tokens(in: Bytes(), marks: Self.repo, contextLength: 200, room: 10).tokens.prefix(5) == [259] + Self.bytes("geo\n"))
        // Without a file separator, files are snippets, and there is no header.
        let snippets = try gap.tokens(in: Bytes(), marks: Self.plain, contextLength: 200, room: 10).tokens
        #expect(snippets == Self.bytes("\n\n--- snippet ---\n\nX\n\n--- snippet ---\n\nY") + [256, 112, 257, 115, 258])
    }

    /// What does not fit leaves room for the answer: the earliest files first, whole, then the
    /// far ends of the prefix and the suffix, three quarters of the text for the prefix.
    @Test func whatDoesNotFitIsCutFromItsFarEnds() throws {
        let files: [Infill.File] = [.init(path: "a", text: String(repeating: "a", count: 30)), .init(path: "b", text: "bb")]
        let short = Infill(prefix: "0123456789", suffix: "9876543210", files: files, path: "c")
        // Context 64, room 10: 54 for the prompt; 3 marks, [SEP]c\n (3), [REP]myproject\n (11), the text (20): 17 left for files.
        let (kept, trimmed) = try short.tokens(in: Bytes(), marks: Self.repo, contextLength: 64, room: 10)
        #expect(trimmed && kept.count == 42 && !kept.contains(Self.bytes("a")[0]) && kept.contains(Self.bytes("b")[0]), "\(kept)")

        let long = Infill(prefix: String(repeating: "p", count: 40) + "END", suffix: "BEGIN" + String(repeating: "s", count: 40))
        let (cut, cutTrimmed) = try long.tokens(in: Bytes(), marks: Self.plain, contextLength: 64, room: 23)
        // 64 - 23 = 41 for the prompt, 38 for the text: the suffix a quarter (9), the prefix the rest (29).
        #expect(cutTrimmed && cut.count == 41)
        #expect(cut == [256] + Self.bytes(String(repeating: "p", count: 26) + "END") + [257] + Self.bytes("BEGIN" + "ssss") + [258])
        // A short prefix leaves the rest to the suffix.
        let lopsided = Infill(prefix: "p", suffix: String(repeating: "s", count: 100))
        #expect(try lopsided.tokens(in: Bytes(), marks: Self.plain, contextLength: 64, room: 10).tokens.count == 54)
        // The answer's room is at most half the context: a huge maxTokens does not empty the prompt.
        #expect(try long.tokens(in: Bytes(), marks: Self.plain, contextLength: 64, room: .max).tokens.count == 32)
        let error = #expect(throws: SDKError.self) {
            try long.tokens(in: Bytes(beginning: [1, 1]), marks: Self.repo, contextLength: 8, room: 4)
        }
        #expect(error?.code == .contextTooLong)
    }
}
