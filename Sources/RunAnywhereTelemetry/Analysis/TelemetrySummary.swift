import Foundation

/// The runs of one device model, OS, model and backend, summed up.
package struct TelemetryGroup: Codable, Sendable, Equatable {
    package var deviceModel: String
    package var osVersion: String
    package var modelID: String
    package var backend: String
    /// How many runs.
    package var runs: Int
    /// Medians over the runs, and the spread of their fps (lowest, quartiles, highest).
    package var fpsMedian: Double
    package var fpsSpread: Spread
    package var latencyP50MedianMs: Double
    package var latencyP95MedianMs: Double
    package var coldStartMedianMs: Double
    /// The newest run's timestamp.
    package var latest: String

    /// Lowest, first quartile, third quartile and highest of a set of values.
    package struct Spread: Codable, Sendable, Equatable {
        package var min: Double
        package var p25: Double
        package var p75: Double
        package var max: Double
    }

    enum CodingKeys: String, CodingKey {
        case deviceModel = "device_model", osVersion = "os_version", modelID = "model_id", backend, runs, fpsMedian = "fps_median"
        case fpsSpread = "fps_spread", latencyP50MedianMs = "latency_p50_median_ms", latencyP95MedianMs = "latency_p95_median_ms"
        case coldStartMedianMs = "cold_start_median_ms", latest
    }
}

/// Summaries of stored runs per device model, OS, model and backend.
package enum TelemetrySummary {
    /// One group per device model, OS, model and backend in `records`, the busiest first.
    package static func groups(_ records: [TelemetryRecord]) -> [TelemetryGroup] {
        Dictionary(grouping: records, by: GroupKey.init).map { key, runs in
            let fps = runs.map(\.payload.metrics.fpsAvg).sorted()
            let newest = runs.max { $0.runDate < $1.runDate }
            return TelemetryGroup(
                deviceModel: key.deviceModel, osVersion: key.osVersion, modelID: key.modelID, backend: key.backend, runs: runs.count,
                fpsMedian: quantile(fps, 0.5),
                fpsSpread: .init(min: fps.first ?? 0, p25: quantile(fps, 0.25), p75: quantile(fps, 0.75), max: fps.last ?? 0),
                latencyP50MedianMs: quantile(runs.map(\.payload.metrics.latencyP50Ms).sorted(), 0.5),
                latencyP95MedianMs: quantile(runs.map(\.payload.metrics.latencyP95Ms).sorted(), 0.5),
                coldStartMedianMs: quantile(runs.map(\.payload.metrics.coldStartMs).sorted(), 0.5),
                latest: newest?.payload.metrics.timestamp ?? ""
            )
        }
        .sorted {
            ($0.runs, $1.deviceModel, $1.modelID, $1.backend, $1.osVersion) > (
                $1.runs, $0.deviceModel, $0.modelID, $0.backend, $0.osVersion
            )
        }
    }

    /// The `q` quantile (0…1) of sorted `values`, interpolated between the two nearest (the
    /// median of an even count is the mean of the middle two); 0 for none.
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let position = q * Double(values.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, values.count - 1)
        return values[lower] + (values[upper] - values[lower]) * (position - Double(lower))
    }
}

/// What identifies a group.
struct GroupKey: Hashable {
    let deviceModel: String
    let osVersion: String
    let modelID: String
    let backend: String

    init(_ record: TelemetryRecord) {
        deviceModel = record.payload.metrics.deviceModel
        osVersion = record.payload.metrics.osVersion
        modelID = record.payload.metrics.modelID
        backend = record.payload.metrics.backend
    }
}
