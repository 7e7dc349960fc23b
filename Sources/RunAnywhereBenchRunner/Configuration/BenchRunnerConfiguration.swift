import Foundation
import RunAnywhere

/// BenchRunner's settings, with the seed harness's names and defaults: read from `BENCH_*`
/// environment variables (``init(environment:)``), which command-line flags then override.
package struct BenchRunnerConfiguration: Sendable, Equatable {
    /// Frames run before measuring (`BENCH_WARMUP_FRAMES`, 45).
    package var warmupFrames: Int
    /// Length of the measured loop in seconds (`BENCH_MEASURE_SECONDS`, 60).
    package var measureSeconds: Double
    /// Length of the extended pass in minutes, nil for none (`BENCH_EXTENDED_MINUTES`, or 15 with
    /// `BENCH_ENABLE_EXTENDED=1`).
    package var extendedMinutes: Double?
    /// Frames generated for each loop iteration (`BENCH_FRAME_COUNT`, 150).
    package var frameCount: Int
    /// Where the payload is POSTed (`BENCH_TELEMETRY_URL`).
    package var telemetryURL: String
    /// Whether to try the TensorFlow Lite (LiteRT) backend first (`BENCH_USE_TFLITE=1`).
    package var useTFLite: Bool
    /// The key a collector beyond loopback asks for, sent as `Authorization: Bearer KEY`
    /// (`BENCH_TELEMETRY_API_KEY`; read from the environment only, never from a flag).
    package var telemetryAPIKey: String?
    /// Notes about values read from the environment (a replaced value), for the log.
    package var notes: [String] = []

    /// The extended pass's length when it is enabled without a usable number of minutes.
    package static let defaultExtendedMinutes = 15.0
    /// The default telemetry endpoint, shared with the Android and iOS harnesses.
    package static let defaultTelemetryURL = "http://localhost:8000/telemetry"
    /// The most frames a loop iteration may generate (each identity frame holds 224×224×3 floats).
    package static let maxFrameCount = 1_000

    /// The seed's defaults: 45 warm-up frames, 60 s measured, no extended pass, 150 frames.
    package init(
        warmupFrames: Int = 45, measureSeconds: Double = 60, extendedMinutes: Double? = nil, frameCount: Int = 150,
        telemetryURL: String = BenchRunnerConfiguration.defaultTelemetryURL, useTFLite: Bool = false
    ) {
        self.warmupFrames = warmupFrames
        self.measureSeconds = measureSeconds
        self.extendedMinutes = extendedMinutes
        self.frameCount = frameCount
        self.telemetryURL = telemetryURL
        self.useTFLite = useTFLite
    }

    /// The defaults overridden by the `BENCH_*` variables in `environment`; a variable that is
    /// set but not a valid value is an error naming it (except `BENCH_EXTENDED_MINUTES`, which,
    /// as in the seed, means the 15-minute pass when it holds no positive number).
    package init(environment: [String: String]) throws {
        self.init()
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        if let text = value("BENCH_WARMUP_FRAMES") { warmupFrames = try Self.integer(text, name: "BENCH_WARMUP_FRAMES") }
        if let text = value("BENCH_MEASURE_SECONDS") { measureSeconds = try Self.number(text, name: "BENCH_MEASURE_SECONDS") }
        if let text = value("BENCH_FRAME_COUNT") { frameCount = try Self.integer(text, name: "BENCH_FRAME_COUNT") }
        if let text = value("BENCH_TELEMETRY_URL") { telemetryURL = text }
        if let text = value("BENCH_USE_TFLITE") { useTFLite = Self.isOn(text) }
        telemetryAPIKey = value("BENCH_TELEMETRY_API_KEY")
        if let text = value("BENCH_ENABLE_EXTENDED"), Self.isOn(text) { extendedMinutes = Self.defaultExtendedMinutes }
        if let text = value("BENCH_EXTENDED_MINUTES") {
            if let minutes = Double(text), minutes.isFinite, minutes > 0 {
                extendedMinutes = minutes
            } else {
                extendedMinutes = Self.defaultExtendedMinutes
                notes.append("BENCH_EXTENDED_MINUTES=\(text) is not a positive number of minutes; the extended pass runs 15 minutes")
            }
        }
        try validate()
    }

    /// Checks every value's range, naming the setting that is out of it.
    package func validate() throws {
        guard (0...100_000).contains(warmupFrames) else {
            throw SDKError(.invalidInput, "The warm-up frame count must be between 0 and 100000, not \(warmupFrames)")
        }
        guard measureSeconds.isFinite, measureSeconds > 0, measureSeconds <= 86_400 else {
            throw SDKError(.invalidInput, "The measured loop must last more than 0 and at most 86400 seconds, not \(measureSeconds)")
        }
        if let extendedMinutes, !(extendedMinutes.isFinite && extendedMinutes > 0 && extendedMinutes <= 1_440) {
            throw SDKError(.invalidInput, "The extended pass must last more than 0 and at most 1440 minutes, not \(extendedMinutes)")
        }
        guard (1...Self.maxFrameCount).contains(frameCount) else {
            throw SDKError(.invalidInput, "The frame count must be between 1 and \(Self.maxFrameCount), not \(frameCount)")
        }
        guard let url = URL(string: telemetryURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false
        else {
            throw SDKError(.invalidInput, "The telemetry URL must be an http or https URL, not '\(telemetryURL)'")
        }
    }

    private static func isOn(_ text: String) -> Bool {
        ["1", "true", "yes", "on"].contains(text.lowercased())
    }

    private static func integer(_ text: String, name: String) throws -> Int {
        guard let value = Int(text) else { throw SDKError(.invalidInput, "\(name)=\(text) is not a whole number") }
        return value
    }

    private static func number(_ text: String, name: String) throws -> Double {
        guard let value = Double(text), value.isFinite else { throw SDKError(.invalidInput, "\(name)=\(text) is not a number") }
        return value
    }
}
