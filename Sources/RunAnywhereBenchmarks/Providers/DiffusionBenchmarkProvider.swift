import Foundation
import RunAnywhere

/// Image generation: "A red circle on a white background", 512×512, 10 steps, seed 42, guidance
/// 7.5 (spec 1.3); one discarded warm-up (one step at 64×64), then the configured passes, each
/// drawing the whole image again.
package struct DiffusionBenchmarkProvider: BenchmarkScenarioProvider {
    package let category = BenchmarkCategory.diffusion
    private let configuration: BenchmarkConfiguration

    /// Creates the provider for a configuration.
    package init(configuration: BenchmarkConfiguration) {
        self.configuration = configuration
    }

    package func scenarios() -> [BenchmarkScenario] {
        [BenchmarkScenario(name: "Simple prompt (fast)", category: .diffusion)]
    }

    /// The spec's prompt and options of the scenario.
    package static let prompt = "A red circle on a white background"
    /// The image options every diffusion scenario uses.
    package static let options = DiffusionGenerationOptions.textToImage(
        prompt: prompt, width: 512, height: 512, steps: 10, guidanceScale: 7.5, seed: 42)

    package func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        let runtime = configuration.runtime
        await runtime.unloadDiffusionModel()
        let memory = MemoryProbe.start()
        let loadStart = ContinuousClock.now
        try await runtime.loadDiffusionModel(
            model, configuration: DiffusionConfiguration(modelId: model.id, threads: configuration.threads))
        let loadTimeMs = loadStart.millisecondsElapsed
        let availableDelta = memory.availableDelta()
        do {
            let warmupStart = ContinuousClock.now
            var warmup = Self.options
            (warmup.width, warmup.height, warmup.steps) = (64, 64, 1)
            _ = try await runtime.generateImage(prompt: Self.prompt, options: warmup)
            let warmupMs = warmupStart.millisecondsElapsed
            var passes: [(result: DiffusionResult, e2eMs: Double)] = []
            for _ in 0..<configuration.repetitions {
                let start = ContinuousClock.now
                let result = try await runtime.generateImage(prompt: Self.prompt, options: Self.options)
                try Task.checkCancellation()
                passes.append((result, start.millisecondsElapsed))
            }
            await runtime.unloadDiffusionModel()
            let latency = Spread(passes.map(\.e2eMs))
            var metrics = BenchmarkMetrics(
                loadTimeMs: loadTimeMs, warmupTimeMs: warmupMs, endToEndLatencyMs: latency?.median ?? 0,
                peakMemoryDeltaBytes: availableDelta,
                imageGenerationTimeMs: Spread(passes.map { Double($0.result.generationTimeMs) })?.median
            )
            metrics.repetitions = passes.count
            metrics.endToEndLatencyMinMs = latency?.min
            metrics.endToEndLatencyMaxMs = latency?.max
            metrics.peakRSSDeltaBytes = memory.peakResidentDelta()
            return metrics
        } catch {
            await runtime.unloadDiffusionModel()
            throw error
        }
    }
}
