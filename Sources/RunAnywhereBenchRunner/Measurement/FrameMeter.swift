import Histogram
import RunAnywhere

/// What the measured loop gives: its frames, their rate and their latency.
package struct FrameStatistics: Sendable, Equatable {
    /// Frames processed in the loop.
    package var frames: Int
    /// Frames per second over the whole loop.
    package var fpsAverage: Double
    /// The slowest and fastest whole second of the loop (the average when it lasted under a second).
    package var fpsMin: Double
    package var fpsMax: Double
    /// Latency of a frame, median and 95th percentile, in milliseconds.
    package var latencyP50Milliseconds: Double
    package var latencyP95Milliseconds: Double
}

/// Records the measured loop: each frame's latency in an HDR histogram (nanoseconds, three
/// significant digits) and how many frames ended in each whole second since the start.
struct FrameMeter {
    private static let highestLatency: UInt64 = 600_000_000_000  // 10 minutes, in nanoseconds
    private var latencies = Histogram<UInt64>(
        lowestDiscernibleValue: 1, highestTrackableValue: highestLatency, numberOfSignificantValueDigits: .three)
    private var perSecond: [Int] = []
    private(set) var frames = 0

    /// Records a frame that took `latency` and ended `offset` after the loop started.
    mutating func record(latency: Duration, endingAt offset: Duration) {
        let nanoseconds = max(1, min(Self.highestLatency, UInt64(clamping: Self.nanoseconds(latency))))
        _ = latencies.record(nanoseconds)
        let second = max(0, Int(Self.nanoseconds(offset) / 1_000_000_000))
        if perSecond.count <= second { perSecond.append(contentsOf: repeatElement(0, count: second + 1 - perSecond.count)) }
        perSecond[second] += 1
        frames += 1
    }

    /// The statistics of a loop that lasted `elapsed`.
    func statistics(elapsed: Duration) -> FrameStatistics {
        let seconds = max(elapsed.inSeconds, 1e-9)
        let average = Double(frames) / seconds
        // Whole seconds only (the last, partial one would read low); a second without a frame counts as 0.
        var whole = Array(perSecond.prefix(Int(seconds)))
        whole += Array(repeating: 0, count: max(0, Int(seconds) - whole.count))
        return FrameStatistics(
            frames: frames, fpsAverage: average,
            fpsMin: whole.isEmpty ? average : Double(whole.min()!), fpsMax: whole.isEmpty ? average : Double(whole.max()!),
            latencyP50Milliseconds: frames == 0 ? 0 : Double(latencies.valueAtPercentile(50)) / 1e6,
            latencyP95Milliseconds: frames == 0 ? 0 : Double(latencies.valueAtPercentile(95)) / 1e6
        )
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? Int64.max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
