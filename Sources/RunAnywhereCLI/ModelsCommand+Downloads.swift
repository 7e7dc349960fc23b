import ArgumentParser
import Foundation
import RunAnywhere

extension ModelsCommand {
    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull", abstract: "Download a model, showing percent, bytes, speed and time left.",
            discussion: "Ctrl-C stops and keeps what was downloaded; pulling again resumes. Exit status 130 when interrupted."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model id, or a reference such as hf.co/OWNER/REPO:QUANT (registered first).") var id: String

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let runtime = try RunAnywhere.runtime()
                guard (try? runtime.model(id: id)) == nil, runtime.isModelReference(id) else { return try await ModelsCommand.download(id) }
                let model = try await runtime.addModel(reference: id)
                try await ModelsCommand.download(model.id)
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a model from a URL (http, https or file) or a Hugging Face reference, then download it.",
            discussion: """
                The category comes first; only a framework that runs it and reads the URL's format is accepted. A reference \
                (hf.co/OWNER/REPO:QUANT, ollama's form; without :QUANT, Q4_K_M or the first GGUF file) registers that GGUF \
                file of the repository as a language model with its size and sha256; HF_TOKEN is sent to Hugging Face only.
                """
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Where to download the model from: a URL, or hf.co/OWNER/REPO[:QUANT].") var url: String
        @Option(
            name: .long,
            help: "What the model does: \(ModelCategory.allCases.map(\.rawValue).joined(separator: ", ")) (required for a URL).")
        var category: ModelCategory?
        @Option(name: .long, help: "The framework (default: the first installed one that fits).") var framework: String?
        @Option(name: .long, help: "Model id (default: derived from the file name).") var id: String?
        @Option(name: .long, help: "Display name.") var name: String?
        @Option(name: .long, help: "Expected sha256; a mismatch deletes the download.") var sha256: String?
        @Flag(name: .customLong("no-download"), help: "Only register the model.") var noDownload = false
        @Flag(name: .long, help: "Load the model after downloading, to check it works.") var load = false

        func run() async throws {
            try await CLIContext.run(global) { _ in
                if try RunAnywhere.runtime().isModelReference(url) { return try await addReference() }
                guard let parsed = URL(string: url), parsed.scheme != nil else { throw SDKError(.invalidInput, "'\(url)' is not a URL") }
                guard let category else { throw SDKError(.invalidInput, "--category is required to add a model from a URL") }
                var chosen: InferenceFramework?
                if let framework {
                    guard let known = InferenceFramework(caseInsensitive: framework) else {
                        throw SDKError(.invalidInput, "Unknown framework '\(framework)'")
                    }
                    chosen = known
                }
                let model = try RunAnywhere.runtime().addModel(
                    from: parsed, category: category, framework: chosen, id: id, name: name, sha256: sha256)
                Terminal.write(
                    "Added \(Terminal.bold(model.id)) (\(model.name), \(model.framework.displayName), \(model.format.rawValue), \(model.artifactType.displayName))\n"
                )
                try await finish(model)
            }
        }

        /// Registers the model a reference names: its category, framework, id and checksum come from its provider.
        private func addReference() async throws {
            let given = [
                ("--category", category != nil), ("--framework", framework != nil), ("--id", id != nil), ("--name", name != nil),
                ("--sha256", sha256 != nil),
            ]
            if let option = given.first(where: \.1) {
                throw SDKError(.invalidInput, "\(option.0) does not apply to a reference: its provider says what the model is")
            }
            let model = try await RunAnywhere.runtime().addModel(reference: url)
            Terminal.write(
                "Registered \(Terminal.bold(model.id)) (\(model.name), \(model.downloadSize.map(Terminal.bytes) ?? "size unknown"))\n")
            try await finish(model)
        }

        /// Downloads the model added, unless asked not to, and loads it when asked. A download
        /// that fails leaves the model registered (what it fetched kept, so a pull resumes), and
        /// its error says so and how to go on either way.
        private func finish(_ model: ModelInfo) async throws {
            guard !noDownload else { return }
            do {
                try await ModelsCommand.download(model.id)
            } catch let error as SDKError {
                throw SDKError(
                    error.code,
                    "\(error.message); \(model.id) stays registered: `runanywhere models pull \(model.id)` tries the download again, "
                        + "`runanywhere models rm \(model.id)` removes it", category: error.category)
            }
            if load {
                try await RunAnywhere.loadModel(model.id)
                Terminal.write("Loaded \(model.id); chat with it: runanywhere chat --model \(model.id)\n")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Delete a model's files (and a user-added model's entry).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model id.") var id: String
        @Flag(name: .long, help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let model = try RunAnywhere.runtime().model(id: id)
                if !yes {
                    Terminal.write("Delete \(model.name) (\(model.id)) from disk? [y/N] ")
                    guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                        return Terminal.write("Nothing deleted.\n")
                    }
                }
                try await RunAnywhere.runtime().deleteStoredModel(id)
                Terminal.write("Deleted \(id)\n")
            }
        }
    }

    struct Storage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "storage", abstract: "Disk use of each model, the total, and the free space.")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let info = try RunAnywhere.runtime().storageInfo()
                if json { return try JSONOutput.print(info) }
                var text = Terminal.table(
                    ["ID", "NAME", "SIZE", "PATH"], info.models.map { [$0.modelId, $0.name, Terminal.bytes($0.sizeBytes), $0.path] })
                text +=
                    "\nTotal \(Terminal.bytes(info.totalModelBytes)) in \(info.directory); \(info.freeBytes.map(Terminal.bytes) ?? "unknown") free\n"
                Terminal.write(text)
            }
        }
    }

    /// Downloads with a live progress line; Ctrl-C keeps the partial file and exits 130.
    static func download(_ id: String) async throws {
        let progress = try await RunAnywhere.downloadModelWithProgress(id)
        let consumer = Task {
            var line = DownloadLine()
            defer { line.finish() }
            for try await update in progress { line.show(update) }
        }
        let outcome = await Interrupts.shared.whileRunning(onInterrupt: { consumer.cancel() }) { await consumer.result }
        if consumer.isCancelled {
            Terminal.standardError("Stopped; the partial download is kept. Run `runanywhere models pull \(id)` to resume.")
            throw ExitCode(130)
        }
        try outcome.get()
    }
}

extension ModelCategory: ExpressibleByArgument {}

/// A download's progress on standard error: redrawn in place on a terminal, a line a second otherwise.
struct DownloadLine {
    private var line = StatusLine()
    private var lastLine = ContinuousClock.now - .seconds(10)

    mutating func show(_ update: DownloadProgress) {
        let text: String
        switch update.state {
        case .downloading:
            let total = update.totalBytes.map { " / " + Terminal.bytes($0) } ?? ""
            let speed = update.speed.map { " • " + Terminal.bytes(Int64($0)) + "/s" } ?? ""
            let eta = update.estimatedTimeRemaining.map { String(format: " • ETA %.0fs", $0) } ?? ""
            text = String(
                format: "%@ %3.0f%% %@%@%@%@", update.modelId, update.percentage * 100, Terminal.bytes(update.bytesDownloaded), total,
                speed, eta)
            if !line.interactive, ContinuousClock.now - lastLine < .seconds(1) { return }
        case .verifying: text = "\(update.modelId): verifying"
        case .extracting: text = "\(update.modelId): extracting"
        case .completed: text = "\(update.modelId): downloaded"
        case .failed: return  // the error itself is reported when the command ends
        }
        lastLine = ContinuousClock.now
        line.show(text)
    }

    mutating func finish() { line.keep() }
}
