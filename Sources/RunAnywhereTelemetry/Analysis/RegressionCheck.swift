import Foundation

/// A group whose latest runs are slower than its earlier ones by more than the threshold.
package struct TelemetryRegression: Codable, Sendable, Equatable {
    package var deviceModel: String
    package var osVersion: String
    package var modelID: String
    package var backend: String
    /// "fps" (the median fps fell) or "latency_p95" (the median p95 latency rose).
    package var metric: String
    /// The median of the baseline runs and of the latest runs.
    package var baseline: Double
    package var latest: Double
    /// How much worse, in percent (positive).
    package var changePercent: Double
    /// How many runs each side had.
    package var baselineRuns: Int
    package var latestRuns: Int

    enum CodingKeys: String, CodingKey {
        case deviceModel = "device_model", osVersion = "os_version", modelID = "model_id", backend, metric, baseline, latest
        case changePercent = "change_percent", baselineRuns = "baseline_runs", latestRuns = "latest_runs"
    }
}

/// Compares each group's latest runs with the runs before them.
package struct RegressionCheck: Sendable, Equatable {
    /// How many of a group's newest runs are "latest" (the rest, up to ``baselineRuns``, are the baseline).
    package var latestRuns: Int
    /// How many runs before the latest make the baseline.
    package var baselineRuns: Int
    /// The worsening, in percent, that counts as a regression.
    package var thresholdPercent: Double

    /// The latest 3 runs against up to 20 before them; 10 % worse is a regression.
    package init(latestRuns: Int = 3, baselineRuns: Int = 20, thresholdPercent: Double = 10) {
        self.latestRuns = latestRuns
        self.baselineRuns = baselineRuns
        self.thresholdPercent = thresholdPercent
    }

    /// The regressions in `records` (groups with too few runs for both sides are skipped).
    package func regressions(_ records: [TelemetryRecord]) -> [TelemetryRegression] {
        Dictionary(grouping: records, by: GroupKey.init).flatMap { key, runs -> [TelemetryRegression] in
            // Newest first; each run's date parsed once.
            let ordered = runs.map { ($0.runDate, $0) }.sorted { ($0.0, $0.1.receivedAt) > ($1.0, $1.1.receivedAt) }.map(\.1)
            let latest = Array(ordered.prefix(latestRuns))
            let baseline = Array(ordered.dropFirst(latestRuns).prefix(baselineRuns))
            guard latest.count == latestRuns, !baseline.isEmpty else { return [] }
            func median(_ runs: [TelemetryRecord], _ value: (TelemetryRecord) -> Double) -> Double {
                TelemetrySummary.quantile(runs.map(value).sorted(), 0.5)
            }
            var found: [TelemetryRegression] = []
            func check(_ metric: String, _ value: (TelemetryRecord) -> Double, higherIsBetter: Bool) {
                let before = median(baseline, value)
                let now = median(latest, value)
                guard before > 0 else { return }
                let worse = (higherIsBetter ? before - now : now - before) / before * 100
                guard worse > thresholdPercent else { return }
                found.append(
                    TelemetryRegression(
                        deviceModel: key.deviceModel, osVersion: key.osVersion, modelID: key.modelID, backend: key.backend, metric: metric,
                        baseline: before, latest: now, changePercent: (worse * 10).rounded() / 10, baselineRuns: baseline.count,
                        latestRuns: latest.count
                    ))
            }
            check("fps", \.payload.metrics.fpsAvg, higherIsBetter: true)
            check("latency_p95", \.payload.metrics.latencyP95Ms, higherIsBetter: false)
            return found
        }
        .sorted { $0.changePercent > $1.changePercent }
    }
}
