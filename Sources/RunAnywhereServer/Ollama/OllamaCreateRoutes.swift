import Foundation
import Hummingbird
import RunAnywhere

/// ollama's API for making models, as `ollama create` and the web UIs built on ollama use it:
/// `HEAD`/`POST /api/blobs/:digest` (a file uploaded by its SHA-256, ``OllamaBlobs``), `POST
/// /api/create` (a model of one uploaded GGUF file, or a copy of an installed model) and `POST
/// /api/copy`. What a Modelfile adds on top — a system prompt, parameters, first messages, a
/// licence, LoRA adapters — is kept with the model (``RunAnywhere/ModelDefaults``), and every
/// surface applies it; `quantize` writes the model quantized (llama.cpp's quantizer, in a child
/// process). A template other than the GGUF's own is a 400 that says why, so that nothing asked
/// for is silently dropped.
struct OllamaCreateRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration
    let blobs: OllamaBlobs

    init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) {
        self.runtime = runtime
        self.configuration = configuration
        blobs = OllamaBlobs(modelsDirectory: runtime.configuration.modelsDirectory)
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.head("api/blobs/:digest") { _, context in
            // A HEAD answer has no body to say what is wrong: what is not a digest is not here.
            Response(status: (try? blobs.contains(try Self.digest(context))) == true ? .ok : .notFound)
        }
        router.post("api/blobs/:digest") { request, context in
            let digest = try Self.digest(context)
            guard try !blobs.contains(digest) else {
                for try await _ in request.body {}
                return Response(status: .ok)
            }
            try await blobs.receive(request.body, as: digest, length: request.headers[.contentLength].flatMap { Int64($0) })
            return Response(status: .created)
        }
        router.post("api/create") { request, _ in
            let body = try decodeJSON(
                OllamaCreateRequest.self, from: try await ollamaBody(of: request, limit: configuration.maxBodySize))
            let steps = try await create(body)
            guard body.stream else { return try jsonResponse(OllamaPullProgress(status: "success")) }
            return NDJSON.response { writer in
                try await NDJSON.write((steps + ["writing manifest", "success"]).map(OllamaPullProgress.init(status:)), to: &writer)
            }
        }
        router.post("api/copy") { request, _ in
            let body = try decodeJSON(OllamaCopyRequest.self, from: try await ollamaBody(of: request, limit: configuration.maxBodySize))
            let destination = try Self.validID(body.destination, param: "destination")
            _ = try await runBlocking { [runtime] in try Self.copy(body.source, to: destination, runtime: runtime) }
            return Response(status: .ok)
        }
    }

    /// Makes the model `body` asks for, before anything is answered (linking a file takes no
    /// time), so that a failure is the response's status; returns the steps taken, as ollama
    /// names them.
    private func create(_ body: OllamaCreateRequest) async throws -> [String] {
        let id = try Self.validID(body.model, param: "model")
        let source = body.from
        guard source != nil || !body.files.isEmpty else {
            throw APIError(.badRequest, "from (a model to copy) or files (an uploaded GGUF file) is required", param: "from")
        }
        // The model file first (when it is uploaded), then the adapters: (field, name, digest).
        let uploads =
            (body.files.first.map { [("files", $0.key, $0.value)] } ?? [])
            + body.adapters.sorted { $0.key < $1.key }.map { ("adapters", $0.key, $0.value) }
        let blobURLs = try uploads.map { field, name, digest in
            let blob: URL
            do {
                blob = try blobs.url(of: digest)
            } catch let error as APIError {
                throw APIError(error.status, "\(field).\(name): \(error.message)", param: field)
            }
            guard FileManager.default.fileExists(atPath: blob.path) else { throw Self.missing(digest, field: field) }
            return blob
        }
        if let source {
            try await checkTemplate(body.template, of: (try? runtime.model(id: source))?.primaryFile)
        } else {
            try await checkTemplate(body.template, of: blobURLs.first)
        }
        // The import takes each file's name (its format and the model's default name come from
        // it): a link of that name to the blob, in the blob folder.
        let staging = ScratchFile.url(in: blobs.directory, prefix: ".create.", suffix: "")
        defer { try? FileManager.default.removeItem(at: staging) }
        let staged = try await runBlocking { [blobs] in
            ScratchFile.removeAbandoned(in: blobs.directory, prefix: ".create.")
            return try Self.stage(zip(uploads, blobURLs).map { ($0.0, $0.1, $1) }, in: staging)
        }
        let adapters = Array(staged.dropFirst(body.files.count))
        switch (source, body.quantization) {
        case (let source?, let quantization?):
            guard (try? runtime.model(id: source))?.isDownloaded == true else { throw Self.notFound(source) }
            _ = try await runtime.quantizeModel(
                source, as: quantization, id: id, defaults: body.defaults, license: body.license, adapters: adapters,
                threads: configuration.threads)
        case (nil, let quantization?):
            _ = try await runtime.quantizeModel(
                file: staged[0], as: quantization, id: id, defaults: body.defaults, license: body.license, adapters: adapters,
                threads: configuration.threads)
        case (let source?, nil):
            _ = try await runBlocking { [runtime] in
                try Self.copy(source, to: id, runtime: runtime, defaults: body.defaults, license: body.license, adapters: adapters)
            }
        case (nil, nil):
            _ = try await runBlocking { [runtime] in
                try runtime.importModel(
                    at: staged[0], id: id, name: nil, defaults: body.defaults, license: body.license, adapters: adapters)
            }
        }
        for blob in blobURLs { try? FileManager.default.removeItem(at: blob) }
        let layers = uploads.map { "using existing layer \($0.2)" } + (body.quantization.map { ["quantizing model to \($0.name)"] } ?? [])
        guard let source else { return ["parsing GGUF"] + layers }
        return ["using existing model \(OllamaName.name(source))"] + layers
    }

    /// Links each upload (`field`, its file `name`, its `blob`) into a folder of its own in
    /// `staging` (a model file and an adapter may share a name), under its name; the links, in order.
    private static func stage(_ uploads: [(field: String, name: String, blob: URL)], in staging: URL) throws -> [URL] {
        var staged: [URL] = []
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            for (field, name, blob) in uploads {
                let folder = staging.appendingPathComponent("\(staged.count)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
                do {
                    try FileManager.default.linkItem(at: blob, to: folder.appendingPathComponent(name))
                } catch {
                    // Another create of the same upload may have used it up since it was looked for.
                    let digest = "sha256:" + blob.lastPathComponent.dropFirst("sha256-".count)
                    guard FileManager.default.fileExists(atPath: blob.path) else { throw Self.missing(digest, field: field) }
                    throw error
                }
                staged.append(folder.appendingPathComponent(name))
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw SDKError.writeFailed("Cannot stage the upload", error)
        }
        return staged
    }

    /// The refusal of a create that names a blob that is not here.
    private static func missing(_ digest: String, field: String) -> APIError {
        APIError(
            .badRequest, "\(field) names the blob \(digest), which is not here: upload the file first (POST /api/blobs/\(digest))",
            param: field)
    }

    /// Throws unless `template` is none or `file`'s own chat template, read on the engine
    /// threads (a header with its vocabulary may take a while to read).
    private func checkTemplate(_ template: String?, of file: URL?) async throws {
        guard template != nil else { return }
        guard try await runBlocking({ OllamaCreateRequest.keeps(template, of: file) }) else {
            throw APIError(.badRequest, OllamaCreateRequest.otherTemplate, param: "template")
        }
    }

    /// Copies the installed model `source` as the new model `id`, with `defaults` over its own,
    /// `license` in place of its own and the LoRA adapter files `adapters` in place of its own.
    private static func copy(
        _ source: String, to id: String, runtime: RunAnywhereRuntime, defaults: ModelDefaults? = nil, license: String? = nil,
        adapters: [URL] = []
    ) throws -> ModelInfo {
        guard let model = try? runtime.model(id: source), model.isDownloaded else { throw notFound(source) }
        return try runtime.copyModel(model.id, to: id, defaults: defaults, license: license, adapters: adapters)
    }

    /// The refusal of a copy of a model that is not here.
    private static func notFound(_ source: String) -> APIError {
        APIError(.notFound, "model '\(source)' not found", param: "source", code: "model_not_found")
    }

    /// The path's digest, percent-decoded (`sha256%3A…` as some clients write `sha256:…`).
    private static func digest(_ context: ServerContext) throws -> String {
        let raw = try context.parameters.require("digest")
        return raw.removingPercentEncoding ?? raw
    }

    /// `id`, when it can name a model here (a 400 naming `param` otherwise).
    private static func validID(_ id: String, param: String) throws -> String {
        do {
            try ModelInfo.validateID(id)
        } catch let error as SDKError {
            throw APIError(.badRequest, "\(error.message) (a name here has no tag but :latest)", param: param)
        }
        return id
    }
}

