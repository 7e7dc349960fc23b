import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import RunAnywhere
import RunAnywhereTelemetry
import ServiceLifecycle

/// `runanywhere serve`: an OpenAI-compatible HTTP API over a ``RunAnywhere/RunAnywhereRuntime``.
///
/// Requests name their model; it is loaded on demand and used in the same step, so a request for
/// another model waits rather than swapping the model out from under a running one.
public struct RunAnywhereServer: Sendable {
    /// The runtime every request runs on.
    public let runtime: RunAnywhereRuntime
    /// Where and how the server listens.
    public let configuration: ServerConfiguration
    let metrics: ServerMetrics
    /// The keys requests are checked against: `--api-key`'s and the data folder's key store.
    let keys: KeyRing
    /// The conversations being answered: on every replica, with the replicas' database.
    let answering: AnsweringConversations
    /// The keys' usage of every replica, with the replicas' database.
    let sharedUsage: SharedKeyUsage?
    /// The Responses API's responses made in the background.
    let background: BackgroundResponses
    /// The requests under way on each connection, cancelled when their client hangs up.
    let hangUps = ClientHangUps()

    /// Creates a server; ``run(onServerRunning:)`` validates the configuration first.
    public init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) {
        self.runtime = runtime
        self.configuration = configuration
        self.metrics = ServerMetrics(runtime: runtime, sharesUsage: configuration.database != nil)
        self.keys = KeyRing(store: Self.keyStore(runtime: runtime, configuration: configuration), serverKey: configuration.apiKey)
        self.answering = AnsweringConversations(
            replicas: configuration.database.map { PostgresAnswers(database: $0) }, logger: configuration.logger)
        self.sharedUsage = configuration.database.map { [metrics] in
            SharedKeyUsage(usage: metrics.usage, store: PostgresKeyUsage(database: $0), logger: configuration.logger)
        }
        self.background = BackgroundResponses(answering: answering, logger: configuration.logger)
    }

    /// What runs beside the routes while the server serves: the metrics recorder and, with the
    /// replicas' database, what keeps the replicas' answers in step (``ReplicaAnswers``) and
    /// what shares the keys' usage (``SharedKeyUsage``).
    var services: [any Service] {
        var services: [any Service] = [MetricsRecorder(runtime: runtime, metrics: metrics)]
        if let replicas = answering.replicas {
            services.append(ReplicaAnswers(answering: answering, replicas: replicas, logger: configuration.logger))
        }
        if let sharedUsage { services.append(sharedUsage) }
        return services
    }

    /// The keys: in the replicas' database when there is one, else in the data folder.
    static func keyStore(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) -> APIKeyStore {
        APIKeyStore(database: configuration.database, dataDirectory: runtime.configuration.dataDirectory, logger: configuration.logger)
    }

    /// The routes with their middleware: the access log and metrics around everything; then, for
    /// each family of routes, its errors in the family's shape, foreign hosts and
    /// pages refused, CORS, and the API key. A router's middleware wraps only the routes added
    /// after it (Hummingbird), so Anthropic's and ollama's routes, added first in groups of their
    /// own, answer every failure in their shape; the router's own stack, in OpenAI's, wraps the
    /// rest, unknown paths and the web app's files included.
    /// Every GET route answers HEAD too, without the body, where no route answers HEAD itself: a
    /// server that answers GET answers HEAD (RFC 9110, 9.3.2), and clients probe with it (ollama's
    /// CLI sends `HEAD /` before its commands).
    package func router() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: AccessLogMiddleware(metrics: metrics))

        AnthropicRoutes(runtime: runtime, configuration: configuration).register(on: apiGroup(router, shape: .anthropic))
        let ollama = apiGroup(router, shape: .ollama)
        OllamaRoutes(runtime: runtime, configuration: configuration).register(on: ollama)
        OllamaModelRoutes(runtime: runtime, configuration: configuration).register(on: ollama)
        OllamaCreateRoutes(runtime: runtime, configuration: configuration).register(on: ollama)

        for middleware in requestChecks(shape: .openAI) { router.add(middleware: middleware) }
        if let webApp = Self.webAppFolder {
            router.add(
                middleware: FileMiddleware(
                    webApp, cacheControl: .init([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: true,
                    logger: configuration.logger))
        }
        router.get("health") { _, _ in try jsonResponse(["status": "ok"]) }
        router.get("ready") { [self] _, _ in
            let problems = await readinessProblems()
            return try problems.isEmpty
                ? jsonResponse(["status": "ready"]) : jsonResponse(Unready(problems: problems), status: .serviceUnavailable)
        }
        let api = apiGroup(router)
        api.get("metrics") { [metrics] _, _ in
            bodyResponse(ByteBuffer(bytes: await metrics.scrape()), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        runtime.defaultLoRAAdapters.withLock { $0 = configuration.loraAdapters }
        runtime.defaultDraftModels.withLock { $0 = configuration.draftModels }
        let adapters = ServedLoRAAdapters(runtime: runtime)
        OpenAIRoutes(runtime: runtime, configuration: configuration, adapters: adapters).register(on: api)
        LoRAAdapterRoutes(adapters: adapters, configuration: configuration).register(on: api)
        ResponseRoutes(runtime: runtime, configuration: configuration, background: background).register(on: api)
        ConversationItemRoutes(runtime: runtime, configuration: configuration).register(on: api)
        SpeechRoutes(runtime: runtime, configuration: configuration).register(on: api)
        ImageGenerationRoutes(runtime: runtime, configuration: configuration).register(on: api)
        EmbeddingRoutes(runtime: runtime, configuration: configuration).register(on: api)
        RerankRoutes(runtime: runtime, configuration: configuration).register(on: api)
        TranscriptionRoutes(runtime: runtime, configuration: configuration).register(on: api)
        RealtimeRoutes(runtime: runtime, configuration: configuration).register(on: api)
        LoadedModelRoutes(runtime: runtime, configuration: configuration).register(on: api)
        SystemRoutes(runtime: runtime).register(on: api)
        ModelCatalogRoutes(runtime: runtime).register(on: api, maxBodySize: configuration.maxBodySize)
        SettingsRoutes(dataDirectory: runtime.configuration.dataDirectory, configuration: configuration) { [runtime] in
            try runtime.model(id: $0)
        }
        .register(on: api)
        KeyRoutes(
            store: Self.keyStore(runtime: runtime, configuration: configuration), usage: metrics.usage, sharedUsage: sharedUsage,
            maxBodySize: configuration.maxBodySize
        )
        .register(on: api)
        ConversationRoutes(runtime: runtime, configuration: configuration, answering: answering).register(on: api)
        BenchmarkRoutes(runtime: runtime, configuration: configuration).register(on: api)
        VoiceRoutes(runtime: runtime, configuration: configuration).register(on: api)
        VisionRoutes(runtime: runtime, configuration: configuration).register(on: api)
        TokenizeRoutes(runtime: runtime, configuration: configuration).register(on: api)
        LlamaServerRoutes(runtime: runtime, configuration: configuration).register(on: api)
        RAGRoutes(runtime: runtime, configuration: configuration).register(on: api)
        if let store = configuration.telemetryStore { TelemetryRoutes(store: store).register(on: api) }
        OpenAPIDocument.register(on: api)
        return router
    }

    /// What every request passes before its route, in this order: CORS for the listed origins,
    /// the error answers in `shape`, foreign hosts and pages refused. CORS comes first so that it
    /// adds its headers to an error answer as to any other: inside, it would meet the error
    /// itself, and Hummingbird's CORS wraps a thrown error in one of its own, which the shape's
    /// middleware would answer as a 500 without the headers.
    private func requestChecks(shape: ErrorShape) -> [any MiddlewareProtocol<Request, Response, ServerContext>] {
        var checks: [any MiddlewareProtocol<Request, Response, ServerContext>] = []
        if !configuration.corsOrigins.isEmpty { checks.append(CORSAllowListMiddleware(origins: configuration.corsOrigins)) }
        checks += [ErrorShapeMiddleware(shape: shape), OriginGuardMiddleware(policy: configuration.originPolicy)]
        return checks
    }

    /// `GET /ready`'s answer when something the server needs is missing.
    struct Unready: Encodable, Sendable {
        var status = "unready"
        let problems: [String]
    }

    /// What keeps the server from serving, for a load balancer's readiness probe (`GET /ready`):
    /// no engine here runs language models, the data folder is not writable, or the database,
    /// the key store or the document database cannot be read. None: ready.
    func readinessProblems() async -> [String] {
        var problems: [String] = []
        let engines = runtime.frameworks.statuses()
        if !engines.contains(where: { $0.availability.isAvailable && $0.modalities.contains(.textToText) }) {
            problems.append("no engine here can run a language model")
        }
        let data = runtime.configuration.dataDirectory
        if (try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)) == nil
            || !FileManager.default.isWritableFile(atPath: data.path)
        {
            problems.append("the data folder cannot be written")
        }
        // Each store gets a few seconds: a probe must answer before the load balancer gives up.
        let limit = configuration.readinessLimit
        let unanswered = SDKError(.networkError, "no answer within \(limit)")
        if let database = configuration.database {
            do { try await database.ping(timeout: limit) } catch {
                problems.append("the database cannot be reached: \(APIError.from(error).message)")
            }
        }
        let keys = keys
        do {
            _ = try await withTimeLimit(limit, failure: { unanswered }) { try await keys.required() }
        } catch {
            problems.append("the key store cannot be read: \(APIError.from(error).message)")
        }
        let documents = configuration.ragSession ?? runtime.ragSession()
        do {
            _ = try await withTimeLimit(limit, failure: { unanswered }) { try await documents.listCollections() }
        } catch {
            problems.append("the document database cannot be reached: \(APIError.from(error).message)")
        }
        return problems
    }

    /// A group for a family of API routes: with a `shape`, the request checks in that shape
    /// (without, the router's own apply), then the API key once the server has any.
    private func apiGroup(_ router: Router<ServerContext>, shape: ErrorShape? = nil) -> RouterGroup<ServerContext> {
        let group = router.group()
        for check in shape.map(requestChecks) ?? [] { group.add(middleware: check) }
        group.add(middleware: APIKeyMiddleware(keys: keys, metrics: metrics))
        group.add(middleware: ClientHangUpMiddleware(hangUps: hangUps))
        return group
    }

    /// The Hummingbird application; `onServerRunning` is told once the port is bound.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = router()
        return Application(
            responder: router.buildResponder(),
            server: .guarded(router, idleTimeout: configuration.idleTimeout, maxMessageSize: configuration.maxBodySize, hangUps: hangUps),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "RunAnywhere"),
            services: services,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: configuration.logger
        )
    }

    /// Serves until SIGINT or SIGTERM (or until the task running it is cancelled), then stops
    /// accepting, lets running requests finish for up to ``ServerConfiguration/drainTimeout`` and
    /// cancels the rest, ends the responses it makes in the background (failed, stored so), and
    /// leaves the runtime as it found it: models
    /// unloaded, the server's LoRA adapters and draft models no longer applied; closes the
    /// telemetry store and the RAG session and returns.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        do {
            try configuration.validate(keysExist: try await keys.required())
            var group = ServiceGroupConfiguration(
                services: [.init(service: application(onServerRunning: onServerRunning))], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: configuration.logger)
            group.maximumGracefulShutdownDuration = configuration.drainTimeout
            try await ServiceGroup(configuration: group).run()
        } catch {
            await stopped()
            throw error
        }
        await stopped()
    }

    private func stopped() async {
        await background.stopAll()
        metrics.stopCountingUsage()
        runtime.defaultLoRAAdapters.withLock { $0 = [] }
        runtime.defaultDraftModels.withLock { $0 = [:] }
        await runtime.unloadAllModels()
        try? await configuration.telemetryStore?.close()
        await configuration.ragSession?.close()
        await configuration.database?.close()
    }
}

extension RunAnywhereServer {
    /// Whether the web app's files were found, so that `/` serves the page.
    package var servesWebApp: Bool { Self.webAppFolder != nil }

    /// The web app's files (`WebApp/`, a SwiftPM resource): in the resource bundle SwiftPM puts
    /// beside the executable, or, for a binary moved elsewhere, under `$RUNANYWHERE_WEB_APP`.
    /// Nil when neither is there: the API is served without the page.
    static let webAppFolder: String? = {
        if let override = ProcessInfo.processInfo.environment["RUNANYWHERE_WEB_APP"], !override.isEmpty { return override }
        let bundle = "RunAnywhere_RunAnywhereServer.resources"
        let candidates = [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent()].compactMap { $0 }
        return candidates.map { $0.appendingPathComponent(bundle).appendingPathComponent("WebApp") }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path) }?.path
    }()
}
