import Foundation
import RunAnywhere

/// The error a provider gives for a component whose engine this build does not include; the
/// runner only gets there for a downloaded model of that category, which no catalog entry
/// offers until the engine arrives.
func engineMissing(_ category: BenchmarkCategory, engine: String) -> SDKError {
    SDKError(.frameworkNotAvailable, "\(category.displayName) benchmarks need the \(engine) engine, which this build does not include yet")
}

/// Speech-to-text: 2 s of silence and 3 s of a 440 Hz tone, 16 kHz mono Int16.
public struct STTBenchmarkProvider: BenchmarkScenarioProvider {
    public let category = BenchmarkCategory.stt
    public init() {}

    public func scenarios() -> [BenchmarkScenario] {
        ["Silent audio (2s)", "Synthetic tone (3s)"].map { BenchmarkScenario(name: $0, category: .stt) }
    }

    /// The audio each scenario transcribes.
    public static func audio(for scenario: BenchmarkScenario) -> Data {
        scenario.name == "Silent audio (2s)"
            ? SyntheticInputGenerator.silentAudio(durationSeconds: 2)
            : SyntheticInputGenerator.sineWaveAudio(durationSeconds: 3, frequencyHz: 440)
    }

    public func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        throw engineMissing(category, engine: "whisper.cpp")
    }
}

/// Text-to-speech: a short and a medium sentence.
public struct TTSBenchmarkProvider: BenchmarkScenarioProvider {
    public let category = BenchmarkCategory.tts
    public init() {}

    /// The text of each scenario.
    public static let texts = [
        "Short text": "Hello, world.",
        "Medium text": "The quick brown fox jumps over the lazy dog. This is a benchmark test for text to speech synthesis quality and speed.",
    ]

    public func scenarios() -> [BenchmarkScenario] {
        ["Short text", "Medium text"].map { BenchmarkScenario(name: $0, category: .tts) }
    }

    public func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        throw engineMissing(category, engine: "sherpa-onnx / espeak-ng")
    }
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