/// `POST /api/create`'s body: the new model's name and what it is made of, `from` a model or
/// `files` (one GGUF file: its name and the digest of its uploaded blob), and `adapters` (LoRA
/// adapter GGUF files, by name and digest, that it keeps and applies).
struct OllamaCreateRequest: Decodable, Sendable {
    let model: String
    let from: String?
    let files: [String: String]
    let adapters: [String: String]
    /// `quantize`: the quantization to write the model in (llama.cpp's quantizer, from an F32,
    /// F16 or BF16 model).
    let quantization: ModelQuantization?
    let stream: Bool
    /// What the Modelfile adds to the model: `system`, `parameters` and `messages`.
    let defaults: ModelDefaults
    /// `license`: one text, or several (joined by a blank line).
    let license: String?

    enum CodingKeys: String, CodingKey {
        case from, files, adapters, template, license, system, parameters, messages, quantize
    }

    /// `template`: taken only as the chat template the model's GGUF file has already (what
    /// `/api/show`'s Modelfile names, so that a shown Modelfile makes a model again).
    let template: String?

    /// The refusal of a `template` that is not the model file's own.
    static let otherTemplate = "template is not taken: a model here uses the chat template in its GGUF file, and this one is not that"

    init(from decoder: any Decoder) throws {
        let named = try OllamaModelRequest(from: decoder)  // model (or name) and stream, as the other model routes read them
        model = named.model
        stream = named.stream
        let container = try decoder.container(keyedBy: CodingKeys.self)
        from = try container.decodeIfPresent(String.self, forKey: .from).flatMap { $0.isEmpty ? nil : OllamaName.modelID($0) }
        files = try container.decodeIfPresent([String: String].self, forKey: .files) ?? [:]
        adapters = try container.decodeIfPresent([String: String].self, forKey: .adapters) ?? [:]
        do {
            quantization = try container.decodeIfPresent(String.self, forKey: .quantize).flatMap {
                $0.isEmpty ? nil : try ModelQuantization(named: $0)
            }
        } catch let error as SDKError {
            throw APIError(.badRequest, error.message, param: "quantize")
        }
        // A model keeps only what a generation here uses: a name ollama knows that has no effect
        // here (mirostat…) would be kept for nothing.
        let names = Set(OllamaOptions.CodingKeys.allCases.map(\.stringValue))
        let given = try container.decodeIfPresent(JSONValue.self, forKey: .parameters)?.objectValue?.keys ?? []
        if let unknown = given.first(where: { !names.contains($0) }) {
            let kept = names.subtracting(["num_gpu"]).sorted().joined(separator: ", ")
            throw APIError(.badRequest, "parameters.\(unknown) is not kept: a model here keeps \(kept)", param: "parameters")
        }
        template = try container.decodeIfPresent(String.self, forKey: .template).flatMap { $0.isEmpty ? nil : $0 }
        var defaults =
            try container.decodeIfPresent(OllamaOptions.self, forKey: .parameters)?.modelDefaults(field: "parameters") ?? ModelDefaults()
        defaults.systemPrompt = try container.decodeIfPresent(String.self, forKey: .system).flatMap { $0.isEmpty ? nil : $0 }
        defaults.messages = try Self.messages(try container.decodeIfPresent(JSONValue.self, forKey: .messages))
        do {
            try defaults.validate()
        } catch let error as SDKError {
            throw APIError(.badRequest, error.message, param: "parameters")
        }
        self.defaults = defaults
        switch try container.decodeIfPresent(JSONValue.self, forKey: .license) {
        case .none, .null?: license = nil
        case .string(let text)?: license = text.isEmpty ? nil : text
        case .array(let texts)? where texts.allSatisfy({ $0.stringValue != nil }):
            license = texts.isEmpty ? nil : texts.compactMap(\.stringValue).joined(separator: "\n\n")
        default: throw APIError(.badRequest, "license must be a text or a list of texts", param: "license")
        }
        if from != nil, !files.isEmpty { throw APIError(.badRequest, "from and files cannot both be given", param: "files") }
        func isGGUF(_ name: String) -> Bool {
            name.lowercased().hasSuffix(".gguf") && !name.contains("/") && !name.contains("\0") && !name.hasPrefix(".")
        }
        guard files.count <= 1, files.keys.allSatisfy(isGGUF) else {
            throw APIError(
                .badRequest, "files must be one GGUF file (its name ending in .gguf, and its digest): other formats are not converted here",
                param: "files")
        }
        guard adapters.count <= LoRAAdapter.maxPerRequest, adapters.keys.allSatisfy(isGGUF) else {
            throw APIError(
                .badRequest,
                "adapters must be at most \(LoRAAdapter.maxPerRequest) LoRA adapter GGUF files (names ending in .gguf, and their digests): other formats are not converted here",
                param: "adapters")
        }
    }
}

