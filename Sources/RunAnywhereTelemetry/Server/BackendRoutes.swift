import Foundation
import Hummingbird
import RunAnywhere

/// The routes the SDK calls in staging and production (``BackendAPI``), over a
/// ``TelemetryStore``, which `runanywhere telemetry serve` mounts beside `/telemetry`:
/// `POST /api/v1/devices/register` (201 new, 200 known), `POST /api/v1/analytics/events`
/// (each event stored once by id; 404 for a device that is not registered), and their reads,
/// `GET /api/v1/devices` and `GET /api/v1/analytics/events`. Errors are
/// `{"error": {"message", "field"}}`.
package struct BackendRoutes: Sendable {
    /// Where devices and events are kept.
    package let store: any TelemetryStore

    /// Routes over `store`.
    package init(store: any TelemetryStore) {
        self.store = store
    }

    /// Adds the routes to `router` under `/api/v1`.
    package func register<Context: RequestContext>(on router: Router<Context>) {
        let group = router.group("api/v1").add(middleware: TelemetryErrorMiddleware())
        group.post("devices/register") { request, _ in try await registerDevice(request) }
        group.post("analytics/events") { request, _ in try await receive(request) }
        group.get("devices") { request, _ in
            let (limit, offset) = try Self.page(TelemetryRoutes.parameters(request))
            return try TelemetryRoutes.json(
                DevicesBody(total: try await store.deviceCount(), devices: try await store.devices(limit: limit, offset: offset)))
        }
        group.get("analytics/events") { request, _ in
            let parameters = TelemetryRoutes.parameters(request)
            let (limit, offset) = try Self.page(parameters)
            let query = AnalyticsQuery(deviceID: parameters["device_id"], type: parameters["type"], limit: limit, offset: offset)
            return try TelemetryRoutes.json(
                EventsBody(total: try await store.analyticsEventCount(query), events: try await store.analyticsEvents(query)))
        }
    }

    private func registerDevice(_ request: Request) async throws -> Response {
        let registration: DeviceRegistration
        do {
            registration = try BackendValidator.registration(try await Self.body(request, limit: BackendValidator.maxRegistrationBytes))
        } catch let error as TelemetryValidationError {
            throw TelemetryHTTPError(error.tooLarge ? .contentTooLarge : .badRequest, error.description, field: error.field)
        }
        let (device, created) = try await store.registerDevice(registration, at: Date())
        return try TelemetryRoutes.json(
            DeviceRegistrationResult(deviceID: device.deviceID, registeredAt: BackendTime.text(device.registeredAt)),
            status: created ? .created : .ok)
    }

    private func receive(_ request: Request) async throws -> Response {
        let batch: BackendValidator.Batch
        do {
            batch = try BackendValidator.batch(try await Self.body(request, limit: BackendValidator.maxBatchBytes))
        } catch let error as TelemetryValidationError {
            throw TelemetryHTTPError(error.tooLarge ? .contentTooLarge : .badRequest, error.description, field: error.field)
        }
        let now = Date()
        guard try await store.touchDevice(batch.deviceID, at: now) else {
            throw TelemetryHTTPError(
                .notFound, "The device \(batch.deviceID) is not registered; register it with POST \(BackendAPI.registerDevicePath) first",
                field: "device_id")
        }
        let stored = try await store.insertEvents(batch.events, deviceID: batch.deviceID, receivedAt: now)
        let result = AnalyticsBatchResult(
            accepted: batch.events.map(\.id), stored: stored.count, duplicates: batch.events.count - stored.count, rejected: batch.rejected
        )
        return try TelemetryRoutes.json(result)
    }

    /// The JSON body of `request`, at most `limit` bytes.
    private static func body(_ request: Request, limit: Int) async throws -> Data {
        guard JSONMediaType.matches(request.headers[.contentType]) else {
            throw TelemetryHTTPError(.unsupportedMediaType, "The body must be JSON, sent with 'Content-Type: application/json'")
        }
        var request = request
        do {
            return Data(buffer: try await request.collectBody(upTo: limit))
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw TelemetryHTTPError(.contentTooLarge, "The body is larger than \(limit) bytes")
        }
    }

    /// The `limit` (1 to 1000, 100 by default) and `offset` of a read, checked as `/telemetry/runs` checks them.
    static func page(_ parameters: [String: String]) throws -> (limit: Int, offset: Int) {
        let query = try TelemetryRoutes.query(parameters, defaultLimit: 100)
        return (query.limit, query.offset)
    }

    struct DevicesBody: Encodable {
        let total: Int
        let devices: [DeviceRecord]
    }

    struct EventsBody: Encodable {
        let total: Int
        let events: [AnalyticsRecord]
    }
}
