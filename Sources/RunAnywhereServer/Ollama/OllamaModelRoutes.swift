import Foundation
import Hummingbird
import RunAnywhere
import Synchronization

/// `details` of a model in ollama's listings, from its GGUF header.
struct OllamaModelDetails: Encodable, Sendable {
    let parentModel = ""
    let format: String
    let family: String
    let families: [String]
    let parameterSize: String
    let quantizationLevel: String

    enum CodingKeys: String, CodingKey {
        case parentModel = "parent_model", format, family, families, parameterSize = "parameter_size", quantizationLevel =
            "quantization_level"
    }

    init(_ model: ModelInfo, metadata: GGUFMetadata?) {
        format = model.format.rawValue
        family = metadata?.architecture ?? ""
        families = metadata?.architecture.map { [$0] } ?? []
        parameterSize = metadata.map(\.parameterCountLabel) ?? ""
        quantizationLevel = metadata?.quantization ?? ""
    }
}

/// An installed model as `/api/tags` lists it. `digest` identifies the installed files (a
/// SHA-256 of the id, size and modification time: it changes when they do), not a registry
/// manifest, which a local file has none of.
struct OllamaModelEntry: Encodable, Sendable {
    let name: String
    let model: String
    let modifiedAt: Date
    let size: Int64
    let digest: String
    let details: OllamaModelDetails

    enum CodingKeys: String, CodingKey { case name, model, modifiedAt = "modified_at", size, digest, details }
}

/// A loaded model as `/api/ps` lists it: its memory (`size`, the part on a GPU `size_vram`), when
/// its keep-alive ends and its context window.
struct OllamaLoadedModel: Encodable, Sendable {
    let name: String
    let model: String
    let size: Int64
    let digest: String
    let details: OllamaModelDetails
    let expiresAt: Date
    let sizeVram: Int64
    let contextLength: Int?

    enum CodingKeys: String, CodingKey {
        case name, model, size, digest, details, expiresAt = "expires_at", sizeVram = "size_vram", contextLength = "context_length"
    }
}

/// `/api/show`'s answer: the model's license, a Modelfile that rebuilds it, its defaults
/// (`parameters`), its chat template (the GGUF's, a Jinja template where ollama shows a Go one),
/// the system prompt and first messages it was made with (``RunAnywhere/ModelDefaults``), `details`,
/// `model_info` (the GGUF header's values; its arrays, such as the vocabulary, as null, as ollama
/// shows them) and `capabilities`.
struct OllamaShowResponse: Encodable, Sendable {
    /// A message a model starts its conversations with.
    struct ShownMessage: Encodable, Sendable {
        let role: String
        let content: String
    }

    let license: String
    let modelfile: String
    let parameters: String
    let template: String
    let system: String?
    let messages: [ShownMessage]?
    let details: OllamaModelDetails
    let modelInfo: [String: JSONValue]
    let capabilities: [String]
    let modifiedAt: Date

    enum CodingKeys: String, CodingKey {
        case license, modelfile, parameters, template, system, messages, details, modelInfo = "model_info", capabilities
        case modifiedAt = "modified_at"
    }
}

/// A line of `/api/pull`'s progress: `status`, and while downloading `digest`, `total` and `completed` bytes.
struct OllamaPullProgress: Encodable, Sendable {
    let status: String
    var digest: String?
    var total: Int64?
    var completed: Int64?

    init(status: String) {
        self.status = status
    }

    init(_ progress: DownloadProgress, model: ModelInfo?) {
        switch progress.state {
        case .downloading:
            status = "pulling \(progress.modelId)"
            digest = model?.sha256.map { "sha256:\($0)" } ?? ""
            total = progress.totalBytes
            completed = progress.bytesDownloaded
        case .verifying: status = "verifying sha256 digest"
        case .extracting: status = "extracting"
        case .completed, .failed: status = "writing manifest"
        }
    }
}

