import Foundation
import RunAnywhereBenchRunner

/// Payloads for the collector's tests.
enum TelemetryFixtures {
    /// A valid payload; `run` varies its id, `fps` its rate, `minutesAgo` its timestamp.
    static func payload(
        run: String = UUID().uuidString, model: String = "GradientIdentity", device: String = "QEMU Standard PC (i440FX + PIIX, 1996)",
        backend: String = "onnxruntime", fps: Double = 100, p95: Double = 12, minutesAgo: Double = 1, battery: Double? = nil
    ) -> TelemetryPayload {
        TelemetryPayload(
            metrics: .init(
                modelID: model, runID: run, timestamp: Date().addingTimeInterval(-minutesAgo * 60).formatted(.iso8601),
                framesProcessed: 6000,
                warmupFrames: 45, fpsAvg: fps, fpsMin: fps * 0.9, fpsMax: fps * 1.1, latencyP50Ms: p95 * 0.8, latencyP95Ms: p95,
                coldStartMs: 215.7,
                modelFileMB: 0, batteryDropPct15m: battery, thermalState: "nominal", deviceModel: device,
                osVersion: "Debian GNU/Linux 12 (bookworm)",
                backend: backend, telemetryPostURL: "http://localhost:8000/telemetry"
            ))
    }

    /// `payload` as JSON text, with `edit` applied to its parsed form first.
    static func json(_ payload: TelemetryPayload = payload(), edit: (inout [String: Any], inout [String: Any]) -> Void = { _, _ in }) throws
        -> Data
    {
        var top = try JSONSerialization.jsonObject(with: payload.encoded()) as! [String: Any]
        var metrics = top["metrics"] as! [String: Any]
        edit(&top, &metrics)
        top["metrics"] = metrics
        return try JSONSerialization.data(withJSONObject: top)
    }
}
