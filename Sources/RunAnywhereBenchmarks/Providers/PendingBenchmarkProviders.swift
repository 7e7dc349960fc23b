import Foundation
import RunAnywhere

/// The error a provider gives for a component whose engine this build does not include; the
/// runner only gets there for a downloaded model of that category, which no catalog entry
/// offers until the engine arrives (image generation).
func engineMissing(_ category: BenchmarkCategory, engine: String) -> SDKError {
    SDKError(.frameworkNotAvailable, "\(category.displayName) benchmarks need the \(engine) engine, which this build does not include yet")
}

/// Image generation: one 512×512 image in 10 steps, seed 42, guidance 7.5.
public struct DiffusionBenchmarkProvider: BenchmarkScenarioProvider {
    public let category = BenchmarkCategory.diffusion
    public init() {}

    public func scenarios() -> [BenchmarkScenario] {
        [BenchmarkScenario(name: "Simple prompt (fast)", category: .diffusion)]
    }

    public func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        throw engineMissing(category, engine: "stable-diffusion.cpp")
    }
}
