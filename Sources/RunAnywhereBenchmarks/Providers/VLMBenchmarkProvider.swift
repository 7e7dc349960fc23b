import Foundation
import RunAnywhere

/// Vision-language: a solid red and a red-to-blue gradient 224×224 image, each described in at
/// most 100 tokens at temperature 0 (spec 1.3); one discarded warm-up ("Hi", 5 tokens), then
/// the configured passes, each reading its whole prompt and image again.
package struct VLMBenchmarkProvider: BenchmarkScenarioProvider {
    package let category = BenchmarkCategory.vlm
    private let configuration: BenchmarkConfiguration

    /// Creates the provider for a configuration.
    package init(configuration: BenchmarkConfiguration) {
        self.configuration = configuration
    }

    package func scenarios() -> [BenchmarkScenario] {
        ["Solid color image", "Gradient image"].map { BenchmarkScenario(name: $0, category: .vlm) }
    }

    /// The image and prompt of each scenario.
    package static func input(for scenario: BenchmarkScenario) -> (image: SyntheticImage, prompt: String) {
        scenario.name == "Solid color image"
            ? (SyntheticInputGenerator.solidColorImage(red: 255, green: 0, blue: 0), "Describe what you see in this image.")
            : (SyntheticInputGenerator.gradientImage(from: (255, 0, 0), to: (0, 0, 255)), "What colors and patterns do you see?")
    }

    package func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        let runtime = configuration.runtime
        let (picture, prompt) = Self.input(for: scenario)
        let image = VLMImage(data: picture.pngData)
        await runtime.unloadVLMModel()
        let memory = MemoryProbe.start()
        let loadStart = ContinuousClock.now
        try await runtime.loadVLMModel(
            model, options: ModelLoadOptions(threads: configuration.threads, rpcWorkers: configuration.rpcWorkers))
        let loadTimeMs = loadStart.millisecondsElapsed
        let availableDelta = memory.availableDelta()
        do {
            let warmupStart = ContinuousClock.now
            _ = try await runtime.processImage(image, prompt: "Hi", options: options(maxTokens: 5))
            let warmupMs = warmupStart.millisecondsElapsed
            var passes: [(result: VLMResult, e2eMs: Double)] = []
            for _ in 0..<configuration.repetitions {
                let start = ContinuousClock.now
                let result = try await runtime.processImage(image, prompt: prompt, options: options(maxTokens: 100))
                try Task.checkCancellation()
                passes.append((result, start.millisecondsElapsed))
            }
            await runtime.unloadVLMModel()
            let latency = Spread(passes.map(\.e2eMs))
            let speed = Spread(passes.map(\.result.tokensPerSecond))
            let ttft = Spread(passes.compactMap(\.result.timeToFirstTokenMs))
            let median = passes.sorted { $0.e2eMs < $1.e2eMs }[passes.count / 2].result
            var metrics = BenchmarkMetrics(
                loadTimeMs: loadTimeMs, warmupTimeMs: warmupMs, timeToFirstTokenMs: ttft?.median, tokensPerSecond: speed?.median,
                endToEndLatencyMs: latency?.median ?? 0, inputTokens: median.promptTokens, outputTokens: median.completionTokens,
                peakMemoryDeltaBytes: availableDelta, vlmDescriptionTimeMs: Spread(passes.map(\.result.totalTimeMs))?.median
            )
            metrics.repetitions = passes.count
            metrics.endToEndLatencyMinMs = latency?.min
            metrics.endToEndLatencyMaxMs = latency?.max
            metrics.tokensPerSecondMin = speed?.min
            metrics.tokensPerSecondMax = speed?.max
            metrics.timeToFirstTokenMinMs = ttft?.min
            metrics.timeToFirstTokenMaxMs = ttft?.max
            metrics.peakRSSDeltaBytes = memory.peakResidentDelta()
            return metrics
        } catch {
            await runtime.unloadVLMModel()
            throw error
        }
    }

    private func options(maxTokens: Int) -> LLMGenerationOptions {
        LLMGenerationOptions(maxTokens: maxTokens, temperature: 0, threads: configuration.threads, reusePromptCache: false)
    }
}
