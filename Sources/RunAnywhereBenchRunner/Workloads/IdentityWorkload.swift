import Foundation
import Logging
import RunAnywhere

/// The engine GradientIdentity runs on: the payload's `backend`.
package enum IdentityBackend: String, Sendable {
    /// ONNX Runtime (the one that comes with sherpa-onnx): the default.
    case onnxRuntime = "onnxruntime"
    /// TensorFlow Lite, through LiteRT (`BENCH_USE_TFLITE`).
    case tfLite = "tflite"
}

/// The seed's default: GradientIdentity, materialized from its embedded base64 text and run over
/// the gradient frames by ONNX Runtime or, when asked for, TensorFlow Lite (LiteRT); when LiteRT
/// cannot be had or cannot run the model, the reason is logged and ONNX Runtime runs it, as the
/// seed falls back to Core ML. Loading checks that the network gives back the first frame
/// unchanged; then each frame's output only has its size checked, so that the loop times the
/// engine rather than a comparison.
package final class IdentityWorkload: FrameWorkload {
    package let modelID = "GradientIdentity"
    package var backend: String { engine.rawValue }
    package private(set) var modelFileBytes: Int64 = 0
    /// The engine that runs the frames: the one asked for until loading falls back.
    package private(set) var engine: IdentityBackend
    private let threads: Int
    private let logger: Logger
    private var runner: (any IdentityRunner)?

    /// A workload on `backend`, running on `threads` CPU threads; `logger` hears why a
    /// TensorFlow Lite run falls back to ONNX Runtime.
    package init(threads: Int, backend: IdentityBackend = .onnxRuntime, logger: Logger = Logger(label: "runanywhere.benchrunner")) {
        self.threads = threads
        self.engine = backend
        self.logger = logger
    }

    package func load(frameCount: Int) async throws {
        let frames = try GradientFrames()
        if engine == .tfLite {
            do {
                try load(TFLiteIdentityRunner(threads: threads, frames: frames, frameCount: frameCount))
                return
            } catch {
                logger.warning("TensorFlow Lite cannot run GradientIdentity here (\(error)); running on ONNX Runtime")
                engine = .onnxRuntime
            }
        }
        try load(OnnxIdentityRunner(threads: threads, frames: frames, frameCount: frameCount))
    }

    private func load(_ runner: any IdentityRunner) throws {
        guard try runner.run(frame: 0) == runner.firstFrame else {
            throw SDKError(.generationFailed, "GradientIdentity did not give back its input; \(backend) computes it wrongly here")
        }
        modelFileBytes = Int64(runner.modelBytes)
        self.runner = runner
    }

    package func process(frame index: Int) async throws -> Bool {
        guard let runner else { throw SDKError(.notInitialized, "GradientIdentity is not loaded") }
        let output = try runner.run(frame: index)
        guard output.count == runner.valuesPerFrame else {
            throw SDKError(
                .generationFailed, "GradientIdentity gave frame \(index) back with \(output.count) values, not \(runner.valuesPerFrame)")
        }
        return true
    }

    /// The reference for the harness's own overhead: the same model over the same frames in a
    /// bare loop (no latency, rate or progress bookkeeping) for `duration`; returns the frames run.
    /// Call after ``load(frameCount:)``.
    package func bareLoop(for duration: Duration) throws -> Int {
        guard let runner else { throw SDKError(.notInitialized, "GradientIdentity is not loaded") }
        let clock = ContinuousClock()
        let end = clock.now + duration
        var frames = 0
        while clock.now < end {
            _ = try runner.run(frame: frames % runner.frameCount)
            frames += 1
        }
        return frames
    }

    package func unload() async {
        runner = nil
    }
}
