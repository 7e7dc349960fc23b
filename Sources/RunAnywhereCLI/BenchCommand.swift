import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereBenchmarks

/// `runanywhere bench …`: the benchmark suite.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench", abstract: "Run, list, show, export and clear benchmarks of every installed model.",
        subcommands: [Run.self, List.self, Show.self, Export.self, Clear.self]
    )

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run", abstract: "Benchmark every downloaded model of the chosen categories.",
            discussion: "Ctrl-C cancels and saves the finished results. Exit status: 0 done, 1 error, 130 cancelled."
        )
        @OptionGroup var global: GlobalOptions
        @Option(name: .long, help: "Comma-separated categories: \(Run.categoryNames) (default: all).") var category: String?
        @Option(name: .long, help: "Measured passes per scenario after one discarded warm-up; the median is reported.") var repetitions = 3
        @Option(name: .long, help: "CPU threads (default: all cores, at most 4).") var threads: Int?
        @Option(name: .long, help: "Speculative decoding by prompt lookup for language models: up to N guessed tokens a step (0: off).")
        var speculate: Int?
        @Option(
            name: .customLong("draft-model"),
            help: ArgumentHelp(
                "Speculate with MODEL (a smaller model with the same vocabulary: an id or a GGUF path) guessing up to --speculate tokens a step (default 8).",
                valueName: "MODEL"))
        var draftModel: String?
        @Option(
            name: .customLong("rpc"),
            help: ArgumentHelp(
                "Place the language models' layers on these RPC workers (runanywhere rpc-worker; comma-separated or repeated).",
                valueName: "HOST:PORT"))
        var rpc: [String] = []
        @Option(name: .long, help: "Only this scenario, e.g. \"Short generation\" (repeatable).") var scenario: [String] = []
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Embeddings: also embed the lines of this file as one batch (blank lines skipped).",
                discussion: "It adds the scenario \"Custom texts (N)\", N the number of lines.", valueName: "file"
            )) var embeddingTexts: String?
        @Flag(name: .long, help: "Print the JSON export instead of the Markdown report.") var json = false

        func validate() throws {
            guard repetitions >= 1 else { throw ValidationError("--repetitions must be at least 1") }
            if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
            try LLMSpeculation.checkFlag(speculate, draftModel: draftModel)
            try RPCEndpoint.checkFlag(rpcWorkers)
            _ = try categories()
        }

        func categories() throws -> Set<BenchmarkCategory> {
            guard let category else { return [] }
            return Set(
                try category.split(separator: ",").map { name in
                    guard let parsed = BenchmarkCategory(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased()) else {
                        throw ValidationError("Unknown category '\(name)'; use \(Self.categoryNames)")
                    }
                    return parsed
                })
        }

        /// `--rpc`'s workers, commas split.
        var rpcWorkers: [String] { RPCEndpoint.flag(rpc) }

        /// The categories `--category` takes.
        static let categoryNames = BenchmarkCategory.allCases.map(\.rawValue).joined(separator: ", ")

        /// The non-blank lines of `--embedding-texts`; none without it.
        func customTexts() throws -> [String] {
            guard let embeddingTexts else { return [] }
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: embeddingTexts))
            } catch {
                throw SDKError(.fileNotFound, "Cannot read --embedding-texts \(embeddingTexts): \(error.localizedDescription)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw SDKError(.invalidInput, "--embedding-texts \(embeddingTexts) is not UTF-8 text")
            }
            let lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            guard !lines.isEmpty else { throw SDKError(.emptyInput, "--embedding-texts \(embeddingTexts) has no lines of text") }
            return lines
        }

        func run() async throws {
            try await CLIContext.run(global, engineProcesses: !rpcWorkers.isEmpty) { context in
                let store = context.benchmarks
                let configuration = BenchmarkConfiguration(
                    runtime: try RunAnywhere.runtime(), repetitions: repetitions, threads: threads,
                    speculation: LLMSpeculation(flag: speculate, draftModel: draftModel), rpcWorkers: rpcWorkers)
                let runner = BenchmarkRunner(
                    configuration: configuration,
                    providers: BenchmarkRunner.defaultProviders(configuration) + [
                        EmbeddingBenchmarkProvider(configuration: configuration, customTexts: try customTexts())
                    ],
                    store: store, appVersion: RunAnywhereCommand.configuration.version
                )
                do {
                    try runner.checkScenarios(scenario, in: try categories())
                } catch let error as SDKError {
                    throw ValidationError(error.message)
                }
                let handle = runner.start(categories: try categories(), scenarios: Set(scenario))
                let run = await Interrupts.shared.whileRunning(onInterrupt: { handle.run.cancel() }) {
                    var progress = ProgressLine()
                    for await event in handle.events { progress.show(event) }
                    progress.finish()
                    return await handle.run.value
                }
                Terminal.write(try BenchmarkReportFormatter.format(run, as: json ? .json : .md))
                // The runner marks a run it could not save as failed (and logs why).
                if run.status == .failed { throw SDKError(.fileWriteFailed, "The run could not be saved to \(store.url.path)") }
                Terminal.standardError(
                    "Saved run \(run.id) (\(run.status.rawValue)); see it again with `runanywhere bench show \(run.id.prefix(8))`.")
                if run.status == .cancelled { throw ExitCode(130) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List saved runs, newest first.")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        struct Summary: Encodable {
            let id: String
            let startedAt: Date
            let completedAt: Date?
            let durationSeconds: Double?
            let resultCount: Int
            let status: BenchmarkRunStatus
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let runs = try BenchCommand.history(context)
                if json {
                    return try JSONOutput.print(
                        runs.map {
                            Summary(
                                id: $0.id, startedAt: $0.startedAt, completedAt: $0.completedAt, durationSeconds: $0.duration,
                                resultCount: $0.results.count, status: $0.status)
                        })
                }
                guard !runs.isEmpty else { return Terminal.write("No benchmark runs yet; start one with `runanywhere bench run`.\n") }
                Terminal.write(
                    Terminal.table(
                        ["ID", "DATE", "DURATION", "RESULTS", "STATUS"],
                        runs.map { run in
                            [
                                String(run.id.prefix(8)), run.startedAt.formatted(date: .abbreviated, time: .shortened),
                                run.duration.map { String(format: "%.1fs", $0) } ?? "-", "\(run.results.count)", run.status.rawValue,
                            ]
                        }))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a run as Markdown, JSON or CSV.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The run id or a unique prefix of it.") var runID: String
        @Option(name: .long, help: "md, json or csv.") var format: BenchmarkReportFormatter.Format = .md

        func run() async throws {
            try await CLIContext.run(global) { context in
                Terminal.write(try BenchmarkReportFormatter.format(try BenchCommand.run(runID, context), as: format))
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "export", abstract: "Write a run to a JSON or CSV file.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The run id or a unique prefix of it.") var runID: String
        @Option(name: .long, help: "json or csv.") var format: FileFormat
        @Option(name: .long, help: "The file to write (default: exports/ in the app data folder).") var output: String?

        /// The formats a run is exported in: the report's, less Markdown, which `show` prints.
        enum FileFormat: String, CaseIterable, ExpressibleByArgument {
            case json, csv

            var report: BenchmarkReportFormatter.Format { self == .json ? .json : .csv }
        }

        func run() async throws {
            try await CLIContext.run(global) { context in
                let run = try BenchCommand.run(runID, context)
                // A file named here is written as every command's --output is (its folder must exist).
                if let output {
                    try OutputFile.write(Data(try BenchmarkReportFormatter.format(run, as: format.report).utf8), to: output)
                    return Terminal.write(output + "\n")
                }
                let url = try BenchmarkStore(dataDirectory: context.configuration.dataDirectory).export(run, as: format.report)
                Terminal.write(url.path + "\n")
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Delete every saved run.")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            try await CLIContext.run(global) { context in
                let count = try BenchCommand.history(context).count
                if !yes {
                    Terminal.write("Delete all \(count) saved benchmark runs? [y/N] ")
                    guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                        return Terminal.write("Nothing deleted.\n")
                    }
                }
                try context.benchmarks.clearAll()
                Terminal.write("Deleted \(count) runs.\n")
            }
        }
    }

    /// The saved runs; an unreadable history file is reported (it was moved aside).
    static func history(_ context: CLIContext) throws -> [BenchmarkRun] {
        let history = try context.benchmarks.loadRuns()
        if let aside = history.movedAside {
            Terminal.standardError("warning: the benchmark history was unreadable and was moved to \(aside)")
        }
        return history.runs
    }

    /// The saved run `id` (or a unique prefix of it), reading the history once.
    static func run(_ id: String, _ context: CLIContext) throws -> BenchmarkRun {
        try BenchmarkStore.run(id: id, in: history(context))
    }
}

extension BenchmarkReportFormatter.Format: ExpressibleByArgument {}
