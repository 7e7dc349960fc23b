import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereServer
import Synchronization

/// `runanywhere models …`: the model catalog.
struct ModelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract:
            "List, inspect, import, search, download, add, create (from a Modelfile) and delete models, show their disk use, and convert Whisper models.",
        subcommands: [
            List.self, Info.self, Import.self, Create.self, Search.self, Pull.self, Add.self, Remove.self, Storage.self,
            ConvertWhisper.self,
            ConvertEmbedding.self,
        ],
        defaultSubcommand: List.self
    )

    /// A model with its download state, for `--json`.
    struct Listing: Encodable {
        let model: ModelInfo
        let isDownloaded: Bool

        func encode(to encoder: any Encoder) throws {
            try model.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(isDownloaded, forKey: Key(stringValue: "isDownloaded"))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List every known model.")
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let models = try await RunAnywhere.availableModels()
                if json { return try JSONOutput.print(models.map { Listing(model: $0, isDownloaded: $0.isDownloaded) }) }
                let rows = models.map { model in
                    [
                        model.id, model.name, model.category.rawValue, model.framework.displayName, model.format.rawValue,
                        model.downloadSize.map(Terminal.bytes) ?? "-",
                        model.isDownloaded ? Terminal.green("installed") : Terminal.dim("not downloaded"),
                    ]
                }
                Terminal.write(Terminal.table(["ID", "NAME", "CATEGORY", "FRAMEWORK", "FORMAT", "SIZE", "STATUS"], rows))
            }
        }
    }

    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info", abstract: "Show every field of a model, and what its file says about itself (GGUF, safetensors, ONNX).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The model id.") var id: String
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        struct Report: Encodable {
            let model: Listing
            let gguf: GGUFMetadata?
            let metadata: ModelMetadata?
        }

        /// The metadata of a file that is not GGUF (whose section above has GGUF's own fields).
        static func describe(_ metadata: ModelMetadata) -> String {
            let title = Terminal.bold("\(metadata.format.rawValue.uppercased()) metadata") + "\n"
            let types = metadata.tensorTypes.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            var rows: [(String, String?)] = [
                ("architecture", metadata.architecture), ("name", metadata.name), ("producer", metadata.producer),
                ("formatVersion", metadata.formatVersion.map(String.init)),
                ("parameters", "\(metadata.parameterCountLabel) (\(metadata.parameterCount))"),
                ("tensorTypes", types.isEmpty ? nil : types),
                ("tensors", String(metadata.tensorCount)), ("contextLength", metadata.contextLength.map(String.init)),
                ("fileSize", Terminal.bytes(Int64(clamping: metadata.fileSize))),
            ]
            if !metadata.operatorSets.isEmpty {
                rows.append(
                    (
                        "operatorSets",
                        metadata.operatorSets.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                    ))
            }
            rows += metadata.inputs.map { ("input", $0.summary) } + metadata.outputs.map { ("output", $0.summary) }
            rows += metadata.values.sorted { $0.key < $1.key }.map {
                ($0.key, $0.value.count > 80 ? "\($0.value.prefix(77))... (\($0.value.count) chars)" : $0.value)
            }
            return title + rows.map { "  \($0.0.padding(toLength: 17, withPad: " ", startingAt: 0)) \($0.1 ?? "-")\n" }.joined()
        }

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let runtime = try RunAnywhere.runtime()
                let model = try runtime.model(id: id)
                let report = Report(
                    model: Listing(model: model, isDownloaded: model.isDownloaded), gguf: try runtime.metadata(of: model),
                    metadata: try runtime.modelMetadata(of: model)
                )
                if json { return try JSONOutput.print(report) }
                var text = Terminal.bold(model.name) + "\n"
                let fields: [(String, String?)] = [
                    ("id", model.id), ("category", model.category.rawValue), ("format", model.format.rawValue),
                    ("framework", "\(model.framework.displayName) (\(model.framework.rawValue))"),
                    ("downloadURL", model.downloadURL?.absoluteString), ("localPath", model.localPath?.path),
                    ("isDownloaded", String(model.isDownloaded)), ("downloadSize", model.downloadSize.map(Terminal.bytes)),
                    ("contextLength", model.contextLength.map(String.init)), ("supportsThinking", String(model.supportsThinking)),
                    ("thinkingPattern", model.thinkingPattern.map { "\($0.openingTag) … \($0.closingTag)" }),
                    ("description", model.description), ("source", model.source.rawValue),
                    ("createdAt", model.createdAt.formatted(.iso8601)), ("updatedAt", model.updatedAt.formatted(.iso8601)),
                    ("sha256", model.sha256), ("license", model.license),
                ]
                for (name, value) in fields { text += "  \(name.padding(toLength: 17, withPad: " ", startingAt: 0)) \(value ?? "-")\n" }
                if let gguf = report.gguf {
                    text += Terminal.bold("GGUF metadata") + "\n"
                    let rows: [(String, String?)] = [
                        ("architecture", gguf.architecture), ("name", gguf.name),
                        ("parameters", "\(gguf.parameterCountLabel) (\(gguf.parameterCount))"), ("quantization", gguf.quantization),
                        ("fileType", gguf.fileType.map(String.init)), ("contextLength", gguf.contextLength.map(String.init)),
                        ("vocabularySize", gguf.vocabularySize.map(String.init)), ("license", gguf.license),
                        ("tensors", String(gguf.tensorCount)), ("ggufVersion", String(gguf.version)),
                        ("fileSize", Terminal.bytes(Int64(gguf.fileSize))),
                        ("chatTemplate", gguf.chatTemplate.map { "\($0.count) characters" }),
                    ]
                    for (name, value) in rows { text += "  \(name.padding(toLength: 17, withPad: " ", startingAt: 0)) \(value ?? "-")\n" }
                } else if let metadata = report.metadata {
                    text += Self.describe(metadata)
                }
                Terminal.write(text)
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract:
                "Copy a local model file into the models folder and register it: GGUF, a safetensors diffusion checkpoint, or an ONNX Piper voice (with the tokens.txt beside it)."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Path of the model file (.gguf, .safetensors, .onnx).") var path: String
        @Option(name: .long, help: "Model id (default: derived from the file name).") var id: String?
        @Option(name: .long, help: "Display name (default: the model's own name).") var name: String?
        @Flag(name: .long, help: "Print the new model as JSON.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let model = try RunAnywhere.runtime().importModel(at: URL(fileURLWithPath: path), id: id, name: name)
                if json { return try JSONOutput.print(Listing(model: model, isDownloaded: model.isDownloaded)) }
                Terminal.write("Imported \(Terminal.bold(model.id)) (\(model.name)) to \(model.localPath?.path ?? "")\n")
            }
        }
    }
}

