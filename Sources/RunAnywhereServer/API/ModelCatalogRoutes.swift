import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// RunAnywhere's own model-management API, which the web app uses:
/// - `GET /api/models[?category=language]`: the catalog, each model with whether it is
///   installed, its size on disk and, for a language model in the cache, its lifecycle state;
/// - `GET /api/models/{id}`: one model;
/// - `POST /api/models`: add a model from a URL (`url`, `category`, optional `framework`, `id`,
///   `name`, `sha256`, `supportsThinking`), or from a model provider's reference in `url`
///   (`hf.co/OWNER/REPO:QUANT`, resolved at the provider); checked before anything is downloaded; 201;
/// - `POST /api/models/check`: the same body checked without adding anything: the detected
///   format, the framework, and every problem by field (the page shows them inline);
/// - `GET /api/models/{id}/gguf`: a downloaded GGUF model's metadata (architecture,
///   parameters, quantization, context, vocabulary, chat template);
/// - `POST /api/models/{id}/pull`: download it, its progress as server-sent events (`progress`
///   events, then `done`, `cancelled` or `error`); a client that goes away cancels the download, which the
///   next pull resumes; an id that is a provider's reference not yet registered is registered first;
/// - `DELETE /api/models/{id}/pull`: stops the download and answers once it has stopped (204),
///   so that a resume can follow at once; 404 when none is running;
/// - `DELETE /api/models/{id}`: delete its files (and a user-added model's entry); 204;
/// - `GET /api/storage`: disk use of the models folder and the space left.
///
/// Ids in paths are percent-decoded, so a reference's id travels as one segment.
struct ModelCatalogRoutes: Sendable {
    let runtime: RunAnywhereRuntime

    /// A model as the catalog lists it.
    struct CatalogEntry: Encodable, Sendable {
        let model: ModelInfo
        let installed: Bool
        let sizeOnDiskBytes: Int64
        /// A cached language model's state (`loading`, `loaded`, `unloading`, `failed`); nil when not loaded.
        let state: ModelLifecycleState?
    }

    struct Catalog: Encodable, Sendable { let models: [CatalogEntry] }

    struct AddModelRequest: Decodable, Sendable {
        let url: String
        let category: ModelCategory
        let framework: InferenceFramework?
        let id: String?
        let name: String?
        let sha256: String?
        let supportsThinking: Bool?

        /// `url` when it is an http or https address with a host, the only kind the server fetches.
        var httpURL: URL? {
            guard let url = URL(string: url), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil
            else { return nil }
            return url
        }
    }

    /// One event of a pull: the progress report of ``RunAnywhere/DownloadProgress`` as JSON.
    struct PullProgress: Encodable, Sendable {
        let modelId: String
        /// `downloading`, `verifying`, `extracting`, `completed`.
        let state: String
        let bytesDownloaded: Int64
        let totalBytes: Int64?
        /// 0 to 1.
        let fraction: Double
        let bytesPerSecond: Double?
        let secondsRemaining: Double?

        init(_ progress: DownloadProgress) {
            modelId = progress.modelId
            state =
                switch progress.state {
                case .downloading: "downloading"
                case .verifying: "verifying"
                case .extracting: "extracting"
                case .completed: "completed"
                case .failed: "failed"
                }
            bytesDownloaded = progress.bytesDownloaded
            totalBytes = progress.totalBytes
            fraction = progress.percentage
            bytesPerSecond = progress.speed
            secondsRemaining = progress.estimatedTimeRemaining
        }
    }

