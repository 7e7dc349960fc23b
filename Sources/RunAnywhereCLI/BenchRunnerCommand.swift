import ArgumentParser
import Foundation
import Logging
import RunAnywhere
import RunAnywhereBenchRunner

/// `runanywhere benchrunner`: the frame-benchmark harness (the seed's BenchRunner) and its
/// telemetry POST.
struct BenchRunnerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "benchrunner",
        abstract: "Run a model over a fixed sequence of frames, measure it and POST the telemetry payload.",
        discussion: """
            By default GradientIdentity, a one-layer identity network embedded in the binary, runs on ONNX Runtime over \
            frames made from an embedded gradient image (on TensorFlow Lite through LiteRT with BENCH_USE_TFLITE=1 or \
            --use-tflite, falling back to ONNX Runtime with the reason logged when LiteRT cannot run it). --model runs an installed language, speech-recognition, \
            vision-language or voice-activity model instead (one decode step, one 1 s window, one image or one 32 ms \
            frame per frame). Settings come from BENCH_WARMUP_FRAMES (45), BENCH_MEASURE_SECONDS (60), \
            BENCH_EXTENDED_MINUTES (none; 15 when set without a positive number), BENCH_ENABLE_EXTENDED=1 (15 minutes), \
            BENCH_FRAME_COUNT (150), BENCH_TELEMETRY_URL (http://localhost:8000/telemetry), BENCH_TELEMETRY_API_KEY (sent as a \
            bearer token to a collector that asks for one) and BENCH_USE_TFLITE=1; \
            the flags below override them. The payload is POSTed once with a 3 s limit; a failed POST is reported \
            and does not fail the run. Exit status: 0 done, 1 error, 130 cancelled.
            """
    )
    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: "An installed model to run instead of GradientIdentity (see `models list`).") var model: String?
    @Option(name: .long, help: "Warm-up frames before measuring.") var warmupFrames: Int?
    @Option(name: .long, help: "Seconds of the measured loop (fractions allowed).") var measureSeconds: Double?
    @Option(name: .long, help: "Minutes of the extended pass (fractions allowed).") var extendedMinutes: Double?
    @Flag(name: .long, help: "Run the 15-minute extended pass.") var enableExtended = false
    @Option(name: .long, help: "Frames generated for each loop iteration.") var frameCount: Int?
    @Option(name: .long, help: "Where to POST the payload.") var telemetryURL: String?
    @Flag(name: .long, help: "Try the TensorFlow Lite backend first (falls back to ONNX Runtime).") var useTflite = false
    @Option(name: .long, help: "CPU threads (default: all cores, at most 4).") var threads: Int?
    @Flag(name: .long, help: "Print the payload as JSON instead of the summary table.") var json = false
    @Option(name: .long, help: .hidden) var overheadRounds: Int?

    func validate() throws {
        let most = SDKConstants.Limits.maxThreads
        if let threads, !(1...most).contains(threads) { throw ValidationError("--threads must be 1 to \(most)") }
    }

    /// The `BENCH_*` environment with the flags applied over it.
    func benchConfiguration() throws -> BenchRunnerConfiguration {
        var configuration = try BenchRunnerConfiguration(environment: ProcessInfo.processInfo.environment)
        if let warmupFrames { configuration.warmupFrames = warmupFrames }
        if let measureSeconds { configuration.measureSeconds = measureSeconds }
        if enableExtended, extendedMinutes == nil { configuration.extendedMinutes = BenchRunnerConfiguration.defaultExtendedMinutes }
        if let extendedMinutes { configuration.extendedMinutes = extendedMinutes }
        if let frameCount { configuration.frameCount = frameCount }
        if let telemetryURL { configuration.telemetryURL = telemetryURL }
        if useTflite { configuration.useTFLite = true }
        try configuration.validate()
        return configuration
    }

    func run() async throws {
        if let overheadRounds { return try await BenchRunnerOverhead(command: self).run(rounds: overheadRounds) }
        try await CLIContext.run(global) { context in
            let configuration = try benchConfiguration()
            let logger = context.logger
            for note in configuration.notes { logger.warning("\(note)") }
            let runtime = try RunAnywhere.runtime()
            let threads = threads ?? runtime.frameworks.hardwareDetector.profile(accelerators: []).defaultThreads
            let model = model
            let run = Task {
                let workload: any FrameWorkload
                if let model {
                    if configuration.useTFLite {
                        logger.warning("the TensorFlow Lite backend applies to GradientIdentity only; \(model) runs on its own engine")
                    }
                    workload = try ModelWorkload.make(id: model, runtime: runtime, threads: threads)
                } else {
                    workload = IdentityWorkload(threads: threads, backend: configuration.useTFLite ? .tfLite : .onnxRuntime, logger: logger)
                }
                var status = StatusLine()
                defer { status.clear() }
                return try await BenchRunner(configuration: configuration, logger: logger).run(workload) { status.show(Self.describe($0)) }
            }
            let result: BenchRunnerResult
            do {
                result = try await Interrupts.shared.whileRunning(onInterrupt: { run.cancel() }) { try await run.value }
            } catch is CancellationError {
                Terminal.standardError("Cancelled; nothing was sent.")
                throw ExitCode(130)
            }
            Terminal.write(json ? String(decoding: try result.payload.encoded(pretty: true), as: UTF8.self) + "\n" : Self.summary(result))
            let outcome = await TelemetryPoster().post(
                result.payload, to: configuration.telemetryURL, apiKey: configuration.telemetryAPIKey)
            if case .accepted = outcome {
                Terminal.standardError(
                    "Telemetry \(outcome.description) at \(configuration.telemetryURL); run \(result.payload.metrics.runID)")
            } else {
                logger.warning("telemetry to \(configuration.telemetryURL) \(outcome.description)")
            }
        }
    }

    private static func describe(_ progress: BenchRunnerProgress) -> String {
        switch progress {
        case .loading: "Loading the model…"
        case .loaded(let coldStart): "Loaded; cold start \(milliseconds(coldStart)) ms"
        case .warmingUp(let done, let total): "Warming up [\(StatusLine.bar(Double(done) / Double(max(total, 1))))] \(done)/\(total) frames"
        case .measuring(let frames, let elapsed, let total, let fps):
            "Measuring [\(StatusLine.bar(elapsed / total))] \(frames) frames, \(String(format: "%.1f", fps)) fps"
        case .extended(let frames, let elapsed, let total):
            "Extended pass [\(StatusLine.bar(elapsed / total))] \(frames) frames, \(Int((total - elapsed).components.seconds)) s left"
        }
    }

    private static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f", duration.inSeconds * 1000)
    }

    private static func summary(_ result: BenchRunnerResult) -> String {
        let metrics = result.payload.metrics
        var rows: [[String]] = [
            ["model", metrics.modelID], ["backend", metrics.backend],
            ["frames", "\(metrics.framesProcessed) (after \(metrics.warmupFrames) warm-up)"],
            ["fps", "\(metrics.fpsAvg) average, \(metrics.fpsMin) min, \(metrics.fpsMax) max"],
            ["latency", "\(metrics.latencyP50Ms) ms p50, \(metrics.latencyP95Ms) ms p95"], ["cold start", "\(metrics.coldStartMs) ms"],
            ["model file", "\(metrics.modelFileMB) MB"], ["thermal state", metrics.thermalState], ["device", metrics.deviceModel],
            ["OS", metrics.osVersion],
        ]
        if result.extendedFrames > 0 { rows.append(["extended pass", "\(result.extendedFrames) frames"]) }
        if let drop = metrics.batteryDropPct15m { rows.append(["battery drop", "\(drop) % per 15 min"]) }
        return Terminal.table(["BenchRunner", metrics.runID], rows)
    }
}
