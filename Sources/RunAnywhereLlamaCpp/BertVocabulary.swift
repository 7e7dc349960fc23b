import Foundation
import RunAnywhere

/// A WordPiece `vocab.txt` in the form llama.cpp's "bert" tokenizer model reads: its tokenizer
/// prepends "▁" (U+2581, the phantom space) to every word and matches the longest tokens, so a
/// word-initial token `play` is stored as `▁play`, a continuation `##ing` as `ing`, and the
/// special tokens as they are.
struct BertVocabulary {
    /// llama.cpp's token types.
    enum TokenType: Int32 { case normal = 1, control = 3, unused = 5 }

    /// The tokens in llama.cpp's form, by id.
    let tokens: [String]
    /// Each token's type: the special tokens control, ids past the file's last line unused, the rest normal.
    let types: [Int32]
    /// The special tokens' ids.
    let unknown: UInt32, separator: UInt32, padding: UInt32, classifier: UInt32, mask: UInt32

    /// Reads `url` (one token a line, the id its line number) for a model of `size` tokens; ids
    /// past the file's lines become unused `[PAD<id>]` tokens.
    init(contentsOf url: URL, size: Int, special: BertSourceConfiguration.SpecialTokens) throws {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SDKError.fileManagement(.fileNotFound, "\(url.path) is missing: not a Hugging Face BERT model folder")
        }
        guard String(data: data, encoding: .utf8) != nil else {
            throw SDKError.fileManagement(.invalidModelFormat, "\(url.lastPathComponent) is not UTF-8 text")
        }
        // Split at each "\n" byte (a "\r" before it stays in the token, as the Hugging Face reader
        // keeps it); tokens are told apart by their bytes, as llama.cpp tells them apart.
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if lines.last == "" { lines.removeLast() }
        guard !lines.isEmpty, lines.count <= size else {
            throw SDKError.fileManagement(
                .invalidModelFormat, "\(url.lastPathComponent) has \(lines.count) tokens; config.json's vocab_size is \(size)")
        }
        var ids: [[UInt8]: Int] = [:]
        for (id, token) in lines.enumerated() {
            if let earlier = ids.updateValue(id, forKey: Array(token.utf8)) {
                throw SDKError.fileManagement(
                    .invalidModelFormat,
                    "\(url.lastPathComponent) has the token \(token.debugDescription) twice (lines \(earlier + 1) and \(id + 1))")
            }
        }
        func id(_ token: String, _ role: String) throws -> UInt32 {
            guard let id = ids[Array(token.utf8)] else {
                throw SDKError.fileManagement(
                    .invalidModelFormat, "\(url.lastPathComponent) has no \(token) token (the \(role) token the tokenizer names)")
            }
            return UInt32(id)
        }
        unknown = try id(special.unknown, "unknown")
        separator = try id(special.separator, "separator")
        padding = try id(special.padding, "padding")
        classifier = try id(special.classifier, "classifier")
        mask = try id(special.mask, "mask")
        let control = Set([special.unknown, special.separator, special.padding, special.classifier, special.mask].map { Array($0.utf8) })

        var tokens: [String] = []
        var types: [Int32] = []
        var seen: [[UInt8]: Int] = [:]
        for (id, token) in lines.enumerated() {
            let bytes = Array(token.utf8)
            let isControl = control.contains(bytes)
            let converted =
                isControl
                ? token : bytes.starts(with: [0x23, 0x23]) ? String(decoding: bytes.dropFirst(2), as: UTF8.self) : "\u{2581}" + token
            if let earlier = seen.updateValue(id, forKey: Array(converted.utf8)) {
                throw SDKError.fileManagement(
                    .invalidModelFormat,
                    "\(url.lastPathComponent)'s tokens \(lines[earlier].debugDescription) and \(token.debugDescription) are both \(converted.debugDescription) in llama.cpp's form"
                )
            }
            tokens.append(converted)
            types.append((isControl ? TokenType.control : .normal).rawValue)
        }
        for id in lines.count..<size {
            tokens.append("[PAD\(id)]")
            types.append(TokenType.unused.rawValue)
        }
        self.tokens = tokens
        self.types = types
    }
}
