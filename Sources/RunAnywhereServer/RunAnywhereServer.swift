import Foundation
import Hummingbird
import Logging
import RunAnywhere
import RunAnywhereTelemetry

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

    /// Creates a server; ``run(onServerRunning:)`` validates the configuration first.
    public init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) {
        self.runtime = runtime
        self.configuration = configuration
        self.metrics = ServerMetrics(runtime: runtime)
    }

    /// The routes with their middleware: access log and metrics, error shapes, foreign hosts and
    /// pages refused, CORS, API key.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessLogMiddleware(metrics: metrics))
        router.add(middleware: OpenAIErrorMiddleware())
        router.add(middleware: OriginGuardMiddleware(policy: configuration.originPolicy))
        if !configuration.corsOrigins.isEmpty { router.add(middleware: CORSAllowListMiddleware(origins: configuration.corsOrigins)) }
        if let key = configuration.apiKey, !key.isEmpty { router.add(middleware: APIKeyMiddleware(key: key)) }
        if let webApp = Self.webAppFolder {
            router.add(
                middleware: FileMiddleware(
                    webApp, cacheControl: .init([(MediaType(type: .any), [.noCache])]), searchForIndexHtml: true,
                    logger: configuration.logger))
        }
        router.get("health") { _, _ in try jsonResponse(["status": "ok"]) }
        router.get("metrics") { [metrics] _, _ in
            bodyResponse(ByteBuffer(bytes: await metrics.scrape()), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        OpenAIRoutes(runtime: runtime, configuration: configuration).register(on: router)
        AnthropicRoutes(runtime: runtime, configuration: configuration).register(on: router)
        ResponseRoutes(runtime: runtime, configuration: configuration).register(on: router)
        OllamaRoutes(runtime: runtime, configuration: configuration).register(on: router)
        OllamaModelRoutes(runtime: runtime, configuration: configuration).register(on: router)
        SpeechRoutes(runtime: runtime, configuration: configuration).register(on: router)
        ImageGenerationRoutes(runtime: runtime, configuration: configuration).register(on: router)
        EmbeddingRoutes(runtime: runtime, configuration: configuration).register(on: router)
        RerankRoutes(runtime: runtime, configuration: configuration).register(on: router)
        TranscriptionRoutes(runtime: runtime, configuration: configuration).register(on: router)
        LoadedModelRoutes(runtime: runtime, configuration: configuration).register(on: router)
        SystemRoutes(runtime: runtime).register(on: router)
        ModelCatalogRoutes(runtime: runtime).register(on: router, maxBodySize: configuration.maxBodySize)
        SettingsRoutes(dataDirectory: runtime.configuration.dataDirectory, maxBodySize: configuration.maxBodySize).register(on: router)
        ConversationRoutes(runtime: runtime, configuration: configuration).register(on: router)
        BenchmarkRoutes(runtime: runtime, configuration: configuration).register(on: router)
        VoiceRoutes(runtime: runtime, configuration: configuration).register(on: router)
        VisionRoutes(runtime: runtime, configuration: configuration).register(on: router)
        TokenizeRoutes(runtime: runtime, configuration: configuration).register(on: router)
        RAGRoutes(runtime: runtime, configuration: configuration).register(on: router)
        if let store = configuration.telemetryStore { TelemetryRoutes(store: store).register(on: router) }
        OpenAPIDocument.register(on: router)
        return router
    }

    /// The Hummingbird application; `onServerRunning` is told once the port is bound.
    public func application(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(
            router: router(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "RunAnywhere"),
            services: [MetricsRecorder(runtime: runtime, metrics: metrics)],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: configuration.logger
        )
    }

    /// Serves until SIGINT or SIGTERM, then stops accepting, lets running requests finish, closes
    /// the telemetry store and the RAG session and returns.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        do {
            try configuration.validate()
            try await application(onServerRunning: onServerRunning).runService()
        } catch {
            await runtime.unloadAllModels()
            try? await configuration.telemetryStore?.close()
            await configuration.ragSession?.close()
            throw error
        }
        await runtime.unloadAllModels()
        try? await configuration.telemetryStore?.close()
        await configuration.ragSession?.close()
    }
}

extension RunAnywhereServer {
    /// Whether the web app's files were found, so that `/` serves the page.
    public var servesWebApp: Bool { Self.webAppFolder != nil }

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
