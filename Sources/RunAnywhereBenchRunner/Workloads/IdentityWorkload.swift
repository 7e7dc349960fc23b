import Foundation
import RunAnywhere
import RunAnywhereOnnxRuntime

/// The seed's default: GradientIdentity, materialized from its embedded base64 text and run by
/// ONNX Runtime over the gradient frames. Loading checks that the network gives back the first
/// frame unchanged; then each frame's output only has its shape checked, so that the loop times
/// the engine rather than a comparison.
public final class IdentityWorkload: FrameWorkload {
    public let modelID = "GradientIdentity"
    public let backend = "onnxruntime"
    public private(set) var modelFileBytes: Int64 = 0
    /// The ONNX Runtime version that ran the frames, once loaded.
    public private(set) var runtimeVersion: String?
    private let threads: Int
    private var session: OnnxRuntimeSession?
    private var frames: [OnnxTensor] = []

    /// A workload running on `threads` CPU threads.
    public init(threads: Int) {
        self.threads = threads
    }

    public func load(frameCount: Int) async throws {
        guard let model = Data(base64Encoded: EmbeddedResources.gradientIdentityONNX, options: .ignoreUnknownCharacters) else {
            throw BenchRunnerError.resource("the embedded GradientIdentity model is not valid base64")
        }
        modelFileBytes = Int64(model.count)
        let session = try OnnxRuntimeSession(model: model, inputName: "image", outputName: "identity", threads: threads)
        let source = try GradientFrames()
        let shape = [1, 3, source.source.height, source.source.width]
        frames = try (0..<frameCount).map { try OnnxTensor(values: source.planar($0), shape: shape) }
        guard try session.run(frames[0]) == frames[0] else {
            throw SDKError(.generationFailed, "GradientIdentity did not give back its input; the ONNX Runtime at hand computes it wrongly")
        }
        self.session = session
        runtimeVersion = session.runtimeVersion
    }

    public func process(frame index: Int) async throws -> Bool {
        guard let session else { throw SDKError(.notInitialized, "GradientIdentity is not loaded") }
        let output = try session.run(frames[index])
        guard output.shape == frames[index].shape else {
            throw SDKError(.generationFailed, "GradientIdentity gave frame \(index) back with the shape \(output.shape)")
        }
        return true
    }

    /// The reference for the harness's own overhead: the same session over the same frames in a
    /// bare loop (no latency, rate or progress bookkeeping) for `duration`; returns the frames run.
    /// Call after ``load(frameCount:)``.
    public func bareLoop(for duration: Duration) throws -> Int {
        guard let session else { throw SDKError(.notInitialized, "GradientIdentity is not loaded") }
        let clock = ContinuousClock()
        let end = clock.now + duration
        var frames = 0
        while clock.now < end {
            _ = try session.run(self.frames[frames % self.frames.count])
            frames += 1
        }
        return frames
    }

    public func unload() async {
        session = nil
        frames = []
    }
}
