import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RunAnywhere
import RunAnywhereTelemetry
import RunAnywhereTestSupport
import Testing

/// The SDK backend's routes on the collector (`/api/v1/…`) over both stores, in process: device
/// registration, analytics batches stored once by event id, their reads, bad bodies and the key.
@Suite(.inProcessLane, .serialized, .enabled(if: TestPostgres.isInstalled, "scripts/setup --tests installs PostgreSQL"), .postgresCluster)
struct BackendRouteTests {
    private static func application(_ store: any TelemetryStore, apiKey: String? = nil) -> some ApplicationProtocol {
        Application(router: TelemetryCollector(store: store, port: 0, apiKey: apiKey, logger: Logger(label: "collector")).router())
    }

    private static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    private static func body(_ value: some Encodable) throws -> ByteBuffer {
        ByteBuffer(data: try JSONEncoder().encode(value))
    }

    static let registration = DeviceRegistration(
        deviceIdentifier: "0f6a4c8e-1111-4a5b-9c3d-222233334444", platform: "linux", osVersion: "Debian GNU/Linux 12 (bookworm)",
        architecture: "x86_64", deviceModel: "AMD EPYC 7B13", sdkVersion: "0.1.0", environment: "staging"
    )

    static func event(_ id: String, type: String = "generation", tokens: Int = 12) -> AnalyticsEvent {
        AnalyticsEvent(
            id: id, type: type, occurredAt: "2026-01-02T03:04:05.678Z",
            properties: [
                "model_id": .text("smollm2"), "output_tokens": .integer(tokens), "tokens_per_second": .number(41.5),
                "streamed": .flag(true),
            ]
        )
    }

