import Foundation
import RunAnywhereBenchmarks

/// The live progress of a benchmark run on standard error: a bar redrawn in place on a terminal,
/// one line per scenario otherwise; warnings for skipped categories.
struct ProgressLine {
    private let started = ContinuousClock.now
    private var line = StatusLine()

    mutating func show(_ event: BenchmarkEvent) {
        switch event {
        case .skipped(_, let message):
            line.clear()
            Terminal.standardError("warning: \(message)")
        case .progress(let update):
            let elapsed = (ContinuousClock.now - started).inSeconds
            let eta =
                update.completedCount > 0
                ? elapsed / Double(update.completedCount) * Double(update.totalCount - update.completedCount) : nil
            line.show(
                String(
                    format: "[%@] %d/%d %3.0f%% %@ • %.0fs elapsed%@", StatusLine.bar(update.progress), update.completedCount + 1,
                    update.totalCount, update.progress * 100, update.currentScenario, elapsed,
                    eta.map { String(format: ", ETA %.0fs", $0) } ?? ""))
        case .result(let result):
            if let error = result.metrics.error {
                line.clear()
                Terminal.standardError("error in \(result.scenarioName) (\(result.componentModelInfo.modelId)): \(error)")
            }
        }
    }

    mutating func finish() { line.clear() }
}
