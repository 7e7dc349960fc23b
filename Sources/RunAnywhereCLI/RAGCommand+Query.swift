import ArgumentParser
import Foundation
import RunAnywhere

extension RAGCommand {
    struct Query: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "query", abstract: "Answer a question from a collection: the answer streamed, then its numbered sources.",
            discussion: "Ctrl-C stops the answer and keeps what was written. Exit status: 0 done, 1 error, 130 interrupted."
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: RAGDatabaseOption
        @OptionGroup var retrieval: RAGRetrievalOptions
        @Option(name: .long, help: "Language model id (default: \(RunAnywhere.defaultModelID)).") var model: String?
        @Option(name: .customLong("max-tokens"), help: "Most tokens of the answer.") var maxTokens: Int?
        @Option(name: .long, help: "Sampling temperature, 0 to 2; 0 is greedy and deterministic.") var temperature: Float?
        @Option(name: .long, help: "Sampling seed, for repeatable sampled output.") var seed: UInt32?
        @Option(name: .long, help: "CPU threads (default: all cores, at most 4).") var threads: Int?
        @Flag(name: .long, help: "Print one JSON object: answer, and sources [{document, text, score, rerankScore, …}] best first.")
        var json = false
        @Argument(help: "The question; '-' reads it from standard input.") var question: String

        /// One source of `--json`.
        struct Source: Encodable {
            let number: Int
            let document: String
            let text: String
            let score: Double
            let rerankScore: Double?
            let ordinal: Int
            let start: Int
            let end: Int

            /// `sources`, best first, numbered.
            static func numbered(_ sources: [RAGSource]) -> [Source] {
                sources.enumerated().map { index, source in
                    Source(
                        number: index + 1, document: source.documentPath, text: source.text, score: source.score,
                        rerankScore: source.rerankScore, ordinal: source.ordinal, start: source.start, end: source.end)
                }
            }
        }

        /// The JSON object `--json` prints.
        struct Output: Encodable {
            let answer: String
            let sources: [Source]
            let collection: String
            let reranker: String?
            let model: String
            let stopReason: String
            let tokensUsed: Int
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let text = question == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : question
                let settings = context.settings()
                var options = settings.options
                if let maxTokens { options.maxTokens = maxTokens }
                if let temperature { options.temperature = temperature }
                options.seed = seed
                let threads = threads ?? settings.threads
                options.threads = threads
                let query = RAGQueryOptions(
                    generation: options, model: model ?? RunAnywhere.defaultModelID, loadOptions: ModelLoadOptions(threads: threads),
                    embeddingThreads: threads,
                    reranker: try retrieval.rerankerChoice()
                )
                let result = try await store.withSession { session in
                    try await Self.stream(
                        try await session.query(text, collection: retrieval.collection, topK: retrieval.topK, options: query),
                        printing: !json)
                }
                if json {
                    try JSONOutput.print(
                        Output(
                            answer: result.text,
                            sources: Source.numbered(result.sources),
                            collection: result.collection, reranker: result.reranker, model: result.generation.modelUsed,
                            stopReason: result.generation.stopReason.rawValue,
                            tokensUsed: result.generation.tokensUsed
                        ))
                } else {
                    Terminal.write(Self.sourcesText(result.sources))
                }
                if result.generation.stopReason == .cancelled { throw ExitCode(130) }
            }
        }

        /// Reads `answer` to its end, printing it as it comes when `printing` (as `generate` does:
        /// the reasoning dimmed on a terminal); Ctrl-C stops it.
        static func stream(_ answer: RAGAnswerEvents, printing: Bool) async throws -> RAGAnswer {
            try await Interrupts.shared.whileRunning(onInterrupt: { answer.cancel() }) {
                var printer = StreamPrinter()
                var result: RAGAnswer?
                for try await event in answer {
                    if case .completed(let final) = event { result = answer.answer(final) } else if printing { printer.print(event) }
                }
                if printing { printer.finish() }
                guard let result else { throw CancellationError() }
                return result
            }
        }

        /// The numbered sources under an answer: document, scores, and the passage's start.
        static func sourcesText(_ sources: [RAGSource]) -> String {
            let lines = sources.enumerated().map { index, source in
                let passage = source.text.split(whereSeparator: \.isNewline).joined(separator: " ")
                let excerpt = passage.count > 160 ? passage.prefix(160) + "…" : passage
                let rerank = source.rerankScore.map { ", rerank \(String(format: "%.3f", $0))" } ?? ""
                let place = "score \(String(format: "%.3f", source.score))\(rerank), characters \(source.start)–\(source.end)"
                return "[\(index + 1)] \(source.documentPath) (\(place))\n    \(Terminal.dim(String(excerpt)))\n"
            }
            return "\n" + Terminal.bold("Sources") + "\n" + lines.joined()
        }
    }
}
