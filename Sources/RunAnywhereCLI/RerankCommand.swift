import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere rerank QUERY DOC...`: documents ranked by relevance to a query.
struct RerankCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rerank", abstract: "Rank documents by relevance to a query with a reranker (a cross-encoder).",
        discussion: """
            The reranker reads the query with each document and scores the pair; the documents are printed best first, one \
            line each: rank, score, index in the list given, and the document. Scores are the model's raw output (higher is \
            more relevant). With no --model, the first downloaded reranker (runanywhere models pull \
            \(SDKConstants.Models.suggestedRerankerID) fetches one). A document whose pair with the query is longer than the \
            model reads is an error (exit status 1) unless --truncate.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "Reranker model id (default: the first downloaded reranker).") var model: String?
    @Option(name: .long, help: "Print only the N best documents.") var topN: Int?
    @Flag(name: .long, help: "Print one JSON object: model, and results [{index, relevance_score, tokens, document}], best first.")
    var json = false
    @Flag(name: .long, help: "Shorten a document whose pair with the query is longer than the model reads, instead of refusing it.")
    var truncate = false
    @Option(name: .long, help: "CPU threads.") var threads: Int?
    @Argument(help: "The query.") var query: String
    @Argument(help: "The documents; '-' reads one document per line from standard input (blank lines are skipped).") var documents:
        [String] = []

    /// One result of `--json`.
    struct Item: Encodable {
        let index: Int
        let relevanceScore: Double
        let tokens: Int
        let document: String
        enum CodingKeys: String, CodingKey { case index, relevanceScore = "relevance_score", tokens, document }
    }

    /// The JSON object `--json` prints.
    struct Output: Encodable {
        let model: String
        let results: [Item]
    }

    func run() async throws {
        try await CLIContext.run(global) { _ in
            if let topN, topN < 1 { throw SDKError(.invalidInput, "--top-n must be at least 1 (got \(topN))") }
            let inputs: [String]
            do {
                inputs = try EmbedCommand.texts(documents, noun: "Document") { FileHandle.standardInput.readDataToEndOfFile() }
            } catch let error as SDKError where error.code == .emptyInput {
                throw SDKError(
                    .emptyInput,
                    documents.isEmpty
                        ? "No documents given: pass the documents to rank after the query, or '-' to read one per line from standard input"
                        : "Standard input has no lines of text: give one document per line")
            }
            let result = try await RunAnywhere.runtime().rerank(
                query: query, documents: inputs, model: model, options: RerankOptions(topN: topN, truncate: truncate, threads: threads),
                loadOptions: ModelLoadOptions(threads: threads)
            )
            if json {
                let items = result.results.map { Item(index: $0.index, relevanceScore: $0.score, tokens: $0.tokens, document: $0.document) }
                return try JSONOutput.print(Output(model: result.modelId, results: items))
            }
            let lines = result.results.enumerated().map { rank, item in
                "\(rank + 1). \(String(format: "%.4f", item.score))  [\(item.index)] \(item.document)\n"
            }
            Terminal.write(lines.joined())
        }
    }
}
