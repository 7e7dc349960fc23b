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
        @Option(name: .long, help: "The collection to search.") var collection = RAGCollection.defaultName
        @Option(name: .customLong("top-k"), help: "Passages returned (1 to \(RAGQueryOptions.maxTopK)).") var topK = RAGQueryOptions
            .defaultTopK
        @Option(name: .long, help: "CPU threads (default: all cores, at most 4).") var threads: Int?
        @Option(
            name: .long,
            help:
                "Reranker id, or none: rerank \(RAGReranker.candidatesPerSource)× top-k passages and keep the best (default: the first downloaded reranker, if any)."
        ) var reranker: String?
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
                        text, collection: collection, topK: topK, threads: threads,
                        reranker: try reranker.map(RAGReranker.init(parsing:)) ?? .automatic)
                }
                if json {
                    try JSONOutput.print(Output(collection: collection, sources: Query.Source.numbered(sources)))
                } else {
                    Terminal.write(Query.sourcesText(sources))
                }
            }
        }
    }
}
