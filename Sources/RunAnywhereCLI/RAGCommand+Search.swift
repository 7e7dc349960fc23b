import ArgumentParser
import Foundation
import RunAnywhere

extension RAGCommand {
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "The passages of a collection closest to a query, best first, with no answer made.",
            discussion: "The retrieval of `rag query` alone: for a prompt of your own, or to see what a question would be answered from."
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: RAGDatabaseOption
        @OptionGroup var retrieval: RAGRetrievalOptions
        @Option(name: .long, help: "CPU threads (default: all cores, at most 4).") var threads: Int?
        @Flag(name: .long, help: "Print one JSON object: collection, and sources [{document, text, score, rerankScore, …}] best first.")
        var json = false
        @Argument(help: "The query; '-' reads it from standard input.") var query: String

        /// The JSON object `--json` prints.
        struct Output: Encodable {
            let collection: String
            let sources: [Query.Source]
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let text = query == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : query
                let threads = threads ?? context.settings().threads
                let sources = try await store.withSession { session in
                    try await session.retrieve(
                        text, collection: retrieval.collection, topK: retrieval.topK, threads: threads,
                        reranker: try retrieval.rerankerChoice())
                }
                if json {
                    try JSONOutput.print(Output(collection: retrieval.collection, sources: Query.Source.numbered(sources)))
                } else {
                    Terminal.write(Query.sourcesText(sources))
                }
            }
        }
    }
}
