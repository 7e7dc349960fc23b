import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere embed TEXT...`: the embedding vectors of texts.
struct EmbedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embed", abstract: "Turn texts into embedding vectors (for search, clustering and RAG).",
        discussion: """
            Embeds each text on its own, all of them batched into as few engine calls as the model's context allows, and prints \
            one line per text: its index, tokens, dimensions and first values. Vectors are L2-normalized, so a dot product of \
            two is their cosine similarity. A text longer than the model reads is an error (exit status 1) unless --truncate.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "Embedding model id (default: \(SDKConstants.Models.defaultEmbeddingModelID)).") var model: String?
    @Flag(name: .long, help: "Print one JSON object: model, dimensions, and data [{index, tokens, embedding}].") var json = false
    @Flag(name: .long, help: "Cut a text longer than the model reads to fit, instead of refusing it.") var truncate = false
    @Option(name: .long, help: "CPU threads.") var threads: Int?
    @Argument(help: "The texts; '-' reads one text per line from standard input (blank lines are skipped).") var texts: [String] = []

    /// One text of `--json`'s `data`.
    struct Item: Encodable {
        let index: Int
        let tokens: Int
        let embedding: [Float]
    }

    /// The JSON object `--json` prints.
    struct Output: Encodable {
        let model: String
        let dimensions: Int
        let data: [Item]
    }

    /// The first values a text line shows.
    static let shownValues = 5

    /// `arguments` with each `-` replaced by the lines of `standardInput` (read once), blank ones left
    /// out; an argument of spaces alone is refused, named as the SDK names inputs (`Text 0`, or
    /// `noun` and its index from 0; an empty one is the SDK's to refuse).
    static func texts(_ arguments: [String], noun: String = "Text", standardInput: () -> Data) throws -> [String] {
        var lines: [String]?
        let texts = try arguments.enumerated().flatMap { index, argument -> [String] in
            guard argument == "-" else {
                if !argument.isEmpty, argument.allSatisfy(\.isWhitespace) {
                    throw SDKError(.invalidInput, "\(noun) \(index) is blank: it holds only spaces")
                }
                return [argument]
            }
            if lines == nil {
                lines = try StandardInput.text(of: standardInput()).split(omittingEmptySubsequences: false) {
                    $0 == "\n" || $0 == "\r\n"
                }
                .map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            }
            return lines ?? []
        }
        guard !texts.isEmpty else {
            let what = arguments.isEmpty ? "No texts given" : "Standard input has no lines of text"
            throw SDKError(.emptyInput, "\(what): pass the texts to embed as arguments, or '-' to read one per line from standard input")
        }
        return texts
    }

    func run() async throws {
        try await CLIContext.run(global) { _ in
            let inputs = try Self.texts(texts) { FileHandle.standardInput.readDataToEndOfFile() }
            let result = try await RunAnywhere.runtime().embed(
                inputs, model: model, options: EmbeddingOptions(truncate: truncate, threads: threads),
                loadOptions: ModelLoadOptions(threads: threads)
            )
            if json {
                let data = result.embeddings.indices.map {
                    Item(index: $0, tokens: result.tokenCounts[$0], embedding: result.embeddings[$0])
                }
                return try JSONOutput.print(Output(model: result.modelId, dimensions: result.dimensions, data: data))
            }
            let lines = result.embeddings.indices.map { index in
                let values = result.embeddings[index].prefix(Self.shownValues).map { String(format: "%.4f", $0) }.joined(separator: " ")
                let more = result.dimensions > Self.shownValues ? " …" : ""
                return "[\(index)] \(result.tokenCounts[index]) tokens, \(result.dimensions) dimensions: \(values)\(more)\n"
            }
            Terminal.write(lines.joined())
        }
    }
}
