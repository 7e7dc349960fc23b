import Foundation
import RunAnywhereBenchRunner
import Testing

@Suite struct TelemetryPayloadTests {
    /// The seed's example payload (BenchRunner's README), as the iOS harness sends it.
    static let seedExample = """
        {
          "platform": "ios",
          "metrics": {
            "model_id": "GradientIdentity",
            "run_id": "<UUID>",
            "timestamp": "2024-10-02T20:30:00Z",
            "frames_processed": 1800,
            "warmup_frames": 45,
            "fps_avg": 29.8,
            "fps_min": 28.1,
            "fps_max": 31.4,
            "latency_p50_ms": 34.2,
            "latency_p95_ms": 38.5,
            "cold_start_ms": 215.7,
            "model_file_mb": 0.00,
            "battery_drop_pct_15m": 2.1,
            "thermal_state": "fair",
            "device_model": "iPhone15,3",
            "os_version": "17.0",
            "backend": "coreml",
            "telemetry_post_url": "http://localhost:8000/telemetry"
          }
        }
        """

    static func metrics(battery: Double?) -> TelemetryPayload.Metrics {
        .init(
            modelID: "GradientIdentity", runID: UUID().uuidString, timestamp: "2026-11-24T03:00:00Z", framesProcessed: 1800, warmupFrames: 45,
            fpsAvg: 29.8, fpsMin: 28.1, fpsMax: 31.4, latencyP50Ms: 34.2, latencyP95Ms: 38.5, coldStartMs: 215.7, modelFileMB: 0,
            batteryDropPct15m: battery, thermalState: "unknown", deviceModel: "QEMU Standard PC", osVersion: "Debian GNU/Linux 12 (bookworm)",
            backend: "onnxruntime", telemetryPostURL: "http://localhost:8000/telemetry"
        )
    }

    private func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theKeysAreTheSeedsOneByOne() throws {
        let seed = try object(Data(Self.seedExample.utf8))
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
        let metrics = try #require(try object(try TelemetryPayload(metrics: Self.metrics(battery: nil)).encoded())["metrics"] as? [String: Any])
        #expect(metrics["battery_drop_pct_15m"] == nil)
        #expect(metrics.count == 17)
    }

    @Test func thePayloadDecodesBackToItself() throws {
        let payload = TelemetryPayload(metrics: Self.metrics(battery: 1.25))
        #expect(try JSONDecoder().decode(TelemetryPayload.self, from: payload.encoded(pretty: true)) == payload)
    }
}
