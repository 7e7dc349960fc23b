import Foundation
import RunAnywhere

/// The error a provider gives for a component whose engine this build does not include; the
/// runner only gets there for a downloaded model of that category, which no catalog entry
/// offers until the engine arrives (vision-language and image generation).
func engineMissing(_ category: BenchmarkCategory, engine: String) -> SDKError {
    SDKError(.frameworkNotAvailable, "\(category.displayName) benchmarks need the \(engine) engine, which this build does not include yet")
}

/// Vision-language: a solid red and a red-to-blue gradient 224×224 image.
public struct VLMBenchmarkProvider: BenchmarkScenarioProvider {
    public let category = BenchmarkCategory.vlm
    public init() {}

    public func scenarios() -> [BenchmarkScenario] {
        ["Solid color image", "Gradient image"].map { BenchmarkScenario(name: $0, category: .vlm) }
    }

    /// The image and prompt of each scenario (100 tokens, temperature 0).
    public static func input(for scenario: BenchmarkScenario) -> (image: SyntheticImage, prompt: String) {
        scenario.name == "Solid color image"
            ? (SyntheticInputGenerator.solidColorImage(red: 255, green: 0, blue: 0), "Describe what you see in this image.")
            : (SyntheticInputGenerator.gradientImage(from: (255, 0, 0), to: (0, 0, 255)), "What colors and patterns do you see?")
    }

    public func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        throw engineMissing(category, engine: "llama.cpp multimodal (libmtmd)")
    }
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