    @Test(arguments: TelemetryStoreKind.allCases)
    func aDeviceRegistersOnceAndItsEventsAreStoredOnceEach(_ kind: TelemetryStoreKind) async throws {
        let store = try await kind.make()
        try await Self.application(store).test(.router) { client in
            var deviceID = ""
            for expected in [HTTPResponse.Status.created, .ok] {
                try await client.execute(
                    uri: BackendAPI.registerDevicePath, method: .post, headers: .json, body: try Self.body(Self.registration)
                ) { response in
                    #expect(response.status == expected)
                    let result = try JSONDecoder().decode(DeviceRegistrationResult.self, from: Data(buffer: response.body))
                    if expected == .created {
                        deviceID = result.deviceID
                    } else {
                        #expect(result.deviceID == deviceID, "registering again keeps the id")
                    }
                }
            }
            let first = AnalyticsBatch(deviceID: deviceID, events: [Self.event("e1"), Self.event("e2", type: "transcription")])
            try await client.execute(uri: BackendAPI.analyticsEventsPath, method: .post, headers: .json, body: try Self.body(first)) {
                response in
                #expect(response.status == .ok)
                let result = try JSONDecoder().decode(AnalyticsBatchResult.self, from: Data(buffer: response.body))
                #expect(result == AnalyticsBatchResult(accepted: ["e1", "e2"], stored: 2, duplicates: 0, rejected: []))
            }
            // A retry of e2 (its acknowledgement lost), a new event, one sent twice, and one the collector can never store.
            let retry = AnalyticsBatch(
                deviceID: deviceID, events: [Self.event("e2"), Self.event("e3"), Self.event("e3"), Self.event("e4", type: "dancing")])
            try await client.execute(uri: BackendAPI.analyticsEventsPath, method: .post, headers: .json, body: try Self.body(retry)) {
                response in
                let result = try JSONDecoder().decode(AnalyticsBatchResult.self, from: Data(buffer: response.body))
                #expect(result.accepted == ["e2", "e3"] && result.stored == 1 && result.duplicates == 1)
                #expect(result.rejected.map(\.id) == ["e4"] && result.rejected.first?.message.contains("type") == true)
            }
            try await client.execute(uri: BackendAPI.analyticsEventsPath + "?type=generation", method: .get) { response in
                let body = try Self.json(response.body)
                #expect(body["total"] as? Int == 2)
                let events = try #require(body["events"] as? [[String: Any]])
                #expect(Set(events.compactMap { $0["id"] as? String }) == ["e1", "e3"])
                let stored = try #require(events.first)
                #expect(
                    stored["device_id"] as? String == deviceID && stored["occurred_at"] as? String == "2026-01-02T03:04:05.678Z"
                        && stored["received_at"] is String)
                let properties = try #require(stored["properties"] as? [String: Any])
                #expect(
                    properties["output_tokens"] as? Int == 12 && properties["tokens_per_second"] as? Double == 41.5
                        && properties["streamed"] as? Bool == true)
            }
            try await client.execute(uri: BackendAPI.devicesPath, method: .get) { response in
                let body = try Self.json(response.body)
                let device = try #require((body["devices"] as? [[String: Any]])?.first)
                #expect(
                    body["total"] as? Int == 1 && device["device_id"] as? String == deviceID
                        && device["device_identifier"] as? String == Self.registration.deviceIdentifier)
            }
        }
        #expect(try await store.analyticsEventCount(AnalyticsQuery()) == 3)
        #expect(try await store.analyticsEvents(AnalyticsQuery(type: "transcription")).map(\.event.id) == ["e2"])
        try await store.close()
    }

    /// A batch from a device the collector does not know (its database was reset, say) is a 404
    /// naming `device_id`, which tells the SDK to register again; nothing is stored.
    @Test(arguments: TelemetryStoreKind.allCases)
    func anUnknownDeviceIsTold(_ kind: TelemetryStoreKind) async throws {
        let store = try await kind.make()
        try await Self.application(store).test(.router) { client in
            let batch = AnalyticsBatch(deviceID: "not-registered", events: [Self.event("e1")])
            try await client.execute(uri: BackendAPI.analyticsEventsPath, method: .post, headers: .json, body: try Self.body(batch)) {
                response in
                #expect(response.status == .notFound)
                let error = try #require(try Self.json(response.body)["error"] as? [String: Any])
                #expect(error["field"] as? String == "device_id")
            }
        }
        #expect(try await store.analyticsEventCount(AnalyticsQuery()) == 0)
        try await store.close()
    }

    /// Bodies that are not a registration or a batch at all: a 4xx naming the field, nothing stored.
    @Test func badBodiesAreRefused() async throws {
        let store = try await TelemetryStoreKind.sqlite.make()
        func registration(_ change: (inout [String: Any]) -> Void) throws -> ByteBuffer {
            var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.registration)) as? [String: Any])
            change(&object)
            return ByteBuffer(data: try JSONSerialization.data(withJSONObject: object))
        }
        let cases: [(String, ByteBuffer, HTTPResponse.Status, String?)] = [
            (BackendAPI.registerDevicePath, ByteBuffer(string: "{\"device_identifier\": "), .badRequest, nil),
            (
                BackendAPI.registerDevicePath, try registration { $0["device_identifier"] = "x' OR '1'='1" }, .badRequest,
                "device_identifier"
            ),
            (BackendAPI.registerDevicePath, try registration { $0["os_version"] = "<script>" }, .badRequest, "os_version"),
            (BackendAPI.registerDevicePath, try registration { $0["environment"] = "development" }, .badRequest, "environment"),
            (BackendAPI.registerDevicePath, try registration { $0["extra"] = 1 }, .badRequest, "extra"),
            (BackendAPI.analyticsEventsPath, ByteBuffer(string: "{\"device_id\": \"d\", \"events\": []}"), .badRequest, "events"),
            (
                BackendAPI.analyticsEventsPath, ByteBuffer(string: "{\"device_id\": \"d\", \"events\": [{\"id\": \"\"}]}"), .badRequest,
                "events[0].id"
            ),
            (BackendAPI.analyticsEventsPath, ByteBuffer(string: "{\"device_id\": \"d\", \"events\": [[[[[1]]]]]}"), .badRequest, nil),
            (
                BackendAPI.analyticsEventsPath, ByteBuffer(string: "{\"device_id\": \"" + String(repeating: "x", count: 2 << 20) + "\"}"),
                .contentTooLarge, nil
            ),
        ]
        try await Self.application(store).test(.router) { client in
            for (path, body, status, field) in cases {
                try await client.execute(uri: path, method: .post, headers: .json, body: body) { response in
                    #expect(response.status == status, "\(path) \(field ?? "")")
                    let error = try #require(try Self.json(response.body)["error"] as? [String: Any])
                    #expect(error["field"] as? String == field)
                }
            }
            try await client.execute(uri: BackendAPI.registerDevicePath, method: .post, body: try Self.body(Self.registration)) {
                response in
                #expect(response.status == .unsupportedMediaType)
            }
            try await client.execute(uri: BackendAPI.analyticsEventsPath + "?limit=0", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
        #expect(try await store.deviceCount() == 0)
        try await store.close()
    }

    @Test func anAPIKeyGuardsTheBackendRoutes() async throws {
        let store = try await TelemetryStoreKind.sqlite.make()
        try await Self.application(store, apiKey: "s3cret").test(.router) { client in
            try await client.execute(
                uri: BackendAPI.registerDevicePath, method: .post, headers: .json, body: try Self.body(Self.registration)
            ) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: BackendAPI.analyticsEventsPath, method: .get, headers: [.authorization: "Bearer wrong"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(
                uri: BackendAPI.registerDevicePath, method: .post,
                headers: [.authorization: "Bearer s3cret", .contentType: "application/json"], body: try Self.body(Self.registration)
            ) { #expect($0.status == .created) }
        }
        #expect(try await store.deviceCount() == 1)
        try await store.close()
    }
}
