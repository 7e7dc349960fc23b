import Foundation
import RunAnywhere
import RunAnywhereLiteRT
import RunAnywhereOnnxRuntime

/// GradientIdentity loaded on one engine, with its frames prepared in that engine's layout.
protocol IdentityRunner {
    /// The size of the model file the engine loaded.
    var modelBytes: Int { get }
    /// The frames prepared.
    var frameCount: Int { get }
    /// The values in one frame.
    var valuesPerFrame: Int { get }
    /// The first frame's input values, in the engine's layout (what the output must equal).
    var firstFrame: [Float] { get }
    /// Runs frame `index` and returns the output values.
    func run(frame index: Int) throws -> [Float]
}

/// ONNX Runtime's GradientIdentity: planar frames, [1, 3, height, width].
struct OnnxIdentityRunner: IdentityRunner {
    let modelBytes: Int
    private let session: OnnxRuntimeSession
    private let frames: [OnnxTensor]

    init(threads: Int, frames source: GradientFrames, frameCount: Int) throws {
        guard let model = Data(base64Encoded: EmbeddedResources.gradientIdentityONNX, options: .ignoreUnknownCharacters) else {
            throw BenchRunnerError.resource("the embedded GradientIdentity ONNX model is not valid base64")
        }
        modelBytes = model.count
        session = try OnnxRuntimeSession(model: model, inputName: "image", outputName: "identity", threads: threads)
        let shape = [1, 3, source.source.height, source.source.width]
        frames = try (0..<frameCount).map { try OnnxTensor(values: source.planar($0), shape: shape) }
    }

    var frameCount: Int { frames.count }
    var valuesPerFrame: Int { frames[0].values.count }
    var firstFrame: [Float] { frames[0].values }
    func run(frame index: Int) throws -> [Float] { try session.run(frames[index]).values }
}

/// TensorFlow Lite's GradientIdentity on LiteRT: interleaved frames, [1, height, width, 3].
struct TFLiteIdentityRunner: IdentityRunner {
    let modelBytes: Int
    private let model: LiteRTModel
    private let frames: [LiteRTTensor]
    let firstFrame: [Float]

    init(threads: Int, frames source: GradientFrames, frameCount: Int) throws {
        guard let data = Data(base64Encoded: EmbeddedResources.gradientIdentityTFLite, options: .ignoreUnknownCharacters) else {
            throw BenchRunnerError.resource("the embedded GradientIdentity TensorFlow Lite model is not valid base64")
        }
        modelBytes = data.count
        model = try LiteRTModel(model: data, threads: threads)
        let shape = [1, source.source.height, source.source.width, 3]
        guard model.inputShape == shape else {
            throw SDKError(.invalidInput, "the TensorFlow Lite GradientIdentity takes \(model.inputShape), the frames are \(shape)")
        }
        firstFrame = source.interleaved(0)
        let model = model
        frames = try (0..<frameCount).map { try model.makeInput(source.interleaved($0)) }
    }

    var frameCount: Int { frames.count }
    var valuesPerFrame: Int { firstFrame.count }
    func run(frame index: Int) throws -> [Float] { try model.run(frames[index]) }
}
