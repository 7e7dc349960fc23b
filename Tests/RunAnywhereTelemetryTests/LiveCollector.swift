import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import RunAnywhere
import RunAnywhereTelemetry

/// `runanywhere telemetry serve`'s collector in this process (its router, middleware and SQLite
/// store) on 127.0.0.1, keeping its port when it is stopped and started again, as a restarted
/// server would; its data is read back through its own read routes.
actor LiveCollector {
    /// A stored event as `GET /api/v1/analytics/events` lists it.
    struct Event: Decodable, Equatable {
        let id: String
        let type: String
        let deviceID: String

        enum CodingKeys: String, CodingKey {
            case id, type, deviceID = "device_id"
        }
    }

    /// A registered device as `GET /api/v1/devices` lists it.
    struct Device: Decodable, Equatable {
        let deviceID: String
        let deviceIdentifier: String

        enum CodingKeys: String, CodingKey {
            case deviceID = "device_id", deviceIdentifier = "device_identifier"
        }
    }

    private struct Page<Item: Decodable>: Decodable {
        let total: Int
        let events: [Item]?
        let devices: [Item]?
    }

    let database: URL
    let apiKey: String
    private(set) var port = 0
    private var running: (server: Task<Void, any Error>, store: any TelemetryStore)?
    private static let logger = Logger(label: "collector", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A collector keeping its data in `folder`, guarded by `apiKey`; not started.
    init(folder: URL, apiKey: String) {
        database = folder.appendingPathComponent("collector/telemetry.sqlite")
        self.apiKey = apiKey
    }

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Opens the store and listens: on a free port the first time, on the same port after.
    func start() async throws {
        let store = try await SQLiteTelemetryStore.open(at: database, logger: Self.logger)
        let collector = TelemetryCollector(store: store, port: port, apiKey: apiKey, logger: Self.logger)
        let (bound, announce) = AsyncStream.makeStream(of: Int.self)
        let server = Task {
            defer { announce.finish() }
            let application = Application(
                router: collector.router(), configuration: .init(address: .hostname("127.0.0.1", port: collector.port)),
                onServerRunning: { channel in announce.yield(channel.localAddress?.port ?? 0) }, logger: Self.logger
            )
            try await application.runService(gracefulShutdownSignals: [])
        }
        guard let port = await bound.first(where: { _ in true }) else {
            try? await store.close()
            try await server.value
            throw SDKError(.networkError, "The collector stopped before it listened")
        }
        self.port = port
        running = (server, store)
    }

    /// Stops listening (the port refuses connections) and closes the store.
    func stop() async {
        guard let running else { return }
        running.server.cancel()
        _ = try? await running.server.value
        try? await running.store.close()
        self.running = nil
    }

    /// Every stored event.
    func events() async throws -> [Event] {
        try await get(BackendAPI.analyticsEventsPath + "?limit=1000", Page<Event>.self).events ?? []
    }

    /// Every registered device.
    func devices() async throws -> [Device] {
        try await get(BackendAPI.devicesPath + "?limit=1000", Page<Device>.self).devices ?? []
    }

    private func get<T: Decodable>(_ path: String, _ type: T.Type) async throws -> T {
        var request = HTTPClientRequest(url: baseURL + path)
        request.headers.add(name: "authorization", value: "Bearer \(apiKey)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
    }
}
