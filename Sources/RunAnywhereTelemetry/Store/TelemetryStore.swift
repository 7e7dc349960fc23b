import Foundation
import RunAnywhere
import RunAnywhereBenchRunner

/// Which runs to read: equal to every filter given, newest run first.
package struct TelemetryQuery: Sendable, Equatable {
    /// Only runs of this model, device model, backend or platform.
    package var modelID: String?
    package var deviceModel: String?
    package var backend: String?
    package var platform: String?
    /// At most this many runs, after skipping `offset`.
    package var limit: Int
    package var offset: Int

    /// A query for the newest `limit` runs after `offset`, with the given filters.
    package init(
        modelID: String? = nil, deviceModel: String? = nil, backend: String? = nil, platform: String? = nil, limit: Int = 100,
        offset: Int = 0
    ) {
        self.modelID = modelID
        self.deviceModel = deviceModel
        self.backend = backend
        self.platform = platform
        self.limit = limit
        self.offset = offset
    }

    /// The filters as column names and values, in a fixed order.
    var filters: [(column: String, value: String)] {
        [("model_id", modelID), ("device_model", deviceModel), ("backend", backend), ("platform", platform)]
            .compactMap { column, value in value.map { (column, $0) } }
    }
}

/// Where the collector keeps BenchRunner's runs, and the devices and analytics events the SDK
/// sends in staging and production: SQLite (``SQLiteTelemetryStore``) or PostgreSQL
/// (``PostgresTelemetryStore``), with the same schema and behaviour. A stored run survives the
/// process being killed once ``insert(_:receivedAt:)`` has returned.
package protocol TelemetryStore: Sendable {
    /// "sqlite" or "postgresql".
    var kind: String { get }
    /// Stores `payload` unless a run with its `run_id` is stored already; true when it was new.
    func insert(_ payload: TelemetryPayload, receivedAt: Date) async throws -> Bool
    /// The runs `query` selects, newest first (by the payload's timestamp, then arrival).
    func runs(_ query: TelemetryQuery) async throws -> [TelemetryRecord]
    /// How many runs `query`'s filters select (its limit and offset aside).
    func count(_ query: TelemetryQuery) async throws -> Int
    /// Registers the device `registration` describes, or finds it by its identifier (keeping its
    /// id and first registration, updating the rest): its record, and whether it is new.
    func registerDevice(_ registration: DeviceRegistration, at date: Date) async throws -> (device: DeviceRecord, created: Bool)
    /// Whether `deviceID` (the collector's id) is a registered device; marks it seen at `date`.
    func touchDevice(_ deviceID: String, at date: Date) async throws -> Bool
    /// Stores those of `events` (from `deviceID`) whose ids are not stored yet; the ids it stored.
    func insertEvents(_ events: [AnalyticsEvent], deviceID: String, receivedAt: Date) async throws -> Set<String>
    /// The analytics events `query` selects, newest first (by when they happened, then arrival).
    func analyticsEvents(_ query: AnalyticsQuery) async throws -> [AnalyticsRecord]
    /// How many analytics events `query`'s filters select (its limit and offset aside).
    func analyticsEventCount(_ query: AnalyticsQuery) async throws -> Int
    /// A page of the registered devices, most recently seen first.
    func devices(limit: Int, offset: Int) async throws -> [DeviceRecord]
    /// How many devices are registered.
    func deviceCount() async throws -> Int
    /// Closes the connection(s).
    func close() async throws
}

/// The runs table's columns, and a payload's values for them, shared by both stores.
enum TelemetryColumns {
    /// A value to bind.
    enum Value: Sendable {
        case text(String)
        case integer(Int64)
        case real(Double)
        case null
    }

    static let names = [
        "run_id", "platform", "model_id", "run_at", "timestamp", "frames_processed", "warmup_frames", "fps_avg", "fps_min", "fps_max",
        "latency_p50_ms",
        "latency_p95_ms", "cold_start_ms", "model_file_mb", "battery_drop_pct_15m", "thermal_state", "device_model", "os_version",
        "backend",
        "telemetry_post_url", "received_at",
    ]

    /// `payload`'s values in the order of ``names``: `run_at` and `received_at` are milliseconds
    /// since 1970 (for sorting), `timestamp` the payload's text as sent.
    static func values(_ payload: TelemetryPayload, receivedAt: Date) -> [Value] {
        let m = payload.metrics
        let runAt = TelemetryValidator.date(m.timestamp) ?? receivedAt
        return [
            .text(m.runID), .text(payload.platform), .text(m.modelID), .integer(milliseconds(runAt)), .text(m.timestamp),
            .integer(Int64(m.framesProcessed)),
            .integer(Int64(m.warmupFrames)), .real(m.fpsAvg), .real(m.fpsMin), .real(m.fpsMax), .real(m.latencyP50Ms),
            .real(m.latencyP95Ms),
            .real(m.coldStartMs), .real(m.modelFileMB), m.batteryDropPct15m.map(Value.real) ?? .null, .text(m.thermalState),
            .text(m.deviceModel),
            .text(m.osVersion), .text(m.backend), .text(m.telemetryPostURL), .integer(milliseconds(receivedAt)),
        ]
    }

    /// A record from a row's values, read by column name.
    static func record(
        text: (String) throws -> String, integer: (String) throws -> Int64, real: (String) throws -> Double,
        optionalReal: (String) throws -> Double?
    ) throws -> TelemetryRecord {
        let metrics = TelemetryPayload.Metrics(
            modelID: try text("model_id"), runID: try text("run_id"), timestamp: try text("timestamp"),
            framesProcessed: Int(try integer("frames_processed")), warmupFrames: Int(try integer("warmup_frames")),
            fpsAvg: try real("fps_avg"),
            fpsMin: try real("fps_min"), fpsMax: try real("fps_max"), latencyP50Ms: try real("latency_p50_ms"),
            latencyP95Ms: try real("latency_p95_ms"), coldStartMs: try real("cold_start_ms"), modelFileMB: try real("model_file_mb"),
            batteryDropPct15m: try optionalReal("battery_drop_pct_15m"), thermalState: try text("thermal_state"),
            deviceModel: try text("device_model"), osVersion: try text("os_version"), backend: try text("backend"),
            telemetryPostURL: try text("telemetry_post_url")
        )
        let received = Date(timeIntervalSince1970: Double(try integer("received_at")) / 1000)
        return TelemetryRecord(payload: TelemetryPayload(platform: try text("platform"), metrics: metrics), receivedAt: received)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}