    func register(on router: some RouterMethods<ServerContext>, maxBodySize: Int) {
        router.get("api/models") { request, _ in
            let category = try request.uri.queryParameters.get("category").map { raw in
                guard let category = ModelCategory(rawValue: String(raw)) else {
                    throw APIError(
                        .badRequest,
                        "Unknown category '\(raw)'; use one of \(ModelCategory.allCases.map(\.rawValue).joined(separator: ", "))",
                        param: "category")
                }
                return category
            }
            let states = await states()
            let models = runtime.availableModels().filter { category == nil || $0.category == category }
            return try jsonResponse(Catalog(models: models.map { entry($0, states: states) }))
        }
        router.get("api/models/:id") { _, context in
            try jsonResponse(entry(try runtime.model(id: context.pathParameter("id")), states: await states()))
        }
        router.post("api/models/check") { request, _ in
            try jsonResponse(await check(try await decodeJSON(AddModelRequest.self, from: request, limit: maxBodySize)))
        }
        router.post("api/models") { request, _ in
            let body = try await decodeJSON(AddModelRequest.self, from: request, limit: maxBodySize)
            let check = await check(body)
            if let problem = check.problems.first {
                // No engine here runs it: not something a retry fixes, unlike an engine failing to open.
                let code = problem.code == .frameworkNotAvailable ? "framework_not_available" : problem.code.rawValue
                throw APIError(
                    problem.code == .modelAlreadyExists ? .conflict : .badRequest, problem.message, param: problem.field.rawValue,
                    code: code)
            }
            return try jsonResponse(entry(try runtime.addModel(check), states: [:]), status: .created)
        }
        router.get("api/models/:id/gguf") { _, context in
            let model = try runtime.model(id: try context.pathParameter("id"))
            guard model.format == .gguf else {
                throw APIError(.notFound, "Model '\(model.id)' is not a GGUF model", param: "id", code: "not_gguf")
            }
            guard let metadata = try runtime.metadata(of: model) else {
                throw APIError(.notFound, "Model '\(model.id)' is not downloaded", param: "id", code: "model_not_downloaded")
            }
            return try jsonResponse(metadata)
        }
        router.post("api/models/:id/pull") { _, context in
            // A reference not registered yet is resolved in the stream, so that its provider's errors are events.
            let pull = try runtime.pull(try context.pathParameter("id"))
            return ServerSentEvents.response { writer in
                var events: [ServerSentEvent] = []
                var id = pull.requested
                do {
                    let (modelId, progress) = try await pull.start()
                    id = modelId
                    for try await report in progress {
                        if case .failed = report.state { continue }  // the stream throws the error next
                        events.append(try ServerSentEvents.event(PullProgress(report), name: "progress"))
                        try await ServerSentEvents.send(&events, to: &writer)
                    }
                    try Task.checkCancellation()  // the updates also end early when the client hangs up: no download done then
                    events.append(try ServerSentEvents.event(entry(try runtime.model(id: id), states: [:]), name: "done"))
                } catch is CancellationError {
                    events.append(try ServerSentEvents.event(["modelId": id], name: "cancelled"))  // by DELETE, or the client went away
                } catch {
                    events.append(try ServerSentEvents.error(error))
                }
                try await ServerSentEvents.send(&events, to: &writer)
            }
        }
        router.delete("api/models/:id/pull") { _, context in
            let id = try context.pathParameter("id")
            guard await runtime.cancelDownload(id) else {
                throw APIError(.notFound, "No download of '\(id)' is running", param: "id", code: "no_download")
            }
            return Response(status: .noContent)
        }
        router.delete("api/models/:id") { _, context in
            try await runtime.deleteStoredModel(try context.pathParameter("id"))
            return Response(status: .noContent)
        }
        router.get("api/storage") { _, _ in
            try jsonResponse(runtime.storageInfo())
        }
    }

    /// What adding `body` would do, with a URL the server does not fetch (not http or https)
    /// as a problem of its own. A provider's reference is resolved at the provider, which says
    /// what the model is: a framework, id, name or sha256 beside it is a problem of that field.
    private func check(_ body: AddModelRequest) async -> ModelSourceCheck {
        if runtime.isModelReference(body.url) {
            let given: [(ModelSourceField, Bool)] = [
                (.framework, body.framework != nil), (.id, body.id != nil), (.sha256, body.sha256 != nil),
            ]
            if let field = given.first(where: \.1)?.0 {
                return ModelSourceCheck(
                    problem: ModelSourceProblem(
                        field, .invalidInput, "\(field.rawValue) does not apply to a reference: its provider says what the model is"),
                    detectedFormat: .unknown)
            }
            return await runtime.checkModelReference(body.url, category: body.category)
        }
        guard let url = body.httpURL else {
            return ModelSourceCheck(
                problem: ModelSourceProblem(
                    .url, .invalidInput, "url must be an http or https address, or a reference such as hf.co/OWNER/REPO:QUANT"),
                detectedFormat: .unknown)
        }
        return runtime.checkModelSource(
            url, category: body.category, framework: body.framework, id: body.id, name: body.name,
            sha256: body.sha256, supportsThinking: body.supportsThinking ?? false)
    }

    private func states() async -> [String: ModelLifecycleState] {
        Dictionary(await runtime.loadedModels().map { ($0.modelId, $0.state) }, uniquingKeysWith: { first, _ in first })
    }

    private func entry(_ model: ModelInfo, states: [String: ModelLifecycleState]) -> CatalogEntry {
        CatalogEntry(
            model: model, installed: model.isDownloaded, sizeOnDiskBytes: model.isDownloaded ? model.primaryFileSize : 0,
            state: states[model.id])
    }
}