/// ollama's API for models: `GET /api/tags` (the installed models it can run: language,
/// vision-language with their projector, embedding), `POST /api/show`, `GET /api/ps` (the models
/// loaded), `POST /api/pull` (a catalog id or a `hf.co/OWNER/REPO:QUANT` reference, downloaded
/// with its progress as lines), `DELETE /api/delete` and `GET /api/version` (``apiVersion``).
/// Names are ollama's (``OllamaName``); errors take ollama's shape (``ErrorShape/ollama``).
struct OllamaModelRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration
    /// Each model's `details`, read from its GGUF header once per version of its file.
    let details = OllamaModelDetailsCache()

    /// What `GET /api/version` reports: the ollama release whose API these routes implement (its
    /// newest field here, `logprobs`, came in 0.12.11). ollama's clients read this number to decide
    /// what a server can do and refuse one below their minimum (0.5.5, 0.6.4 and 0.6.5 are minimums
    /// seen in editors and launchers), so the SDK's own version, which they would read as an ollama
    /// release, is `GET /api/system`'s `sdkVersion` instead.
    static let apiVersion = "0.12.11"

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("api/tags") { _, _ in
            let models = runtime.availableModels().filter(Self.isServed).map { model in
                let facts = Self.fileFacts(model)
                return OllamaModelEntry(
                    name: OllamaName.name(model.id), model: OllamaName.name(model.id), modifiedAt: facts.modified, size: facts.size,
                    digest: Self.digest(model, facts), details: details.details(of: model, facts, runtime: runtime)
                )
            }
            return try jsonResponse(["models": models])
        }
        router.post("api/show") { request, _ in
            let body = try decodeJSON(
                OllamaModelRequest.self, from: try await ollamaBody(of: request, limit: configuration.maxBodySize))
            let model = try installed(body.model)
            // ollama's routes show the models they run, as /api/tags lists them: not a speech model.
            guard Self.isServed(model) else {
                throw APIError(.notFound, "model '\(body.model)' not found", param: "model", code: "model_not_found")
            }
            let metadata = try runtime.metadata(of: model)
            return try jsonResponse(
                OllamaShowResponse(
                    license: model.license ?? metadata?.license ?? "",
                    modelfile: Self.modelfile(
                        model, template: metadata?.chatTemplate, adapters: runtime.ownLoRAAdapters(of: model) ?? []),
                    parameters: Self.parameters(
                        model,
                        context: configuration.loadOptions.resolvedContextLength(for: model, trainedContext: metadata?.contextLength ?? 0)),
                    template: metadata?.chatTemplate ?? "", system: model.defaults?.systemPrompt,
                    messages: model.defaults?.messages?.map { .init(role: $0.role.rawValue, content: $0.content) },
                    details: OllamaModelDetails(model, metadata: metadata), modelInfo: Self.modelInfo(metadata),
                    capabilities: Self.capabilities(model, fillsInTheMiddle: metadata?.fillsInTheMiddle ?? false),
                    modifiedAt: Self.fileFacts(model).modified
                ))
        }
        router.get("api/ps") { _, _ in
            var models: [OllamaLoadedModel] = []
            // ollama lists the models that run: not one being loaded, unloaded, or whose load failed.
            for status in await runtime.loadedModels() where status.state == .loaded {
                guard let model = try? runtime.model(id: status.modelId) else { continue }
                let facts = Self.fileFacts(model)
                models.append(
                    OllamaLoadedModel(
                        name: OllamaName.name(model.id), model: OllamaName.name(model.id), size: status.memoryBytes,
                        digest: Self.digest(model, facts),
                        details: details.details(of: model, facts, runtime: runtime), expiresAt: Self.expiry(of: status),
                        sizeVram: status.deviceMemoryBytes, contextLength: await runtime.contextLength(ofLoaded: model.id)
                    ))
            }
            return try jsonResponse(["models": models])
        }
        router.post("api/pull") { request, _ in
            let body = try decodeJSON(
                OllamaModelRequest.self, from: try await ollamaBody(of: request, limit: configuration.maxBodySize))
            return try await pull(body)
        }
        router.delete("api/delete") { request, _ in
            let body = try decodeJSON(
                OllamaModelRequest.self, from: try await ollamaBody(of: request, limit: configuration.maxBodySize))
            try await runtime.deleteStoredModel(try installed(body.model).id)
            return Response(status: .ok)
        }
        router.get("api/version") { _, _ in try jsonResponse(["version": Self.apiVersion]) }
    }

    /// Downloads the model `body` names (registering a reference first), its progress as lines
    /// ending with `success`, or once done as `{"status": "success"}` when `stream` is false. An
    /// unknown name is refused before anything starts; a failure later is the last line.
    private func pull(_ body: OllamaModelRequest) async throws -> Response {
        let pull: ModelPull
        do {
            pull = try runtime.pull(body.model)
        } catch let error as SDKError where error.code == .modelNotFound || error.code == .invalidInput {
            // An ollama user's first pull names a model of ollama's library (`llama3.2`, `library/qwen3:8b`).
            throw SDKError(
                error.code,
                "\(error.message). This server pulls the ids of its catalog and Hugging Face GGUF references such as "
                    + "hf.co/OWNER/REPO:QUANT, not the names of ollama's library", category: error.category)
        }
        guard body.stream else {
            for try await _ in try await pull.start().progress {}
            try Task.checkCancellation()  // the updates also end early when the client hangs up: no download done then
            return try jsonResponse(OllamaPullProgress(status: "success"))
        }
        return NDJSON.response { writer in
            do {
                try await NDJSON.write([OllamaPullProgress(status: "pulling manifest")], to: &writer)
                let (id, progress) = try await pull.start()
                let model = try? runtime.model(id: id)
                for try await report in progress {
                    if case .failed = report.state { continue }  // the stream throws the error next
                    try await NDJSON.write([OllamaPullProgress(report, model: model)], to: &writer)
                }
                try Task.checkCancellation()
                try await NDJSON.write([OllamaPullProgress(status: "success")], to: &writer)
            } catch is CancellationError {
                // The client went away: the download stopped with the stream.
            } catch {
                try await NDJSON.write([OllamaError(APIError.from(error))], to: &writer)
            }
        }
    }

    /// The installed model `id`; a 404 in ollama's words when it is not installed.
    private func installed(_ id: String) throws -> ModelInfo {
        guard let model = try? runtime.model(id: id), model.isDownloaded else {
            throw APIError(.notFound, "model '\(id)' not found", param: "model", code: "model_not_found")
        }
        return model
    }

    /// Whether ollama's routes run `model`: an installed language or embedding model, or a
    /// vision-language model with its projector.
    static func isServed(_ model: ModelInfo) -> Bool {
        (model.category == .multimodal && model.projectorFile != nil)
            || ([.language, .embedding].contains(model.category) && model.isDownloaded)
    }

    /// When a loaded model's keep-alive ends, as ollama says it: one in use, that long after now;
    /// one kept for ever, 2^63 ns from now (Go's longest duration, about 292 years), as ollama's
    /// `keep_alive: -1` shows.
    static func expiry(of status: LoadedModelStatus, now: Date = Date()) -> Date {
        status.expiresAt ?? now.addingTimeInterval(status.keepAliveSeconds ?? Double(Int64.max) / 1e9)
    }

    /// What `model` can do, in ollama's words: `insert` is a `suffix` (fill-in-the-middle), which
    /// a model whose vocabulary has its tokens takes (`fillsInTheMiddle`).
    static func capabilities(_ model: ModelInfo, fillsInTheMiddle: Bool) -> [String] {
        switch model.category {
        case .embedding: return ["embedding"]
        case .multimodal: return ["completion", "tools", "vision"] + (model.supportsThinking ? ["thinking"] : [])
        default:
            return ["completion", "tools"] + (fillsInTheMiddle ? ["insert"] : []) + (model.supportsThinking ? ["thinking"] : [])
        }
    }

    /// When `model`'s file last changed, and its size in bytes.
    static func fileFacts(_ model: ModelInfo) -> (modified: Date, size: Int64) {
        let attributes = model.primaryFile.flatMap { try? FileManager.default.attributesOfItem(atPath: $0.path) }
        return (attributes?[.modificationDate] as? Date ?? model.updatedAt, model.primaryFileSize)
    }

    /// A SHA-256 (hex) of the id, size and modification time (`facts`) of `model`'s file.
    static func digest(_ model: ModelInfo, _ facts: (modified: Date, size: Int64)) -> String {
        let (modified, size) = facts
        return FileDigest.sha256(of: Data("\(model.id)\n\(size)\n\(modified.timeIntervalSince1970)".utf8))
    }

    /// A Modelfile that rebuilds `model` in ollama: its file, LoRA adapters (`adapters`), chat
    /// template, system prompt, parameters, first messages and licence.
    static func modelfile(_ model: ModelInfo, template: String?, adapters: [LoRAAdapter] = []) -> String {
        func line(_ instruction: String, _ value: String) -> String {
            // `"""…"""` cannot hold a value with `"""` in it or one that ends with `"`; `"…"` with escapes can.
            guard value.contains("\"\"\"") || value.hasSuffix("\"") else { return "\(instruction) \"\"\"\(value)\"\"\"\n" }
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "\(instruction) \"\(escaped)\"\n"
        }
        var text = "# Modelfile generated by RunAnywhere for \(model.id)\nFROM \(model.primaryFile?.path ?? model.id)\n"
        text += adapters.map { "ADAPTER \($0.path)\n" }.joined()
        if let template { text += line("TEMPLATE", template) }
        if let defaults = model.defaults {
            if let system = defaults.systemPrompt { text += line("SYSTEM", system) }
            text += parameterLines(defaults).map { "PARAMETER \($0)\n" }.joined()
            text += (defaults.messages ?? []).map { line("MESSAGE \($0.role.rawValue)", $0.content) }.joined()
        }
        if let license = model.license, !license.isEmpty { text += line("LICENSE", license) }
        return text
    }

    /// The model's defaults as ollama writes `parameters`: the context window this server loads it
    /// with, the sampling settings (its own, else the SDK's) and whatever else it was made with.
    static func parameters(_ model: ModelInfo, context: Int) -> String {
        guard model.category != .embedding else { return "" }
        var sampling = ModelDefaults()
        sampling.temperature = SDKConstants.Generation.temperature
        sampling.topK = SDKConstants.Generation.topK
        sampling.topP = SDKConstants.Generation.topP
        return (["num_ctx \(context)"] + parameterLines((model.defaults ?? ModelDefaults()).over(sampling), context: false))
            .joined(separator: "\n")
    }

    /// `defaults`' generation settings as a Modelfile's `PARAMETER` lines name them, one a line
    /// (`stop` once for each text); with `context`, `num_ctx` too.
    static func parameterLines(_ defaults: ModelDefaults, context: Bool = true) -> [String] {
        func number(_ value: (some Numeric & CustomStringConvertible)?, _ name: String) -> [String] {
            value.map { ["\(name) \($0)"] } ?? []
        }
        let unbounded = { (value: Int?) in value.map { $0 == Int.max ? -1 : $0 } }
        return (context ? number(defaults.contextLength, "num_ctx") : []) + number(defaults.temperature, "temperature")
            + number(defaults.topK, "top_k") + number(defaults.topP, "top_p") + number(defaults.minP, "min_p")
            + number(defaults.repeatPenalty, "repeat_penalty") + number(unbounded(defaults.penaltyLastN), "repeat_last_n")
            + number(defaults.presencePenalty, "presence_penalty") + number(defaults.frequencyPenalty, "frequency_penalty")
            + number(defaults.seed, "seed") + number(unbounded(defaults.maxTokens), "num_predict") + number(defaults.threads, "num_thread")
            + (defaults.stopSequences ?? []).map { "stop \(JSONValue.string($0).text)" }
    }

    /// The GGUF header's values as JSON, arrays as null.
    static func modelInfo(_ metadata: GGUFMetadata?) -> [String: JSONValue] {
        (metadata?.values ?? [:]).mapValues { value in
            switch value {
            case .unsigned(let number): .number(Double(number))
            case .signed(let number): .number(Double(number))
            case .float(let number): .number(number)
            case .bool(let flag): .bool(flag)
            case .string(let text): .string(text)
            case .array: .null
            }
        }
    }
}

/// Each model's ``OllamaModelDetails``, read from its GGUF header the first time and again only
/// when its file changes (another size or modification time): `/api/tags` and `/api/ps`, which
/// clients poll, then read no file but the directory's.
final class OllamaModelDetailsCache: Sendable {
    private let entries = Mutex<[String: (modified: Date, size: Int64, details: OllamaModelDetails)]>([:])

    /// `model`'s details, its file as `facts` describe it.
    func details(of model: ModelInfo, _ facts: (modified: Date, size: Int64), runtime: RunAnywhereRuntime) -> OllamaModelDetails {
        if let entry = entries.withLock({ $0[model.id] }), entry.modified == facts.modified, entry.size == facts.size {
            return entry.details
        }
        let details = OllamaModelDetails(model, metadata: try? runtime.metadata(of: model))
        entries.withLock { $0[model.id] = (facts.modified, facts.size, details) }
        return details
    }
}
