import Foundation

/// The JSON body BenchRunner POSTs after each run, with the keys and nesting of the Android and
/// iOS harnesses: `{"platform": …, "metrics": {…}}`.
package struct TelemetryPayload: Codable, Sendable, Equatable {
    /// "linux" here ("ios" and "android" from the other harnesses).
    package var platform: String
    /// The run's measurements.
    package var metrics: Metrics

    /// A payload of `metrics` from `platform`.
    package init(platform: String = "linux", metrics: Metrics) {
        self.platform = platform
        self.metrics = metrics
    }

    /// One run's measurements.
    package struct Metrics: Codable, Sendable, Equatable {
        /// The model that ran ("GradientIdentity" by default).
        package var modelID: String
        /// A new UUID per run: the collector stores a run once, however often it is sent.
        package var runID: String
        /// When the run finished, ISO 8601 in UTC ("2024-10-02T20:30:00Z").
        package var timestamp: String
        /// Frames processed in the measured loop.
        package var framesProcessed: Int
        /// Frames run before measuring.
        package var warmupFrames: Int
        /// Frames per second: over the loop, and its slowest and fastest whole second.
        package var fpsAvg: Double
        package var fpsMin: Double
        package var fpsMax: Double
        /// Latency of a frame in milliseconds: median and 95th percentile.
        package var latencyP50Ms: Double
        package var latencyP95Ms: Double
        /// From the process's start to the model materialized, loaded and its first frame done.
        package var coldStartMs: Double
        /// The size of the model's files in MB (10⁶ bytes).
        package var modelFileMB: Double
        /// The battery's drop over the extended pass, scaled to 15 minutes; absent without an
        /// extended pass or a battery.
        package var batteryDropPct15m: Double?
        /// "nominal", "fair", "serious", "critical" or "unknown".
        package var thermalState: String
        /// The machine's model (DMI).
        package var deviceModel: String
        /// The operating system and its version.
        package var osVersion: String
        /// The engine that ran the frames ("onnxruntime", "llama.cpp", "whisper.cpp").
        package var backend: String
        /// Where this payload was sent.
        package var telemetryPostURL: String

        /// Every field, in the payload's order.
        package init(
            modelID: String, runID: String, timestamp: String, framesProcessed: Int, warmupFrames: Int, fpsAvg: Double, fpsMin: Double,
            fpsMax: Double, latencyP50Ms: Double, latencyP95Ms: Double, coldStartMs: Double, modelFileMB: Double,
            batteryDropPct15m: Double?, thermalState: String, deviceModel: String, osVersion: String, backend: String,
            telemetryPostURL: String
        ) {
            self.modelID = modelID
            self.runID = runID
            self.timestamp = timestamp
            self.framesProcessed = framesProcessed
            self.warmupFrames = warmupFrames
            self.fpsAvg = fpsAvg
            self.fpsMin = fpsMin
            self.fpsMax = fpsMax
            self.latencyP50Ms = latencyP50Ms
            self.latencyP95Ms = latencyP95Ms
            self.coldStartMs = coldStartMs
            self.modelFileMB = modelFileMB
            self.batteryDropPct15m = batteryDropPct15m
            self.thermalState = thermalState
            self.deviceModel = deviceModel
            self.osVersion = osVersion
            self.backend = backend
            self.telemetryPostURL = telemetryPostURL
        }

        enum CodingKeys: String, CodingKey {
            case modelID = "model_id", runID = "run_id", timestamp, framesProcessed = "frames_processed", warmupFrames = "warmup_frames"
            case fpsAvg = "fps_avg", fpsMin = "fps_min", fpsMax = "fps_max", latencyP50Ms = "latency_p50_ms", latencyP95Ms =
                "latency_p95_ms"
            case coldStartMs = "cold_start_ms", modelFileMB = "model_file_mb", batteryDropPct15m = "battery_drop_pct_15m"
            case thermalState = "thermal_state", deviceModel = "device_model", osVersion = "os_version", backend
            case telemetryPostURL = "telemetry_post_url"
        }
    }

    /// The payload as JSON: keys in a stable (sorted) order, numbers as written.
    package func encoded(pretty: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
