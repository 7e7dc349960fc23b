import Foundation
import Logging
import RunAnywhere
import RunAnywhereOnnxRuntime
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereBenchRunner

/// GradientIdentity on the real ONNX Runtime (the one sherpa-onnx brings), through the harness.
@Suite(.inProcessLane, .enabled(if: TestEnvironment.speechInstalled, "scripts/setup --tests installs sherpa-onnx and its ONNX Runtime"))
struct BenchRunnerTests {
    private let logger = Logger(label: "benchrunner-tests")

    private func configuration(measureSeconds: Double = 0.5, extendedMinutes: Double? = nil) -> BenchRunnerConfiguration {
        BenchRunnerConfiguration(warmupFrames: 5, measureSeconds: measureSeconds, extendedMinutes: extendedMinutes, frameCount: 12)
    }

    @Test func gradientIdentityRunsAndFillsThePayload() async throws {
        var phases: [String] = []
        let result = try await BenchRunner(configuration: configuration(), logger: logger).run(IdentityWorkload(threads: 1)) { progress in
            phases.append("\(progress)".components(separatedBy: "(").first ?? "")
        }
        let metrics = result.payload.metrics
        #expect(result.payload.platform == "linux")
        #expect(metrics.modelID == "GradientIdentity" && metrics.backend == "onnxruntime")
        #expect(metrics.framesProcessed > 0 && metrics.framesProcessed == result.statistics.frames)
        #expect(metrics.warmupFrames == 5 && metrics.fpsAvg > 0 && metrics.fpsMin <= metrics.fpsAvg && metrics.fpsAvg <= metrics.fpsMax)
        #expect(metrics.latencyP50Ms > 0 && metrics.latencyP50Ms <= metrics.latencyP95Ms)
        #expect(metrics.coldStartMs > 0 && metrics.modelFileMB < 0.01)  // a few hundred bytes: 0.0 MB, as in the seed
        #expect(metrics.batteryDropPct15m == nil && result.extendedFrames == 0)
        #expect(UUID(uuidString: metrics.runID) != nil && metrics.telemetryPostURL == "http://localhost:8000/telemetry")
        #expect(ISO8601DateFormatter().date(from: metrics.timestamp) != nil)
        #expect(phases.first == "loading" && phases.contains("loaded") && phases.contains("warmingUp"))
    }

    /// The extended pass shortened to 0.01 minutes; the battery read from a tree with one, which
    /// does not drain: the drop is there, and 0.
    @Test func theExtendedPassRunsAndReportsTheBattery() async throws {
        let root = try TestEnvironment.temporaryDirectory("battery")
        let battery = root.appendingPathComponent("sys/class/power_supply/BAT0")
        try FileManager.default.createDirectory(at: battery, withIntermediateDirectories: true)
        try "Battery\n".write(to: battery.appendingPathComponent("type"), atomically: true, encoding: .utf8)
        try "80\n".write(to: battery.appendingPathComponent("capacity"), atomically: true, encoding: .utf8)
        let runner = BenchRunner(
            configuration: configuration(measureSeconds: 0.2, extendedMinutes: 0.01), system: SystemProbe(root: root), logger: logger)
        let result = try await runner.run(IdentityWorkload(threads: 1))
        #expect(result.extendedFrames > 0)
        #expect(result.payload.metrics.batteryDropPct15m == 0)
        // Without a battery the field stays absent even after an extended pass.
        let none = try await BenchRunner(configuration: configuration(measureSeconds: 0.2, extendedMinutes: 0.005), logger: logger).run(
            IdentityWorkload(threads: 1))
        #expect(none.extendedFrames > 0 && none.payload.metrics.batteryDropPct15m == nil)
    }

    /// The identity network really runs: ONNX Runtime gives every frame back unchanged.
    @Test func theSessionGivesBackWhatItIsGiven() throws {
        let model = try #require(Data(base64Encoded: EmbeddedResources.gradientIdentityONNX, options: .ignoreUnknownCharacters))
        let session = try OnnxRuntimeSession(model: model, inputName: "image", outputName: "identity", threads: 1)
        #expect(session.runtimeVersion.hasPrefix("1."))
        var generator = SeededGenerator(seed: 7)
        let values = (0..<(3 * 5 * 9)).map { _ in Float.random(in: -2...2, using: &generator) }
        let input = try OnnxTensor(values: values, shape: [1, 3, 5, 9])
        #expect(try session.run(input) == input)
    }

    @Test func wrongInputsAreRefusedWithTheEnginesReason() throws {
        let model = try #require(Data(base64Encoded: EmbeddedResources.gradientIdentityONNX, options: .ignoreUnknownCharacters))
        let session = try OnnxRuntimeSession(model: model, inputName: "image", outputName: "identity", threads: 1)
        #expect(throws: SDKError.self) { try session.run(try OnnxTensor(values: [1, 2, 3, 4], shape: [1, 4, 1, 1])) }
        #expect(throws: SDKError.self) { try OnnxTensor(values: [1, 2, 3], shape: [1, 4]) }
        let renamed = try OnnxRuntimeSession(model: model, inputName: "picture", outputName: "identity", threads: 1)
        #expect(throws: SDKError.self) { try renamed.run(try OnnxTensor(values: [Float](repeating: 0, count: 3), shape: [1, 3, 1, 1])) }
        #expect(throws: SDKError.self) {
            try OnnxRuntimeSession(model: Data("not a model".utf8), inputName: "image", outputName: "identity", threads: 1)
        }
        #expect(throws: SDKError.self) { try OnnxRuntimeSession(model: Data(), inputName: "image", outputName: "identity", threads: 1) }
    }
}
