import Foundation
import RunAnywhereBenchRunner

/// Checks a POSTed body against the payload's schema before anything is stored: its size and
/// nesting, JSON syntax, exactly the known keys, each value's type and a plausible range. The
/// first problem found is thrown, naming its field.
package enum TelemetryValidator {
    /// The largest body accepted (a payload is about 700 bytes).
    package static let maxBodyBytes = 16 * 1024
    /// The platforms the harnesses report.
    package static let platforms: Set<String> = ["linux", "android", "ios", "macos", "windows"]
    /// The seed's thermal states.
    package static let thermalStates: Set<String> = ["nominal", "fair", "serious", "critical", "unknown"]
    /// Each metric's JSON type.
    private enum Kind {
        case text, whole, number
    }

    private static let metricKinds: [String: Kind] = [
        "model_id": .text, "run_id": .text, "timestamp": .text, "frames_processed": .whole, "warmup_frames": .whole, "fps_avg": .number,
        "fps_min": .number, "fps_max": .number, "latency_p50_ms": .number, "latency_p95_ms": .number, "cold_start_ms": .number,
        "model_file_mb": .number, "battery_drop_pct_15m": .number, "thermal_state": .text, "device_model": .text, "os_version": .text,
        "backend": .text, "telemetry_post_url": .text,
    ]
    private static let metricKeys = Set(metricKinds.keys)

    /// The payload in `body`, or the first reason it cannot be stored.
    package static func validate(_ body: Data) throws(TelemetryValidationError) -> TelemetryPayload {
        guard body.count <= maxBodyBytes else {
            throw TelemetryValidationError(
                nil, "the body is \(body.count) bytes; a payload may have at most \(maxBodyBytes)", tooLarge: true)
        }
        try checkNesting(body)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: body)
        } catch {
            throw TelemetryValidationError(nil, "the body is not valid JSON")
        }
        guard let top = object as? [String: Any] else { throw TelemetryValidationError(nil, "the body must be a JSON object") }
        try checkKeys(Set(top.keys), known: ["platform", "metrics"], required: ["platform", "metrics"], prefix: "")
        guard let metrics = top["metrics"] as? [String: Any] else { throw TelemetryValidationError("metrics", "must be an object") }
        try checkKeys(Set(metrics.keys), known: metricKeys, required: metricKeys.subtracting(["battery_drop_pct_15m"]), prefix: "metrics.")
        try checkKind(top["platform"], .text, "platform")
        for (key, value) in metrics.sorted(by: { $0.key < $1.key }) { try checkKind(value, metricKinds[key] ?? .text, "metrics." + key) }
        let payload: TelemetryPayload
        do {
            payload = try JSONDecoder().decode(TelemetryPayload.self, from: body)
        } catch let error as DecodingError {
            throw typeError(error)
        } catch {
            throw TelemetryValidationError(nil, "the body cannot be read: \(error)")
        }
        try checkValues(payload)
        return payload
    }

    /// An ISO 8601 time with or without fractional seconds.
    package static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle().parse(text)) ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
    }

    /// Refuses bodies nested deeper than a payload ever is before a parser recurses into them.
    static func checkNesting(_ body: Data) throws(TelemetryValidationError) {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in body {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > 4 { throw TelemetryValidationError(nil, "the body is nested deeper than a payload (at most 4 levels)") }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
    }

    private static func checkKeys(_ keys: Set<String>, known: Set<String>, required: Set<String>, prefix: String)
        throws(TelemetryValidationError)
    {
        if let unknown = keys.subtracting(known).sorted().first {
            throw TelemetryValidationError(prefix + unknown, "is not a payload field")
        }
        if let missing = required.subtracting(keys).sorted().first { throw TelemetryValidationError(prefix + missing, "is required") }
    }

    /// JSON's own types, checked on the parsed body (the decoder's errors do not name the field).
    private static func checkKind(_ value: Any?, _ kind: Kind, _ field: String) throws(TelemetryValidationError) {
        if value is NSNull { throw TelemetryValidationError(field, "must not be null") }
        if kind == .text {
            guard value is String else { throw TelemetryValidationError(field, "must be a string") }
            return
        }
        // A JSON true or false arrives as a number whose type is char.
        guard let number = value as? NSNumber, !(value is String), String(cString: number.objCType) != "c", number.doubleValue.isFinite
        else {
            throw TelemetryValidationError(field, kind == .whole ? "must be a whole number" : "must be a number")
        }
        if kind == .whole, number.doubleValue.rounded() != number.doubleValue || abs(number.doubleValue) > 9_007_199_254_740_992 {
            throw TelemetryValidationError(field, "must be a whole number")
        }
    }

    private static func typeError(_ error: DecodingError) -> TelemetryValidationError {
        func path(_ context: DecodingError.Context) -> String? {
            let keys = context.codingPath.map(\.stringValue)
            return keys.isEmpty ? nil : keys.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context):
            let kind = type == String.self ? "a string" : type == Int.self ? "a whole number" : type == Double.self ? "a number" : "\(type)"
            return TelemetryValidationError(path(context), "must be \(kind)")
        case .valueNotFound(_, let context): return TelemetryValidationError(path(context), "must not be null")
        case .keyNotFound(let key, let context):
            return TelemetryValidationError((path(context).map { $0 + "." } ?? "") + key.stringValue, "is required")
        case .dataCorrupted(let context):
            return TelemetryValidationError(path(context), "is not a value of its type (a number out of range?)")
        @unknown default: return TelemetryValidationError(nil, "the body cannot be read")
        }
    }

    private static func checkValues(_ payload: TelemetryPayload) throws(TelemetryValidationError) {
        let metrics = payload.metrics
        guard platforms.contains(payload.platform) else {
            throw TelemetryValidationError("platform", "must be one of \(platforms.sorted().joined(separator: ", "))")
        }
        try text(metrics.modelID, "model_id")
        try text(metrics.deviceModel, "device_model")
        try text(metrics.osVersion, "os_version")
        try text(metrics.backend, "backend")
        guard (1...100).contains(metrics.runID.count),
            metrics.runID.unicodeScalars.allSatisfy({
                CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-_.:".unicodeScalars.contains($0)
            })
        else {
            throw TelemetryValidationError("metrics.run_id", "must be 1 to 100 letters, digits, '-', '_', '.' or ':' (a UUID)")
        }
        guard let date = date(metrics.timestamp), date > Date(timeIntervalSince1970: 946_684_800), date < Date().addingTimeInterval(86_400)
        else {
            throw TelemetryValidationError("metrics.timestamp", "must be an ISO 8601 time between 2000 and tomorrow")
        }
        try range(Double(metrics.framesProcessed), "frames_processed", 0...1e9)
        try range(Double(metrics.warmupFrames), "warmup_frames", 0...1e7)
        for (value, name) in [(metrics.fpsAvg, "fps_avg"), (metrics.fpsMin, "fps_min"), (metrics.fpsMax, "fps_max")] {
            try range(value, name, 0...1e7)
        }
        // Rounded values may cross by a hair.
        guard metrics.fpsMin <= metrics.fpsAvg * 1.001 + 0.01, metrics.fpsAvg <= metrics.fpsMax * 1.001 + 0.01 else {
            throw TelemetryValidationError("metrics.fps_avg", "must lie between fps_min and fps_max")
        }
        try range(metrics.latencyP50Ms, "latency_p50_ms", 0...3.6e6)
        try range(metrics.latencyP95Ms, "latency_p95_ms", 0...3.6e6)
        guard metrics.latencyP50Ms <= metrics.latencyP95Ms * 1.001 + 0.001 else {
            throw TelemetryValidationError("metrics.latency_p95_ms", "must not be below latency_p50_ms")
        }
        try range(metrics.coldStartMs, "cold_start_ms", 0...3.6e6)
        try range(metrics.modelFileMB, "model_file_mb", 0...1e6)
        if let drop = metrics.batteryDropPct15m { try range(drop, "battery_drop_pct_15m", -100...100) }
        guard thermalStates.contains(metrics.thermalState) else {
            throw TelemetryValidationError("metrics.thermal_state", "must be one of \(thermalStates.sorted().joined(separator: ", "))")
        }
        guard metrics.telemetryPostURL.count <= 2048 else {
            throw TelemetryValidationError("metrics.telemetry_post_url", "is longer than 2048 characters")
        }
    }

    /// Names of things: plain text, without control characters nor the quotes and brackets
    /// that only an attack on a database or a web page would put in a device or model name.
    private static func text(_ value: String, _ name: String) throws(TelemetryValidationError) {
        let forbidden = Set("'\";\\`<>".unicodeScalars)
        guard (1...200).contains(value.count),
            !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || forbidden.contains($0) })
        else {
            throw TelemetryValidationError(
                "metrics.\(name)", "must be 1 to 200 characters without control characters, quotes, ';', '\\', '<' or '>'")
        }
    }

    private static func range(_ value: Double, _ name: String, _ bounds: ClosedRange<Double>) throws(TelemetryValidationError) {
        guard value.isFinite, bounds.contains(value) else {
            throw TelemetryValidationError(
                "metrics.\(name)", "must be a number from \(bounds.lowerBound.formatted()) to \(bounds.upperBound.formatted())")
        }
    }
}
