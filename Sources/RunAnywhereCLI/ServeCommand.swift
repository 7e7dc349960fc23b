import ArgumentParser
internal import CEngineSupport
import Foundation
import Logging
import RunAnywhere
import RunAnywhereMCP
import RunAnywherePostgres
import RunAnywhereServer
import RunAnywhereTelemetry

/// `runanywhere serve`: the OpenAI-compatible API on this machine.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Serve the web app and an OpenAI-compatible API (chat, completions, transcriptions, speech, images, models) on this machine.",
        discussion:
            "Binds to 127.0.0.1 unless told otherwise; another address needs an API key (--api-key-stdin). SIGINT or SIGTERM stops it gracefully."
    )

    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "Address to listen on.") var host = "127.0.0.1"
    @Option(name: .long, help: "Port to listen on (0 picks a free one).") var port = 8080
    @Flag(name: .customLong("api-key-stdin"), help: "Read an API key from standard input; clients then send 'Authorization: Bearer KEY'.")
    var apiKeyStdin = false
    @Option(
        name: .customLong("cors"),
        help: "Let web pages from this origin call the API (repeatable); pages on any other origin but the server's own are refused.")
    var corsOrigins: [String] = []
    @Option(
        name: .customLong("allowed-host"),
        help: "A host name clients may reach the server by, beyond loopback names and --host (repeatable; * for any).")
    var allowedHosts: [String] = []
    @Option(name: .long, help: "CPU threads per generation (default: the model's).") var threads: Int?
    @Option(name: .customLong("context-length"), help: "Context window for models loaded on demand (default: the model's, at most 4096).")
    var contextLength: Int?
    @Option(
        name: .customLong("gpu-layers"),
        help: "Layers of each language model on the GPU; 0 keeps models on the CPU (default: as many as fit).") var gpuLayers: Int?
    @Option(
        name: .customLong("batch-size"),
        help: "Prompt tokens evaluated per step (default: \(ModelLoadOptions().batchSize)); a GPU reads long prompts faster with 512.")
    var batchSize = ModelLoadOptions().batchSize
    @Option(name: .customLong("max-body"), help: "Largest request body in MiB.") var maxBodyMiB = 32
    @Option(
        name: .customLong("telemetry-database"),
        help:
            "The BenchRunner runs served under /telemetry: a postgres:// URL or an SQLite file (default: the collector's file in the data folder)."
    )
    var telemetryDatabase: String?
    @Option(
        name: .customLong("rag-database"),
        help:
            "The document collections' database: a postgres:// URL or an SQLite file (default: $\(RAGDatabases.environmentVariable), else --database, else rag.sqlite in the data folder)."
    )
    var ragDatabase: String?
    @OptionGroup var database: ServerDatabaseOption
    @OptionGroup(title: "Tools for the conversations' answers (the web app's chats)") var mcp: MCPFlags
    @Option(name: .long, help: "Generations per model at once, decoded together.") var parallel = 4
    @Flag(
        name: .long,
        help:
            "Promise greedy requests reproducible output, as seeded ones always are: the same alone or among others, and in every process (llama.cpp's batch-invariant configuration; one long prompt alone reads more slowly)."
    )
    var reproducible = false
    @Option(
        name: .long,
        help:
            "Speculative decoding by prompt lookup for requests that do not set speculative.n_max: guess up to N tokens a step from the text so far (0: off)."
    )
    var speculate = 0
    @Flag(
        name: .customLong("save-prompts"),
        help:
            "Keep long prompts' state on disk (in the data folder's prompt-states, at most 1 GiB per model), so that after a restart a request or conversation that starts the same way reads only what is new."
    )
    var savePrompts = false
    @Option(name: .long, help: "Requests that may wait for a free generation slot; beyond them the server answers 503.") var queue = 16
    @Option(
        name: .customLong("drain-timeout"),
        help:
            "Seconds SIGTERM lets running requests (streams included) finish after the server stops taking new ones; then they are cancelled."
    )
    var drainTimeout = 30
    @OptionGroup var idleTimeout: IdleTimeoutOption
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A LoRA adapter GGUF (or an imported adapter's id) that requests to models of its architecture apply, its effect scaled by SCALE (default 1; 0 lists it, applied only when a request asks); repeatable. Listed and rescaled at /lora-adapters; a chat completion's or completion's `lora` field chooses by index.",
            valueName: "PATH[:SCALE]"),
        transform: LoRAFlag.init(parsing:))
    var lora: [LoRAFlag] = []
    @Option(
        name: .customLong("draft-model"),
        help: ArgumentHelp(
            "Speculative decoding for MODEL with DRAFT (a smaller model with the same vocabulary: an id or a GGUF path) guessing ahead, up to --speculate tokens a step (8 when 0), unless a request asks otherwise; repeatable.",
            valueName: "MODEL=DRAFT"))
    var draftModel: [String] = []
    @Option(
        name: .customLong("rpc"),
        help: ArgumentHelp(
            "Place each language model's layers on these RPC workers (runanywhere rpc-worker; comma-separated or repeated), --gpu-layers of them (default: all), for models larger than this machine. A worker serves one model at a time; the protocol is unauthenticated: trusted networks only.",
            valueName: "HOST:PORT"))
    var rpc: [String] = []
    @Option(
        name: .customLong("models-budget"),
        help: "Memory all loaded models may take, e.g. 4G or 512M (default: 3/4 of the available memory; 0: no limit).")
    var modelsBudget: String?
    @Option(
        name: .customLong("keep-alive"),
        help: "How long a model stays loaded after its last request: 300, 30s, 5m, 1h; -1 for ever, 0 to unload at once.")
    var keepAlive = "5m"
    @Flag(
        name: .customLong("in-process-engines"),
        help:
            "Run models' engines inside the server instead of in a worker process each (runanywhere engine-worker); an engine's crash then ends the server."
    )
    var inProcessEngines = false

    func validate() throws {
        let limits = SDKConstants.Limits.self
        if let threads, !(1...limits.maxThreads).contains(threads) { throw ValidationError("--threads must be 1 to \(limits.maxThreads)") }
        if let contextLength, !(16...limits.maxContextLength).contains(contextLength) {
            throw ValidationError("--context-length must be 16 to \(limits.maxContextLength)")
        }
        if let gpuLayers, gpuLayers < 0 { throw ValidationError("--gpu-layers cannot be negative") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if maxBodyMiB < 1 { throw ValidationError("--max-body must be at least 1 MiB") }
        let largestBodyMiB = 1 << 20  // 1 TiB: its size in bytes, maxBodyMiB << 20, always fits an Int
        if maxBodyMiB > largestBodyMiB { throw ValidationError("--max-body must be at most \(largestBodyMiB) MiB (1 TiB)") }
        if parallel < 1 || parallel > 64 { throw ValidationError("--parallel must be between 1 and 64") }
        if queue < 0 { throw ValidationError("--queue cannot be negative") }
        if !(0...86_400).contains(drainTimeout) { throw ValidationError("--drain-timeout must be 0 to 86400 seconds") }
        try LLMSpeculation.checkFlag(speculate)
        try RPCEndpoint.checkFlag(RPCEndpoint.flag(rpc))
        if let modelsBudget, Self.bytes(modelsBudget) == nil {
            throw ValidationError("--models-budget must be a size such as 4G, 512M or 0 (below 8 EiB)")
        }
        if KeepAlive(parsing: keepAlive) == nil {
            throw ValidationError("--keep-alive must be seconds or a duration such as 30s, 5m, 1h, or -1")
        }
    }

    /// Bytes of a size such as `4G`, `512M`, `1.5GiB` or `1048576`; nil for anything else,
    /// including sizes of 2^63 bytes or more (such as `1e300`), which no Int64 holds.
    static func bytes(_ text: String) -> Int64? {
        let text = text.trimmingCharacters(in: .whitespaces).uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(
            of: "B", with: "")
        let scales: [Character: Double] = ["K": 0x1p10, "M": 0x1p20, "G": 0x1p30, "T": 0x1p40]
        let (number, scale) = text.last.flatMap { scales[$0] }.map { (text.dropLast(), $0) } ?? (Substring(text), 1)
        guard let value = Double(number), value.isFinite, value >= 0, value * scale < 0x1p63 else { return nil }
        return Int64(value * scale)  // finite, 0 or more and below 2^63: cannot trap
    }

    /// `--draft-model`'s pairs, each checked: the model is in the catalog, the draft a GGUF
    /// language model (its vocabulary is checked when the model loads).
    func draftModels() throws -> [String: String] {
        let runtime = try RunAnywhere.runtime()
        var pairs: [String: String] = [:]
        for pair in draftModel {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--draft-model takes MODEL=DRAFT, such as qwen2.5-7b=qwen2.5-0.5b (got \(pair))")
            }
            _ = try runtime.model(id: parts[0])
            pairs[parts[0]] = try LLMSpeculation.draftModel(model: parts[1]).resolved(model: runtime.model(id:)).draftModel
        }
        return pairs
    }

    func run() async throws {
        Self.limitMallocArenas()
        try await CLIContext.run(global, engineProcesses: !inProcessEngines) { context in
            let key =
                apiKeyStdin
                ? try StandardInput.text().trimmingCharacters(
                    in: .whitespacesAndNewlines) : nil
            if apiKeyStdin, key?.isEmpty ?? true {
                throw SDKError(.invalidConfiguration, "--api-key-stdin read no key from standard input")
            }
            var logger = context.logger
            logger.logLevel = global.verbose ? .debug : .info
            var configuration = ServerConfiguration(
                host: host, port: port, apiKey: key, corsOrigins: corsOrigins, maxBodySize: maxBodyMiB << 20, threads: threads,  // validate() keeps it to 1 TiB
                loadOptions: ModelLoadOptions(
                    contextLength: contextLength, threads: threads, batchSize: batchSize, parallel: parallel, queueLimit: queue,
                    gpuLayers: gpuLayers,
                    reproducible: reproducible, speculation: LLMSpeculation(draftTokens: speculate),
                    savedPrompts: savePrompts ? context.savedPrompts : nil,
                    rpcWorkers: RPCEndpoint.flag(rpc)
                ),
                keepAlive: KeepAlive(parsing: keepAlive) ?? .default, logger: logger
            )
            configuration.appVersion = RunAnywhereCommand.configuration.version
            configuration.allowedHosts = allowedHosts
            // A file, else an imported adapter's id.
            configuration.loraAdapters = lora.map { flag in
                let file = URL(fileURLWithPath: flag.adapter.path).standardizedFileURL
                let imported = try? RunAnywhere.runtime().model(id: flag.adapter.path)
                let path =
                    if !FileManager.default.fileExists(atPath: file.path), let imported, imported.category == .loraAdapter,
                        let adapter = imported.primaryFile
                    {
                        adapter.path
                    } else {
                        file.path
                    }
                return LoRAAdapter(path: path, scale: flag.adapter.scale)
            }
            configuration.draftModels = try draftModels()
            configuration.drainTimeout = .seconds(drainTimeout)
            configuration.idleTimeout = idleTimeout.duration
            configuration.database = try await database.open(logger: logger)
            do {
                let keys = try await APIKeyStore(
                    database: configuration.database, dataDirectory: context.configuration.dataDirectory, logger: logger
                ).list()
                try configuration.validate(keysExist: keys.contains { $0.revokedAt == nil })  // before anything else is opened
            } catch {
                await configuration.database?.close()
                throw error
            }
            let database = telemetryDatabase ?? ProcessInfo.processInfo.environment["RUNANYWHERE_TELEMETRY_DATABASE"]
            do {
                configuration.telemetryStore = try await TelemetryStores.open(
                    database, dataDirectory: context.configuration.dataDirectory, logger: logger)
            } catch {
                // The AI server does not depend on it: serve without the Telemetry page's data.
                guard database == nil else { throw error }
                logger.warning("serving without /telemetry: \((error as? SDKError)?.message ?? "\(error)")")
            }
            // The replicas' database holds their collections too, unless they are named elsewhere.
            configuration.ragSession = try await RAGDatabaseOption.session(
                ragDatabase ?? ProcessInfo.processInfo.environment[RAGDatabases.environmentVariable] ?? self.database.url)
            let runtime = try RunAnywhere.runtime()
            if let budget = modelsBudget.flatMap(Self.bytes) { await runtime.setModelMemoryBudget(budget) }
            let serve = { (tools: ChatTools?) in
                var configuration = configuration
                configuration.chatTools = tools
                let server = RunAnywhereServer(runtime: runtime, configuration: configuration)
                try await server.run { port in
                    let base = "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
                    Terminal.standardError(
                        server.servesWebApp
                            ? "RunAnywhere is serving its web app at \(base)/ and the OpenAI API at \(base)/v1"
                            : "RunAnywhere is serving the OpenAI API at \(base)/v1 (no web app: its files are not beside the binary; set RUNANYWHERE_WEB_APP)"
                    )
                }
            }
            guard !mcp.isEmpty else { return try await serve(nil) }
            // The MCP servers run as long as this one; each call an answer makes is logged. A call
            // that cannot run (its server stopped or did not answer) is logged with why, and the
            // model reads that it failed, not what the server wrote, which is no client's business.
            try await mcp.withTools(logger: logger) { [logger] toolbox, tools, choice in
                try await serve(
                    ChatTools(tools, toolChoice: choice, maxRounds: mcp.maxToolRounds) { call in
                        logger.info("Tool call", metadata: ["tool": "\(call.name)", "id": "\(call.id)"])
                        do {
                            return try await toolbox.run(call)
                        } catch {
                            if Task.isCancelled { throw error }
                            logger.error(
                                "Tool call failed",
                                metadata: [
                                    "tool": "\(call.name)", "id": "\(call.id)", "error": "\((error as? SDKError)?.message ?? "\(error)")",
                                ])
                            return "Error: the tool \(call.name) could not run."
                        }
                    })
            }
        }
    }

    /// One malloc arena per core for the server's life, unless `MALLOC_ARENA_MAX` says otherwise.
    /// glibc gives each new thread an arena of its own, up to 8 per core, and each keeps the
    /// engines' freed buffers: a server that loads and unloads models all day on threads it does
    /// not choose then holds tens of MB more in each (Whisper, 300 load/unload cycles: +57 MB with
    /// glibc's default, +3 MB with 2 arenas on 2 cores; see benchmarks/serve-leaks).
    static func limitMallocArenas() {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        ra_engine_limit_malloc_arenas(Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
    }
}