extension OllamaCreateRequest {
    /// Whether `template` is none or the chat template in the GGUF header of `file` (the base
    /// model's file, or the upload): what a model made of `file` would use anyway.
    static func keeps(_ template: String?, of file: URL?) -> Bool {
        guard let template else { return true }
        guard let file, let own = try? GGUFReader.read(file).chatTemplate else { return false }
        return own == template
    }

    /// `messages`: the conversation every chat with the model starts with, user and assistant
    /// text (a Modelfile's `MESSAGE` lines); nil for none.
    private static func messages(_ value: JSONValue?) throws -> [Message]? {
        func bad(_ why: String) -> APIError { APIError(.badRequest, "messages \(why)", param: "messages") }
        guard let value, value != .null else { return nil }
        guard let list = value.arrayValue else { throw bad("must be a list of messages") }
        let messages = try list.map { item in
            guard let role = item["role"]?.stringValue, let content = item["content"]?.stringValue else {
                throw bad("must each have a role and a content")
            }
            for key in ["images", "tool_calls"] where item[key]?.arrayValue?.isEmpty == false {
                throw bad("may not have \(key): a model starts its conversations with text")
            }
            switch role {
            case "user": return Message(role: .user, content: content)
            case "assistant": return Message(role: .assistant, content: content)
            case "system": throw bad("may not have a system message: send it as system")
            default: throw bad("have the roles user and assistant, not '\(role)'")
            }
        }
        return messages.isEmpty ? nil : messages
    }
}

/// `POST /api/copy`'s body.
struct OllamaCopyRequest: Decodable, Sendable {
    let source: String
    let destination: String

    enum CodingKeys: String, CodingKey { case source, destination }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func name(_ key: CodingKeys) throws -> String {
            guard let name = try container.decodeIfPresent(String.self, forKey: key), !name.isEmpty else {
                throw APIError(.badRequest, "\(key.stringValue) is required", param: key.stringValue)
            }
            return OllamaName.modelID(name)
        }
        source = try name(.source)
        destination = try name(.destination)
    }
}
