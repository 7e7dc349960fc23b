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
            Response(status: (try? blobs.contains(try context.pathParameter("digest"))) == true ? .ok : .notFound)
        }
        router.post("api/blobs/:digest") { request, context in
            let digest = try context.pathParameter("digest")
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
            let uploads = try await Uploads(body, blobs: blobs, runtime: runtime)
            if let quantization = body.quantization, body.stream { return try await quantize(body, as: quantization, uploads) }
            defer { uploads.removeStaging() }
            let steps = try await create(body, uploads)
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

    /// A create's uploads (its model file, then its adapters), checked (each digest's blob is
    /// here, a `template` is the model file's own) and linked under their names into a staging
    /// folder in the blob folder, which the create removes when it ends.
    struct Uploads: Sendable {
        /// The new model's id.
        let id: String
        /// Each upload: its field (`files`, `adapters`), its file's name and its digest.
        let named: [(field: String, name: String, digest: String)]
        /// Their blobs, used up once the model is made.
        let blobs: [URL]
        /// The links, in the same order.
        let staged: [URL]
        let staging: URL
        /// The adapters' links.
        let adapters: [URL]

        init(_ body: OllamaCreateRequest, blobs store: OllamaBlobs, runtime: RunAnywhereRuntime) async throws {
            id = try OllamaCreateRoutes.validID(body.model, param: "model")
            guard body.from != nil || !body.files.isEmpty else {
                throw APIError(.badRequest, "from (a model to copy) or files (an uploaded GGUF file) is required", param: "from")
            }
            let named =
                (body.files.first.map { [(field: "files", name: $0.key, digest: $0.value)] } ?? [])
                + body.adapters.sorted { $0.key < $1.key }.map { (field: "adapters", name: $0.key, digest: $0.value) }
            let blobs = try named.map { field, name, digest in
                let blob: URL
                do {
                    blob = try store.url(of: digest)
                } catch let error as APIError {
                    throw APIError(error.status, "\(field).\(name): \(error.message)", param: field)
                }
                guard FileManager.default.fileExists(atPath: blob.path) else { throw OllamaCreateRoutes.missing(digest, field: field) }
                return blob
            }
            let base = body.from.map { source in (try? runtime.model(id: source))?.primaryFile } ?? blobs.first
            if let template = body.template {
                guard try await runBlocking({ OllamaCreateRequest.keeps(template, of: base) }) else {
                    throw APIError(.badRequest, OllamaCreateRequest.otherTemplate, param: "template")
                }
            }
            // The import takes each file's name (its format and the model's default name come
            // from it): a link of that name to the blob, in the blob folder.
            let staging = ScratchFile.url(in: store.directory, prefix: ".create.", suffix: "")
            let staged = try await runBlocking {
                ScratchFile.removeAbandoned(in: store.directory, prefix: ".create.")
                do {
                    return try OllamaCreateRoutes.stage(zip(named, blobs).map { ($0.field, $0.name, $0.digest, $1) }, in: staging)
                } catch {
                    try? FileManager.default.removeItem(at: staging)
                    throw error
                }
            }
            (self.named, self.blobs, self.staging, self.staged) = (named, blobs, staging, staged)
            adapters = Array(staged.dropFirst(body.files.count))
        }

        /// Removes the staging folder (the links; the blobs stay until a model uses them up).
        func removeStaging() { try? FileManager.default.removeItem(at: staging) }

        /// Removes the blobs a model was made of.
        func useUp() { for blob in blobs { try? FileManager.default.removeItem(at: blob) } }

        /// ollama's steps for the uploads: "using existing layer DIGEST" each.
        var steps: [String] { named.map { "using existing layer \($0.digest)" } }
    }

    /// Makes the model `body` asks for of `uploads`, before anything is answered (linking takes no
    /// time), so that a failure is the response's status; returns the steps taken, as ollama
    /// names them.
    private func create(_ body: OllamaCreateRequest, _ uploads: Uploads) async throws -> [String] {
        try await Self.blamingTheUpload { try await make(body, uploads) }
        uploads.useUp()
        let steps = uploads.steps + (body.quantization.map { ["quantizing model to \($0.name)"] } ?? [])
        guard let source = body.from else { return ["parsing GGUF"] + steps }
        return ["using existing model \(OllamaName.name(source))"] + steps
    }

    /// `work` on the client's uploaded files: one that is not a model is the request's fault, a
    /// 400 naming `files`, not a server's 500.
    private static func blamingTheUpload<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let error as SDKError where error.code == .invalidModelFormat {
            throw APIError(.badRequest, error.message, param: "files", code: error.code.rawValue)
        }
    }

    /// Makes the model `body` asks for from `uploads`.
    private func make(_ body: OllamaCreateRequest, _ uploads: Uploads) async throws {
        let (id, adapters) = (uploads.id, uploads.adapters)
        switch (body.from, body.quantization) {
        case (_, let quantization?):
            try await runtime.quantize(try await prepare(body, as: quantization, uploads), threads: configuration.threads)
        case (let source?, nil):
            _ = try await runBlocking { [runtime] in
                try Self.copy(source, to: id, runtime: runtime, defaults: body.defaults, license: body.license, adapters: adapters)
            }
        case (nil, nil):
            _ = try await runBlocking { [runtime] in
                try runtime.importModel(
                    at: uploads.staged[0], id: id, name: nil, defaults: body.defaults, license: body.license, adapters: adapters)
            }
        }
    }

    /// The quantization `body` asks for, checked: of the model it names (`from`) or of its uploaded file.
    private func prepare(_ body: OllamaCreateRequest, as quantization: ModelQuantization, _ uploads: Uploads) async throws
        -> QuantizationJob
    {
        guard let source = body.from else {
            return try await Self.blamingTheUpload {
                try await runtime.prepareQuantization(
                    file: uploads.staged[0], as: quantization, id: uploads.id, defaults: body.defaults, license: body.license,
                    adapters: uploads.adapters)
            }
        }
        guard (try? runtime.model(id: source))?.isDownloaded == true else { throw Self.notFound(source) }
        return try await runtime.prepareQuantization(
            of: source, as: quantization, id: uploads.id, defaults: body.defaults, license: body.license, adapters: uploads.adapters)
    }

    /// A streamed quantization: its refusals before the stream (as statuses), then its steps
    /// and, as llama.cpp's quantizer writes each tensor, `quantizing … model to …` lines with the
    /// tensors `completed` of `total`, ending with `success`, or an error line. A client that goes
    /// away stops the quantizer.
    private func quantize(_ body: OllamaCreateRequest, as quantization: ModelQuantization, _ uploads: Uploads) async throws -> Response {
        let job: QuantizationJob
        do {
            job = try await prepare(body, as: quantization, uploads)
        } catch {
            uploads.removeStaging()
            throw error
        }
        let status = "quantizing \(job.sourceQuantization ?? "unquantized") model to \(quantization.name)"
        let opening = (body.from.map { ["using existing model \(OllamaName.name($0))"] } ?? ["parsing GGUF"]) + uploads.steps
        return NDJSON.response { [runtime, threads = configuration.threads] writer in
            defer { uploads.removeStaging() }
            let (updates, reported) = AsyncStream.makeStream(of: QuantizationProgress.self, bufferingPolicy: .bufferingNewest(1))
            let work = Task {
                defer { reported.finish() }
                return try await runtime.quantize(job, threads: threads) { reported.yield($0) }
            }
            do {
                try await NDJSON.write((opening + [status]).map(OllamaPullProgress.init(status:)), to: &writer)
                for await update in updates {
                    var line = OllamaPullProgress(status: status)
                    (line.total, line.completed) = (Int64(update.total), Int64(update.done))
                    try await NDJSON.write([line], to: &writer)
                }
                // The updates end early when the client hangs up between two of them (the task is
                // cancelled then): the quantizer is not waited for.
                try Task.checkCancellation()
                _ = try await work.value
                uploads.useUp()
                try await NDJSON.write(["writing manifest", "success"].map(OllamaPullProgress.init(status:)), to: &writer)
            } catch is CancellationError {
                work.cancel()  // the client went away
            } catch {
                work.cancel()
                try await NDJSON.write([OllamaError(APIError.from(error))], to: &writer)
            }
        }
    }

    /// Links each upload (`field`, its file `name`, its `blob`) into a folder of its own in
    /// `staging` (a model file and an adapter may share a name), under its name; the links, in order.
    static func stage(_ uploads: [(field: String, name: String, digest: String, blob: URL)], in staging: URL) throws -> [URL] {
        var staged: [URL] = []
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            for (field, name, digest, blob) in uploads {
                let folder = staging.appendingPathComponent("\(staged.count)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
                do {
                    try FileManager.default.linkItem(at: blob, to: folder.appendingPathComponent(name))
                } catch {
                    // Another create of the same upload may have used it up since it was looked for.
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
    static func missing(_ digest: String, field: String) -> APIError {
        APIError(
            .badRequest, "\(field) names the blob \(digest), which is not here: upload the file first (POST /api/blobs/\(digest))",
            param: field)
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

    /// `id`, when it can name a model here (a 400 naming `param` otherwise).
    static func validID(_ id: String, param: String) throws -> String {
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
