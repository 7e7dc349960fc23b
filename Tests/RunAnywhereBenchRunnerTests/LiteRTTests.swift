import Foundation
import Logging
import RunAnywhere
import RunAnywhereLiteRT
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereBenchRunner

/// GradientIdentity on the real LiteRT (TensorFlow Lite's runtime from the ai-edge-litert wheel).
@Suite(
    .inProcessLane,
    .enabled(
        if: TestEnvironment.liteRTInstalled && TestEnvironment.speechInstalled, "scripts/setup --tests installs LiteRT and ONNX Runtime"))
struct LiteRTTests {
    private func identity() throws -> Data {
        try #require(Data(base64Encoded: EmbeddedResources.gradientIdentityTFLite, options: .ignoreUnknownCharacters))
    }

    /// The convolution really runs: random values come back exactly, in the model's shape.
    @Test func theModelGivesBackWhatItIsGiven() throws {
        let model = try LiteRTModel(model: identity(), threads: 1)
        #expect(model.inputShape == [1, 224, 224, 3] && model.outputShape == [1, 224, 224, 3])
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<3 {
            let values = (0..<(224 * 224 * 3)).map { _ in Float.random(in: -4...4, using: &generator) }
            let output = try model.run(model.makeInput(values))
            #expect(output == values)
        }
    }

    /// Damaged models and wrong inputs are errors with LiteRT's reason, never a crash.
    @Test func badModelsAndInputsAreRefused() throws {
        let model = try LiteRTModel(model: identity(), threads: 1)
        #expect(throws: SDKError.self) { try model.makeInput([1, 2, 3]) }
        #expect(throws: SDKError.self) { try LiteRTModel(model: Data(), threads: 1) }
        #expect(throws: SDKError.self) { try LiteRTModel(model: Data("not a model".utf8), threads: 1) }
        let data = try identity()
        #expect(throws: SDKError.self) { try LiteRTModel(model: data.prefix(data.count / 2), threads: 1) }
    }

    @Test func theHarnessRunsGradientIdentityOnTFLite() async throws {
        let configuration = BenchRunnerConfiguration(warmupFrames: 3, measureSeconds: 0.3, frameCount: 6, useTFLite: true)
        let workload = IdentityWorkload(threads: 1, backend: .tfLite)
        let result = try await BenchRunner(configuration: configuration, logger: Logger(label: "litert-tests")).run(workload)
        let metrics = result.payload.metrics
        #expect(metrics.backend == "tflite" && metrics.modelID == "GradientIdentity")
        #expect(metrics.framesProcessed > 0 && metrics.latencyP50Ms > 0 && metrics.modelFileMB < 0.01)
    }
}
