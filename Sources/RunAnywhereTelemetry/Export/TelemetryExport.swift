import CSV
import Foundation

/// Stored runs as CSV (one row per run: `platform`, the payload's metric keys, `received_at`)
/// or as a JSON array of records.
package enum TelemetryExport {
    /// The CSV header.
    package static let csvHeader = [
        "platform", "model_id", "run_id", "timestamp", "frames_processed", "warmup_frames", "fps_avg", "fps_min", "fps_max",
        "latency_p50_ms",
        "latency_p95_ms", "cold_start_ms", "model_file_mb", "battery_drop_pct_15m", "thermal_state", "device_model", "os_version",
        "backend",
        "telemetry_post_url", "received_at",
    ]

    /// `records` as CSV, CRLF line ends (RFC 4180), written by CSV.swift.
    package static func csv(_ records: [TelemetryRecord]) throws -> Data {
        let stream = OutputStream.toMemory()
        stream.open()
        let writer = try CSVWriter(stream: stream, newline: .crlf)
        try writer.write(row: csvHeader)
        for record in records {
            let m = record.payload.metrics
            writer.beginNewRow()
            try writer.write(row: [
                record.payload.platform, m.modelID, m.runID, m.timestamp, String(m.framesProcessed), String(m.warmupFrames),
                number(m.fpsAvg),
                number(m.fpsMin), number(m.fpsMax), number(m.latencyP50Ms), number(m.latencyP95Ms), number(m.coldStartMs),
                number(m.modelFileMB),
                m.batteryDropPct15m.map(number) ?? "", m.thermalState, m.deviceModel, m.osVersion, m.backend, m.telemetryPostURL,
                record.receivedAt.formatted(.iso8601),
            ])
        }
        stream.close()
        var data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
        data.append(contentsOf: Array("\r\n".utf8))
        return data
    }

    /// `records` as a JSON array, each the payload with `received_at`.
    package static func json(_ records: [TelemetryRecord]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(records)
    }

    /// A number as JSON would print it (no exponent for ordinary values).
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
