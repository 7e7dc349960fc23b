import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywhereBenchRunner

/// `benchrunner --overhead-rounds N` (hidden; benchmarks/benchrunner-overhead runs it): the
/// harness's own cost, as GradientIdentity's fps through the harness against a bare loop over
/// the same session and frames (ONNX Runtime's, or LiteRT's with --use-tflite), alternating N
/// times, nothing posted.
struct BenchRunnerOverhead {
    let command: BenchRunnerCommand

    func run(rounds: Int) async throws {
        guard rounds >= 1 else { throw ValidationError("--overhead-rounds must be at least 1") }
        try await CLIContext.run(command.global) { context in
            let configuration = try command.benchConfiguration()
            let threads = try command.threads ?? RunAnywhere.runtime().frameworks.hardwareDetector.profile(accelerators: []).defaultThreads
            let seconds = Duration.seconds(configuration.measureSeconds)
            let backend: IdentityBackend = configuration.useTFLite ? .tfLite : .onnxRuntime
            var rows: [[String]] = []
            var ratios: [Double] = []
            for round in 1...rounds {
                let harness = try await BenchRunner(configuration: configuration, logger: context.logger).run(
                    IdentityWorkload(threads: threads, backend: backend, logger: context.logger))
                let bare = IdentityWorkload(threads: threads, backend: backend, logger: context.logger)
                try await bare.load(frameCount: configuration.frameCount)
                for frame in 0..<configuration.warmupFrames { _ = try await bare.process(frame: frame % configuration.frameCount) }
                let bareFPS = Double(try bare.bareLoop(for: seconds)) / configuration.measureSeconds
                await bare.unload()
                let harnessFPS = harness.statistics.fpsAverage
                ratios.append(harnessFPS / bareFPS)
                rows.append([
                    "\(round)", String(format: "%.0f", harnessFPS), String(format: "%.0f", bareFPS),
                    String(format: "%.3f", harnessFPS / bareFPS),
                ])
            }
            Terminal.write(Terminal.table(["round", "harness fps", "bare loop fps", "harness / bare"], rows))
            let median = ratios.sorted()[ratios.count / 2]
            Terminal.write(
                "median harness / bare: \(String(format: "%.3f", median)) (the harness's overhead: \(String(format: "%.1f", (1 - median) * 100)) %)\n"
            )
        }
    }
}
