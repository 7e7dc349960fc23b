import Foundation
import RunAnywhereBenchRunner
import RunAnywhereTestSupport
import Testing

@Suite struct TelemetryPayloadTests {
    static func metrics(battery: Double?) -> TelemetryPayload.Metrics {
        .init(
            modelID: "GradientIdentity", runID: UUID().uuidString, timestamp: "2026-11-24T03:00:00Z", framesProcessed: 1800,
            warmupFrames: 45,
            fpsAvg: 29.8, fpsMin: 28.1, fpsMax: 31.4, latencyP50Ms: 34.2, latencyP95Ms: 38.5, coldStartMs: 215.7, modelFileMB: 0,
            batteryDropPct15m: battery, thermalState: "unknown", deviceModel: "QEMU Standard PC",
            osVersion: "Debian GNU/Linux 12 (bookworm)",
            backend: "onnxruntime", telemetryPostURL: "http://localhost:8000/telemetry"
        )
    }

    private func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theKeysAreTheSeedsOneByOne() throws {
        let seed = try object(Data(SeedTelemetry.example.utf8))
        let ours = try object(try TelemetryPayload(metrics: Self.metrics(battery: 2.1)).encoded())
        #expect(Set(ours.keys) == Set(seed.keys))
        #expect(ours["platform"] as? String == "linux")
        let seedMetrics = try #require(seed["metrics"] as? [String: Any])
        let ourMetrics = try #require(ours["metrics"] as? [String: Any])
        for key in seedMetrics.keys.sorted() {
            #expect(ourMetrics[key] != nil, "missing \(key)")
            // Same JSON type: strings stay strings, numbers numbers.
            #expect((ourMetrics[key] is String) == (seedMetrics[key] is String), "\(key) changed type")
        }
        #expect(Set(ourMetrics.keys) == Set(seedMetrics.keys))
    }

    @Test func theBatteryDropIsAbsentWithoutAnExtendedPass() throws {
        let metrics = try #require(
            try object(try TelemetryPayload(metrics: Self.metrics(battery: nil)).encoded())["metrics"] as? [String: Any])
        #expect(metrics["battery_drop_pct_15m"] == nil)
        #expect(metrics.count == 17)
    }

    @Test func thePayloadDecodesBackToItself() throws {
        let payload = TelemetryPayload(metrics: Self.metrics(battery: 1.25))
        #expect(try JSONDecoder().decode(TelemetryPayload.self, from: payload.encoded(pretty: true)) == payload)
    }
}
