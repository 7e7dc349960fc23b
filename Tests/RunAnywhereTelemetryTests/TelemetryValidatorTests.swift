import Foundation
import RunAnywhereBenchRunner
import RunAnywhereTelemetry
import RunAnywhereTestSupport
import Testing

@Suite struct TelemetryValidatorTests {
    @Test func aHarnessPayloadPasses() throws {
        let payload = TelemetryFixtures.payload(battery: 2.1)
        #expect(try TelemetryValidator.validate(payload.encoded()) == payload)
        // The seed's own example (iOS, with its placeholder run id) is a valid payload too.
        var seed = SeedTelemetry.example
        seed = seed.replacingOccurrences(of: "<UUID>", with: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        #expect(try TelemetryValidator.validate(Data(seed.utf8)).platform == "ios")
    }

    /// Each bad body is refused naming the field (or the body) at fault.
    @Test(
        arguments: [
            ("not json", nil, "not valid JSON"),
            ("[1, 2]", nil, "must be a JSON object"),
            ("{\"platform\": \"linux\"}", "metrics", "is required"),
            ("missing", "metrics.fps_avg", "is required"),
            ("extra", "metrics.gpu_temp", "is not a payload field"),
            ("text fps", "metrics.fps_avg", "must be a number"),
            ("fractional frames", "metrics.frames_processed", "whole number"),
            ("null model", "metrics.model_id", "must not be null"),
            ("huge frames", "metrics.frames_processed", nil),
            ("huge fps", "metrics.fps_avg", nil),
            ("negative fps", "metrics.fps_min", "from 0"),
            ("inverted fps", "metrics.fps_avg", "between fps_min and fps_max"),
            ("inverted latency", "metrics.latency_p95_ms", "below latency_p50_ms"),
            ("bad platform", "platform", "must be one of"),
            ("bad thermal", "metrics.thermal_state", "must be one of"),
            ("bad time", "metrics.timestamp", "ISO 8601"),
            ("future time", "metrics.timestamp", "ISO 8601"),
            ("sql run id", "metrics.run_id", "letters, digits"),
            ("sql model", "metrics.model_id", "quotes"),
            ("control characters", "metrics.device_model", "control"),
            ("long device", "metrics.device_model", "1 to 200"),
            ("battery", "metrics.battery_drop_pct_15m", "from -100"),
        ] as [(String, String?, String?)])
    func badBodiesNameTheField(_ name: String, _ field: String?, _ reason: String?) throws {
        let body: Data
        switch name {
        case "not json", "[1, 2]": body = Data((name == "not json" ? "{\"platform\": " : name).utf8)
        case "{\"platform\": \"linux\"}": body = Data(name.utf8)
        default:
            body = try TelemetryFixtures.json { top, metrics in
                switch name {
                case "missing": metrics["fps_avg"] = nil
                case "extra": metrics["gpu_temp"] = 71
                case "text fps": metrics["fps_avg"] = "fast"
                case "fractional frames": metrics["frames_processed"] = 12.5
                case "null model": metrics["model_id"] = NSNull()
                case "huge frames": metrics["frames_processed"] = 1e30
                case "huge fps": metrics["fps_avg"] = 1e300
                case "negative fps": metrics["fps_min"] = -1
                case "inverted fps": metrics["fps_avg"] = 10_000
                case "inverted latency": metrics["latency_p95_ms"] = 1
                case "bad platform": top["platform"] = "amiga"
                case "bad thermal": metrics["thermal_state"] = "toasty"
                case "bad time": metrics["timestamp"] = "yesterday"
                case "future time": metrics["timestamp"] = "2999-01-01T00:00:00Z"
                case "sql run id": metrics["run_id"] = "1'; DROP TABLE runs; --"
                case "sql model": metrics["model_id"] = "x'); DELETE FROM runs; --"
                case "control characters": metrics["device_model"] = "Pixel\u{0}\u{7}"
                case "long device": metrics["device_model"] = String(repeating: "A", count: 201)
                case "battery": metrics["battery_drop_pct_15m"] = 250
                default: Issue.record("unknown case \(name)")
                }
            }
        }
        #expect {
            try TelemetryValidator.validate(body)
        } throws: { error in
            guard let error = error as? TelemetryValidationError else { return false }
            return error.field == field && (reason.map { error.reason.contains($0) } ?? true) && !error.tooLarge
        }
    }

    @Test func oversizedAndDeeplyNestedBodiesAreRefusedBeforeParsing() throws {
        let big = Data(repeating: UInt8(ascii: " "), count: TelemetryValidator.maxBodyBytes + 1)
        #expect(
            throws: TelemetryValidationError(
                nil, "the body is \(big.count) bytes; a payload may have at most \(TelemetryValidator.maxBodyBytes)", tooLarge: true)
        ) {
            try TelemetryValidator.validate(big)
        }
        let deep = Data(
            ("{\"platform\": \"linux\", \"metrics\": {\"model_id\": " + String(repeating: "[", count: 5000)
                + String(repeating: "]", count: 5000) + "}}").utf8)
        #expect(throws: TelemetryValidationError.self) { try TelemetryValidator.validate(deep) }
        // Brackets inside strings do not count.
        let payload = TelemetryFixtures.payload(device: "Board [rev {2}]")
        #expect(try TelemetryValidator.validate(payload.encoded()).metrics.deviceModel == "Board [rev {2}]")
    }
}
