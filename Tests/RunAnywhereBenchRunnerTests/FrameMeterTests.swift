import Foundation
import Testing

@testable import RunAnywhereBenchRunner

@Suite struct FrameMeterTests {
    /// 3.5 s: 10 frames in the first second, 20 in the second, 5 in the third, 7 in the last half.
    @Test func ratesComeFromWholeSecondsAndLatencyFromTheHistogram() {
        var meter = FrameMeter()
        var latencies: [Duration] = []
        for (second, count) in [(0, 10), (1, 20), (2, 5), (3, 7)] {
            for frame in 0..<count {
                let latency = Duration.microseconds(100 + 50 * (latencies.count % 40))
                latencies.append(latency)
                meter.record(latency: latency, endingAt: .seconds(second) + .milliseconds(frame * 900 / count))
            }
        }
        let statistics = meter.statistics(elapsed: .milliseconds(3500))
        #expect(statistics.frames == 42)
        #expect(abs(statistics.fpsAverage - 12) < 1e-9)
        #expect(statistics.fpsMin == 5 && statistics.fpsMax == 20)
        let sorted = latencies.map { Double($0.components.attoseconds) / 1e15 }.sorted()
        // Three significant digits: within 0.1 % of the exact order statistics.
        #expect(abs(statistics.latencyP50Milliseconds - sorted[20]) <= sorted[20] * 0.001 + 1e-6)
        #expect(abs(statistics.latencyP95Milliseconds - sorted[39]) <= sorted[39] * 0.001 + 1e-6)
    }

    @Test func aSecondWithoutFramesCountsAsZeroAndAShortLoopUsesItsAverage() {
        var meter = FrameMeter()
        meter.record(latency: .milliseconds(1500), endingAt: .milliseconds(1500))
        meter.record(latency: .milliseconds(400), endingAt: .milliseconds(2100))
        let statistics = meter.statistics(elapsed: .milliseconds(2200))
        #expect(statistics.fpsMin == 0 && statistics.fpsMax == 1)

        var short = FrameMeter()
        for index in 1...4 { short.record(latency: .milliseconds(100), endingAt: .milliseconds(100 * index)) }
        let shortStatistics = short.statistics(elapsed: .milliseconds(400))
        #expect(shortStatistics.fpsMin == shortStatistics.fpsAverage && shortStatistics.fpsMax == shortStatistics.fpsAverage)
        #expect(abs(shortStatistics.fpsAverage - 10) < 1e-9)
    }
}
