import Foundation
import RunAnywhereBenchmarks

/// The live progress of a benchmark run on standard error: a bar redrawn in place on a terminal,
/// one line per scenario otherwise; warnings for skipped categories.
struct ProgressLine {
    private let started = ContinuousClock.now
    private let interactive = isatty(STDERR_FILENO) == 1
    private var drawn = false

    mutating func show(_ event: BenchmarkEvent) {
        switch event {
        case .skipped(_, let message):
            clear()
            Terminal.standardError("warning: \(message)")
        case .progress(let update):
            let elapsed = (ContinuousClock.now - started).inSeconds
            let eta = update.completedCount > 0 ? elapsed / Double(update.completedCount) * Double(update.totalCount - update.completedCount) : nil
            let width = 20
            let filled = Int(update.progress * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            let line = String(format: "[%@] %d/%d %3.0f%% %@ • %.0fs elapsed%@", bar, update.completedCount + 1, update.totalCount,
                              update.progress * 100, update.currentScenario, elapsed, eta.map { String(format: ", ETA %.0fs", $0) } ?? "")
            if interactive {
                FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
                drawn = true
            } else {
                Terminal.standardError(line)
            }
        case .result(let result):
            if let error = result.metrics.error {
                clear()
                Terminal.standardError("error in \(result.scenarioName) (\(result.componentModelInfo.modelId)): \(error)")
            }
        }
    }

    mutating func finish() { clear() }

    private mutating func clear() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}
