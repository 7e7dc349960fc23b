import Foundation
import Logging
import RunAnywhere

/// Where a run is, for a live status.
package enum BenchRunnerProgress: Sendable {
    /// Materializing and loading the model.
    case loading
    /// The model is loaded and its first frame done, `coldStart` after the process started.
    case loaded(coldStart: Duration)
    /// Warm-up frames done out of `total`.
    case warmingUp(done: Int, total: Int)
    /// The measured loop: frames so far, time spent out of `total`, and the rate so far.
    case measuring(frames: Int, elapsed: Duration, total: Duration, fps: Double)
    /// The extended pass: frames so far and time spent out of `total`.
    case extended(frames: Int, elapsed: Duration, total: Duration)
}

/// One finished run: the payload, and what the payload does not carry.
package struct BenchRunnerResult: Sendable {
    /// What is POSTed.
    package var payload: TelemetryPayload
    /// The measured loop's statistics, unrounded.
    package var statistics: FrameStatistics
    /// Frames of the extended pass (0 without one).
    package var extendedFrames: Int
    /// How the POST ended; nil until it is sent.
    package var telemetry: TelemetryPostOutcome?
}

/// The frame-benchmark harness (the seed's BenchRunner): loads a workload, runs warm-up frames,
/// a timed loop and an optional extended pass over a deterministic sequence of frames, and
/// builds the telemetry payload.
package struct BenchRunner {
    /// Timings and endpoint.
    package let configuration: BenchRunnerConfiguration
    /// Where the device fields come from.
    package let system: SystemProbe
    private let logger: Logger
    private let clock = ContinuousClock()
    private static let progressInterval = Duration.milliseconds(250)

    /// A harness for `configuration` that logs to `logger`.
    package init(configuration: BenchRunnerConfiguration, system: SystemProbe = SystemProbe(), logger: Logger) {
        self.configuration = configuration
        self.system = system
        self.logger = logger
    }

    /// Runs `workload` and returns the result, its payload not yet sent. `coldStartOrigin` is
    /// when the cold start began (the process's start when nil); `progress` is called from the
    /// running task as the run goes on. Cancelling the task stops the run between frames.
    package func run(
        _ workload: any FrameWorkload, coldStartOrigin: ContinuousClock.Instant? = nil, progress: (BenchRunnerProgress) -> Void = { _ in }
    ) async throws -> BenchRunnerResult {
        let started = clock.now
        let sinceStart = coldStartOrigin == nil ? ProcessClock.sinceStart() : nil
        progress(.loading)
        do {
            try await workload.load(frameCount: configuration.frameCount)
            var cursor = FrameCursor(count: configuration.frameCount)
            try await runFrame(workload, &cursor)
            let coldStart = coldStartOrigin.map { clock.now - $0 } ?? (clock.now - started) + (sinceStart ?? .zero)
            progress(.loaded(coldStart: coldStart))
            logger.info("\(workload.modelID) loaded on \(workload.backend); cold start \(Self.milliseconds(coldStart)) ms")
            for done in 0..<configuration.warmupFrames {
                try await runFrame(workload, &cursor)
                if done % 10 == 9 || done + 1 == configuration.warmupFrames {
                    progress(.warmingUp(done: done + 1, total: configuration.warmupFrames))
                }
            }
            let (statistics, elapsed) = try await measure(workload, &cursor, progress: progress)
            let (extendedFrames, batteryDrop) = try await extendedPass(workload, &cursor, progress: progress)
            await workload.unload()
            logger.info("\(statistics.frames) frames in \(Self.milliseconds(elapsed)) ms: \(statistics.fpsAverage) fps")
            let payload = payload(workload, statistics: statistics, coldStart: coldStart, batteryDrop: batteryDrop)
            return BenchRunnerResult(payload: payload, statistics: statistics, extendedFrames: extendedFrames)
        } catch {
            await workload.unload()
            throw error
        }
    }

    /// Runs frames until one counts (a call may only start a language model's next answer).
    private func runFrame(_ workload: any FrameWorkload, _ cursor: inout FrameCursor) async throws {
        while true {
            try Task.checkCancellation()
            if try await workload.process(frame: cursor.next()) { return }
        }
    }

    private func measure(
        _ workload: any FrameWorkload, _ cursor: inout FrameCursor, progress: (BenchRunnerProgress) -> Void
    ) async throws -> (FrameStatistics, Duration) {
        let total = Duration.seconds(configuration.measureSeconds)
        var meter = FrameMeter()
        let start = clock.now
        var reported = start
        while clock.now - start < total {
            try Task.checkCancellation()
            let frameStart = clock.now
            guard try await workload.process(frame: cursor.next()) else { continue }
            let end = clock.now
            meter.record(latency: end - frameStart, endingAt: end - start)
            if end - reported >= Self.progressInterval {
                reported = end
                progress(
                    .measuring(
                        frames: meter.frames, elapsed: end - start, total: total, fps: Double(meter.frames) / (end - start).inSeconds))
            }
        }
        let elapsed = clock.now - start
        return (meter.statistics(elapsed: elapsed), elapsed)
    }

    /// The extended pass, when configured: frames for its length, the battery read before and after.
    private func extendedPass(
        _ workload: any FrameWorkload, _ cursor: inout FrameCursor, progress: (BenchRunnerProgress) -> Void
    ) async throws -> (frames: Int, batteryDrop: Double?) {
        guard let minutes = configuration.extendedMinutes else { return (0, nil) }
        let total = Duration.seconds(minutes * 60)
        let batteryBefore = system.batteryPercent()
        let start = clock.now
        var reported = start
        var frames = 0
        while clock.now - start < total {
            try Task.checkCancellation()
            if try await workload.process(frame: cursor.next()) { frames += 1 }
            if clock.now - reported >= Self.progressInterval {
                reported = clock.now
                progress(.extended(frames: frames, elapsed: clock.now - start, total: total))
            }
        }
        guard let batteryBefore, let batteryAfter = system.batteryPercent() else { return (frames, nil) }
        return (frames, (batteryBefore - batteryAfter) * 15 / minutes)
    }

    private func payload(_ workload: any FrameWorkload, statistics: FrameStatistics, coldStart: Duration, batteryDrop: Double?)
        -> TelemetryPayload
    {
        let timestamp = Date().formatted(.iso8601)
        return TelemetryPayload(
            metrics: .init(
                modelID: workload.modelID, runID: UUID().uuidString, timestamp: timestamp, framesProcessed: statistics.frames,
                warmupFrames: configuration.warmupFrames, fpsAvg: Self.rounded(statistics.fpsAverage),
                fpsMin: Self.rounded(statistics.fpsMin),
                fpsMax: Self.rounded(statistics.fpsMax), latencyP50Ms: Self.rounded(statistics.latencyP50Milliseconds, places: 3),
                latencyP95Ms: Self.rounded(statistics.latencyP95Milliseconds, places: 3),
                coldStartMs: Self.rounded(coldStart.inSeconds * 1000),
                modelFileMB: Self.rounded(Double(workload.modelFileBytes) / 1_000_000, places: 3),
                batteryDropPct15m: batteryDrop.map { Self.rounded($0) },
                thermalState: system.thermalState(), deviceModel: system.deviceModel(),
                osVersion: HardwareProfile.current().operatingSystem, backend: workload.backend,
                telemetryPostURL: configuration.telemetryURL
            ))
    }

    private static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.inSeconds * 1000)
    }

    private static func rounded(_ value: Double, places: Int = 2) -> Double {
        let scale = pow(10, Double(places))
        return (value * scale).rounded() / scale
    }
}

/// Which generated frame comes next: 0, 1, … up to the frame count, then 0 again.
struct FrameCursor {
    let count: Int
    private var index = 0

    init(count: Int) {
        self.count = count
    }

    mutating func next() -> Int {
        defer { index = (index + 1) % count }
        return index
    }
}
