import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RunAnywhere
import RunAnywhereBenchRunner
import RunAnywhereTelemetry
import RunAnywhereTestSupport
import Testing

/// The collector's HTTP API over both stores: in process for the answers, and on a real
/// loopback port for concurrent senders.
@Suite(.inProcessLane, .serialized, .enabled(if: TestPostgres.isInstalled, "scripts/setup --tests installs PostgreSQL"), .postgresCluster)
struct TelemetryCollectorTests {
    private static func application(_ store: any TelemetryStore, apiKey: String? = nil) -> some ApplicationProtocol {
        Application(router: TelemetryCollector(store: store, port: 0, apiKey: apiKey, logger: Logger(label: "collector")).router())
    }

    private static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    @Test(arguments: TelemetryStoreKind.allCases)
    func aPayloadIsStoredOnceAndServedBack(_ kind: TelemetryStoreKind) async throws {
        let store = try await kind.make()
        let payload = TelemetryFixtures.payload()
        try await Self.application(store).test(.router) { client in
            for expected in [HTTPResponse.Status.created, .ok] {
                try await client.execute(uri: "/telemetry", method: .post, headers: .json, body: ByteBuffer(data: try payload.encoded())) {
                    response in
                    #expect(response.status == expected)
                    let body = try Self.json(response.body)
                    #expect(
                        body["status"] as? String == (expected == .created ? "stored" : "duplicate")
                            && body["run_id"] as? String == payload.metrics.runID)
                }
            }
            try await client.execute(uri: "/telemetry/runs?model_id=GradientIdentity", method: .get) { response in
                let body = try Self.json(response.body)
                #expect(body["total"] as? Int == 1)
                let run = try #require((body["runs"] as? [[String: Any]])?.first)
                #expect((run["metrics"] as? [String: Any])?["run_id"] as? String == payload.metrics.runID && run["received_at"] is String)
            }
            // A form-encoded filter, as browsers and Python write one: "+" a space, "%2B" a plus.
            try await client.execute(uri: "/telemetry/runs?device_model=QEMU+Standard+PC+(i440FX+%2B+PIIX,+1996)", method: .get) {
                response in
                let body = try Self.json(response.body)
                #expect(body["total"] as? Int == 1)
            }
            try await client.execute(uri: "/telemetry/summary", method: .get) { response in
                let body = try Self.json(response.body)
                let group = try #require((body["groups"] as? [[String: Any]])?.first)
                #expect(group["runs"] as? Int == 1 && group["fps_median"] as? Double == payload.metrics.fpsAvg)
            }
            try await client.execute(uri: "/telemetry/export?format=csv", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(response.headers[.contentType] == "text/csv; charset=utf-8")
                #expect(text.hasPrefix(TelemetryExport.csvHeader.joined(separator: ",") + "\r\n"))
                // The device model holds a comma, so it is quoted.
                #expect(text.contains("\"QEMU Standard PC (i440FX + PIIX, 1996)\""))
            }
            try await client.execute(uri: "/health", method: .get) { response in
                let health = try Self.json(response.body)
                #expect(health["store"] as? String == store.kind)
            }
        }
        try await store.close()
    }

    /// Malformed, oversized and hostile bodies: a 4xx naming the problem, and nothing stored.
    @Test(arguments: TelemetryStoreKind.allCases)
    func badBodiesAreRefusedAndNothingIsStored(_ kind: TelemetryStoreKind) async throws {
        let store = try await kind.make()
        let bodies: [(Data, HTTPResponse.Status, String?)] = [
            (Data("{\"platform\": \"linux\", \"metrics\": ".utf8), .badRequest, nil),
            (
                try TelemetryFixtures.json { _, metrics in metrics["model_id"] = "a'); DROP TABLE runs; --" }, .badRequest,
                "metrics.model_id"
            ),
            (try TelemetryFixtures.json { _, metrics in metrics["run_id"] = "x' OR '1'='1" }, .badRequest, "metrics.run_id"),
            (try TelemetryFixtures.json { _, metrics in metrics["frames_processed"] = 1e300 }, .badRequest, "metrics.frames_processed"),
            (
                Data(
                    ("{\"platform\": \"linux\", \"metrics\": " + String(repeating: "[", count: 100_000)
                        + String(repeating: "]", count: 100_000) + "}").utf8),
                .contentTooLarge, nil
            ),
            (
                Data(
                    ("{\"platform\": \"linux\", \"metrics\": {\"model_id\": " + String(repeating: "{\"a\":", count: 2000) + "1"
                        + String(repeating: "}", count: 2000) + "}}").utf8),
                .badRequest, nil
            ),
            (
                try TelemetryFixtures.json { _, metrics in metrics["device_model"] = String(repeating: "x", count: 20_000) },
                .contentTooLarge, nil
            ),
        ]
        try await Self.application(store).test(.router) { client in
            for (body, status, field) in bodies {
                try await client.execute(uri: "/telemetry", method: .post, headers: .json, body: ByteBuffer(data: body)) { response in
                    #expect(response.status == status)
                    let error = try #require(try Self.json(response.body)["error"] as? [String: Any])
                    #expect(error["field"] as? String == field)
                    #expect((error["message"] as? String ?? "").isEmpty == false)
                }
            }
            try await client.execute(uri: "/telemetry/runs?limit=0", method: .get) { response in
                #expect(response.status == .badRequest)
                let error = try Self.json(response.body)["error"] as? [String: Any]
                #expect(error?["field"] as? String == "limit")
            }
        }
        #expect(try await store.count(TelemetryQuery()) == 0)
        try await store.close()
    }

    @Test func anAPIKeyGuardsEveryTelemetryRoute() async throws {
        let store = try await TelemetryStoreKind.sqlite.make()
        let body = ByteBuffer(data: try TelemetryFixtures.payload().encoded())
        try await Self.application(store, apiKey: "s3cret").test(.router) { client in
            try await client.execute(uri: "/telemetry", method: .post, headers: .json, body: body) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/telemetry/runs", method: .get, headers: [.authorization: "Bearer wrong"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(
                uri: "/telemetry", method: .post, headers: [.authorization: "Bearer s3cret", .contentType: "application/json"], body: body
            ) { #expect($0.status == .created) }
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .ok) }
        }
        #expect(throws: SDKError.self) { try TelemetryCollector.validate(host: "0.0.0.0", port: 8000, apiKey: nil) }
        try TelemetryCollector.validate(host: "0.0.0.0", port: 8000, apiKey: "s3cret")
        try await store.close()
    }

    /// 2000 payloads from 16 concurrent senders over real HTTP, every tenth sent twice (a retry):
    /// each run is stored exactly once.
    @Test(arguments: TelemetryStoreKind.allCases)
    func twoThousandPayloadsFromSixteenSenders(_ kind: TelemetryStoreKind) async throws {
        let store = try await kind.make()
        let payloads = (0..<2000).map { TelemetryFixtures.payload(fps: Double(50 + $0 % 7), minutesAgo: Double($0 % 60)) }
        try await Self.application(store).test(.live) { client in
            let url = "http://127.0.0.1:\(client.port ?? 0)/telemetry"
            let statuses = try await withThrowingTaskGroup(of: [UInt].self) { group in
                for sender in 0..<16 {
                    group.addTask {
                        var statuses: [UInt] = []
                        for index in stride(from: sender, to: payloads.count, by: 16) {
                            for _ in 0..<(index % 10 == 0 ? 2 : 1) {
                                var request = HTTPClientRequest(url: url)
                                request.method = .POST
                                request.headers.add(name: "content-type", value: "application/json")
                                request.body = .bytes(ByteBuffer(data: try payloads[index].encoded()))
                                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                                _ = try await response.body.collect(upTo: 4096)
                                statuses.append(response.status.code)
                            }
                        }
                        return statuses
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(statuses.filter { $0 == 201 }.count == 2000)
            #expect(statuses.filter { $0 == 200 }.count == 200)
        }
        #expect(try await store.count(TelemetryQuery()) == 2000)
        let stored = Set(try await store.runs(TelemetryQuery(limit: 1000)).map(\.payload.metrics.runID))
            .union(try await store.runs(TelemetryQuery(limit: 1000, offset: 1000)).map(\.payload.metrics.runID))
        #expect(stored == Set(payloads.map(\.metrics.runID)))
        try await store.close()
    }
}
