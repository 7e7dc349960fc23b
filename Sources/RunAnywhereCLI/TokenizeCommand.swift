import ArgumentParser
import Foundation
import RunAnywhere

/// Flags `tokenize` and `detokenize` share.
struct TokenizerFlags: ParsableArguments {
    @Option(name: .long, help: "Language model id (default: the installed default model).") var model: String?
    @Flag(name: .long, help: "Print one JSON object, in the shape llama-server's /tokenize and /detokenize answer with.") var json = false

    /// Tokenizing needs only the vocabulary: the model is loaded on the CPU with a small context.
    var loadOptions: ModelLoadOptions { ModelLoadOptions(contextLength: 64, threads: 1, gpuLayers: 0) }
}

/// `runanywhere tokenize`: the tokens a text becomes in a language model's vocabulary.
struct TokenizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenize", abstract: "Show the tokens a text becomes in a language model's vocabulary.",
        discussion: """
            Prints the token ids on one line (`runanywhere detokenize -` reads them back), or with --with-pieces each id with \
            its piece of text. By default the count is what the text counts as in a prompt: the tokens the model adds around a \
            text are included (--no-special leaves them out) and special-token text such as <|im_start|> is that token \
            (--no-parse-special reads it as plain text).
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var flags: TokenizerFlags
    @Flag(name: .customLong("with-pieces"), help: "Show each token with its piece of text.") var withPieces = false
    @Flag(name: .customLong("no-special"), help: "Add no special tokens around the text (no beginning-of-text token).") var noSpecial =
        false
    @Flag(name: .customLong("no-parse-special"), help: "Read special-token text such as <|im_start|> as plain text.") var noParseSpecial =
        false
    @Argument(help: "The text; '-' reads it from standard input.") var text: String

    /// A token for `--json --with-pieces`: its piece as text, or as its bytes when they are not whole UTF-8.
    struct PieceJSON: Encodable {
        let piece: TokenPiece
        enum CodingKeys: String, CodingKey { case id, piece }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(piece.id, forKey: .id)
            if let text = piece.text {
                try container.encode(text, forKey: .piece)
            } else {
                try container.encode(piece.bytes, forKey: .piece)
            }
        }
    }

    func run() async throws {
        try await CLIContext.run(global) { _ in
            let input = text == "-" ? try StandardInput.text() : text
            let runtime = try RunAnywhere.runtime()
            let model = flags.model ?? RunAnywhere.defaultModelID
            let pieces = try await runtime.tokenizeWithPieces(
                input, model: model, addSpecial: !noSpecial, parseSpecial: !noParseSpecial, loadOptions: flags.loadOptions
            )
            switch (flags.json, withPieces) {
            case (true, true): try JSONOutput.print(["tokens": pieces.map(PieceJSON.init)])
            case (true, false): try JSONOutput.print(["tokens": pieces.map(\.id)])
            case (false, true):
                let width = pieces.map { String($0.id).count }.max() ?? 1
                let lines = pieces.map { piece in
                    let id = String(piece.id)
                    let shown =
                        piece.text.map(\.debugDescription) ?? "<" + piece.bytes.map { String(format: "0x%02X", $0) }.joined(separator: " ")
                        + ">"
                    return String(repeating: " ", count: width - id.count) + id + "  " + shown + "\n"
                }
                Terminal.write(lines.joined())
            case (false, false): Terminal.write(pieces.map { String($0.id) }.joined(separator: " ") + "\n")
            }
        }
    }
}

/// `runanywhere detokenize`: the text token ids stand for in a language model's vocabulary.
struct DetokenizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detokenize", abstract: "Show the text token ids stand for in a language model's vocabulary.",
        discussion: "An id outside the vocabulary is an error (exit status 1)."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var flags: TokenizerFlags
    // Taken however they start, so that a negative id is an id outside the vocabulary, not an unknown option.
    @Argument(
        parsing: .allUnrecognized,
        help: "Token ids, separated by spaces or commas (the output of `tokenize`, or its JSON array); '-' reads them from standard input.")
    var tokens: [String] = []

    func validate() throws {
        if tokens.isEmpty { throw ValidationError("Missing expected argument '<tokens> ...'") }
    }

    /// The ids in `arguments`: whole numbers separated by spaces or commas, in brackets or not (a
    /// JSON array). A bracket without its pair, or a comma with no id before it, is refused.
    static func ids(_ arguments: [String]) throws -> [Int32] {
        let text = arguments.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        var list = Substring(text)
        if list.hasPrefix("[") || list.hasSuffix("]") {
            guard list.count > 1, list.hasPrefix("["), list.hasSuffix("]") else {
                throw SDKError(.invalidInput, "'\(text)' has one bracket of a JSON array without the other")
            }
            list = list.dropFirst().dropLast()
        }
        let items = list.split(separator: ",", omittingEmptySubsequences: false)
        if items.count > 1, items.contains(where: { $0.allSatisfy(\.isWhitespace) }) {
            throw SDKError(.invalidInput, "'\(text)' has a comma with no token id before or after it")
        }
        return try items.flatMap { $0.split(whereSeparator: \.isWhitespace) }.map { word in
            guard let id = Int32(word) else {
                throw SDKError(.invalidInput, "'\(word)' is not a token id (a whole number from 0 to \(Int32.max))")
            }
            return id
        }
    }

    func run() async throws {
        try await CLIContext.run(global) { _ in
            let arguments = tokens == ["-"] ? [try StandardInput.text()] : tokens
            let content = try await RunAnywhere.runtime().detokenize(
                Self.ids(arguments), model: flags.model ?? RunAnywhere.defaultModelID, loadOptions: flags.loadOptions
            )
            if flags.json { return try JSONOutput.print(["content": content]) }
            Terminal.write(content + "\n")
        }
    }
}
