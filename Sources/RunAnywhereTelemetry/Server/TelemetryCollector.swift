import Foundation
import Hummingbird
import Logging
import NIOCore
import RunAnywhere

/// `runanywhere telemetry serve`: receives BenchRunner payloads from a fleet, and the device
/// registrations and analytics the SDK sends in staging and production (``BackendRoutes``), and
/// keeps them in a ``TelemetryStore``. Listens on loopback unless given another host together
/// with an API key.
package struct TelemetryCollector: Sendable {
    /// Where runs are kept.
    package let store: any TelemetryStore
    /// The address to bind (127.0.0.1 by default).
    package var host: String
    /// The port (8000 by default, the harnesses' default endpoint; 0 picks a free one).
    package var port: Int
    /// The key clients must send (`Authorization: Bearer KEY`); needed beyond loopback.
    package var apiKey: String?
    /// Host names requests may name beyond loopback and `host` (`--allowed-host`; `*`: any).
    package var allowedHosts: [String] = []
    /// Where requests and failures are logged.
    package var logger: Logger
    /// How long a connection may stay open with no request in flight, before its first request
    /// or between two, until the collector closes it: connections a sender leaves open must not
    /// use up the collector's file descriptors.
    package var idleTimeout: Duration = .seconds(75)

    /// A collector over `store`.
    package init(store: any TelemetryStore, host: String = "127.0.0.1", port: Int = 8000, apiKey: String? = nil, logger: Logger) {
        self.store = store
        self.host = host
        self.port = port
        self.apiKey = apiKey
        self.logger = logger
    }

    /// Refuses to listen beyond loopback without a key, and ports out of range.
    package func validate() throws {
        try Self.validate(host: host, port: port, apiKey: apiKey)
    }

    /// Refuses to listen on `host` beyond loopback without `apiKey`, and ports out of range.
    package static func validate(host: String, port: Int, apiKey: String?) throws {
        if !LoopbackAddress.contains(host), apiKey?.isEmpty ?? true {
            throw SDKError(
                .invalidConfiguration,
                "Refusing to listen on \(host) without an API key: anyone on the network could send runs. Pass --api-key-stdin, or bind to 127.0.0.1"
            )
        }
        guard (0...65_535).contains(port) else { throw SDKError(.invalidConfiguration, "The port must be between 0 and 65535") }
    }

    /// The routes with their middleware: errors as JSON, foreign hosts and pages refused, then the
    /// API key (for `/telemetry…` and `/api/…`).
    package func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: TelemetryErrorMiddleware())
        router.add(middleware: TelemetryOriginMiddleware(policy: RequestOriginPolicy(boundHost: host, allowedHosts: allowedHosts)))
        if let apiKey, !apiKey.isEmpty { router.add(middleware: TelemetryKeyMiddleware(key: apiKey)) }
        router.get("health") { [store] _, _ in try TelemetryRoutes.json(["status": "ok", "store": store.kind]) }
        TelemetryRoutes(store: store).register(on: router)
        BackendRoutes(store: store).register(on: router)
        return router
    }

    /// Serves until SIGINT or SIGTERM (requests in progress finish), then closes the store;
    /// `onServerRunning` is told the bound port. A connection idle for ``idleTimeout`` is closed.
    package func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try validate()
        let application = Application(
            router: router(), server: .http1(configuration: .init(idleTimeout: TimeAmount(idleTimeout))),
            configuration: .init(address: .hostname(host, port: port), serverName: "RunAnywhere telemetry"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) }, logger: logger
        )
        do {
            try await application.runService()
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }
}