extension ModelsCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Make a model from an ollama Modelfile, as `ollama create NAME -f Modelfile` does.",
            discussion:
                "FROM names an installed model (its files are linked, not copied) or a GGUF file (imported, a path relative to the Modelfile's folder). SYSTEM, PARAMETER (num_predict, temperature, top_k, top_p, min_p, repeat_penalty, repeat_last_n, presence_penalty, frequency_penalty, seed, stop, num_thread, num_ctx), MESSAGE and LICENSE are kept with the model: every generation with it applies them where the request leaves them unset, the system prompt and messages to every conversation that brings no system prompt of its own. ADAPTER names a LoRA adapter GGUF file (a path relative to the Modelfile's folder; as many as 8): it is checked to fit the model, kept in the model's folder and applied to every generation that chooses no adapters of its own. TEMPLATE is taken only as the model file's own chat template (as `ollama show --modelfile` and /api/show write it), which a model here always uses. --quantize writes the model (which must be F32, F16 or BF16) quantized with llama.cpp's quantizer, as `ollama create --quantize` and llama-quantize do, in a process of its own."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The new model's id.") var id: String
        @Option(name: [.short, .customLong("file")], help: "The Modelfile (default: ./Modelfile).") var file = "Modelfile"
        @Option(
            name: [.short, .customLong("quantize")],
            help: ArgumentHelp(
                "Quantize the model (an F32, F16 or BF16 GGUF) to TYPE, with llama.cpp's quantizer: \(ModelQuantization.offered.joined(separator: ", ")).",
                valueName: "TYPE"))
        var quantize: String?
        @Option(name: .long, help: "CPU threads for --quantize (default: every core).") var threads: Int?
        @Flag(name: .long, help: "Print the new model as JSON.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { _ in
                let url = URL(fileURLWithPath: file)
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw SDKError.fileManagement(.fileNotFound, "No Modelfile at \(url.path)")
                }
                let modelfile = try Modelfile(parsing: String(decoding: data, as: UTF8.self))
                let runtime = try RunAnywhere.runtime()
                let model: ModelInfo
                let folder = url.deletingLastPathComponent()
                let adapters = modelfile.adapterFiles(relativeTo: folder)
                let quantization = try quantize.map(ModelQuantization.init(named:))
                switch (modelfile.base(relativeTo: folder), quantization) {
                case (.file(let path), let quantization?):
                    try modelfile.check(base: path)
                    model = try await Self.quantize(
                        try await runtime.prepareQuantization(
                            file: path, as: quantization, id: id, defaults: modelfile.defaults, license: modelfile.license,
                            adapters: adapters),
                        threads: threads, runtime: runtime)
                case (.model(let source), let quantization?):
                    try modelfile.check(base: try runtime.model(id: source).primaryFile)
                    model = try await Self.quantize(
                        try await runtime.prepareQuantization(
                            of: source, as: quantization, id: id, defaults: modelfile.defaults, license: modelfile.license,
                            adapters: adapters),
                        threads: threads, runtime: runtime)
                case (.file(let path), nil):
                    try modelfile.check(base: path)
                    model = try runtime.importModel(
                        at: path, id: id, name: nil, defaults: modelfile.defaults, license: modelfile.license, adapters: adapters)
                case (.model(let source), nil):
                    try modelfile.check(base: try runtime.model(id: source).primaryFile)
                    model = try runtime.copyModel(
                        source, to: id, defaults: modelfile.defaults, license: modelfile.license, adapters: adapters)
                }
                if json { return try JSONOutput.print(Listing(model: model, isDownloaded: model.isDownloaded)) }
                Terminal.write("Created \(Terminal.bold(model.id)) from \(modelfile.from)\n")
            }
        }

        /// Runs `job`, its progress on standard error: redrawn in place on a terminal, every tenth
        /// of the tensors otherwise.
        static func quantize(_ job: QuantizationJob, threads: Int?, runtime: RunAnywhereRuntime) async throws -> ModelInfo {
            let line = Mutex((status: StatusLine(), shown: -1))
            defer { line.withLock { $0.status.clear() } }
            return try await runtime.quantize(job, threads: threads) { progress in
                line.withLock { line in
                    let tenth = progress.done * 10 / progress.total
                    guard line.status.interactive || tenth > line.shown else { return }
                    line.shown = tenth
                    line.status.show(
                        String(
                            format: "quantizing to %@ [%@] %d/%d tensors", job.quantization.name,
                            StatusLine.bar(Double(progress.done) / Double(progress.total)), progress.done, progress.total))
                }
            }
        }
    }
}

/// A JSON coding key made from any string.
struct Key: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
