import Foundation
import RunAnywhere

/// Text generation: the spec's three prompts, streamed; one discarded warm-up, then the
/// configured number of measured passes, each evaluating its whole prompt (no KV reuse).
package struct LLMBenchmarkProvider: BenchmarkScenarioProvider {
    struct Scenario {
        let name: String
        let prompt: String
        let maxTokens: Int
        let temperature: Float
    }

    static let suite = [
        Scenario(name: "Short generation", prompt: "What is 2+2? Answer briefly.", maxTokens: 50, temperature: 0),
        Scenario(name: "Medium generation", prompt: "Explain how photosynthesis works in 3 paragraphs.", maxTokens: 256, temperature: 0),
        Scenario(name: "Long generation", prompt: "Write a short story about a robot learning to paint.", maxTokens: 512, temperature: 0.7),
    ]

    package let category = BenchmarkCategory.llm
    private let configuration: BenchmarkConfiguration

    /// Creates the provider for a configuration.
    package init(configuration: BenchmarkConfiguration) {
        self.configuration = configuration
    }

    package func scenarios() -> [BenchmarkScenario] {
        Self.suite.map { BenchmarkScenario(name: $0.name, category: .llm) }
    }

    package func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        guard let spec = Self.suite.first(where: { $0.name == scenario.name }) else {
            throw SDKError(.invalidInput, "Unknown LLM scenario '\(scenario.name)'")
        }
        let runtime = configuration.runtime
        await runtime.unloadModel()
        let memory = MemoryProbe.start()
        let loadStart = ContinuousClock.now
        // The scenarios are seeded; elsewhere than in the reproducible (batch-invariant)
        // configuration a seeded request decodes alone, and so never speculates.
        let load = ModelLoadOptions(
            threads: configuration.threads, reproducible: configuration.speculation != nil, rpcWorkers: configuration.rpcWorkers)
        try await runtime.loadModel(model.id, options: load)
        let loadTimeMs = loadStart.millisecondsElapsed
        let availableDelta = memory.availableDelta()
        do {
            let warmupStart = ContinuousClock.now
            _ = try await runtime.generate("Hi", options: options(maxTokens: 5, temperature: 0))
            let warmupMs = warmupStart.millisecondsElapsed
            var passes: [(result: LLMGenerationResult, e2eMs: Double)] = []
            for _ in 0..<configuration.repetitions {
                let start = ContinuousClock.now
                let streaming = try await runtime.generateStream(
                    spec.prompt, options: options(maxTokens: spec.maxTokens, temperature: spec.temperature))
                for try await _ in streaming.stream {}
                let result = try await streaming.result.value
                try Task.checkCancellation()
                passes.append((result, start.millisecondsElapsed))
            }
            await runtime.unloadModel()
            return metrics(
                passes, loadTimeMs: loadTimeMs, warmupMs: warmupMs, availableDelta: availableDelta, peakDelta: memory.peakResidentDelta())
        } catch {
            await runtime.unloadModel()
            throw error
        }
    }

    private func options(maxTokens: Int, temperature: Float) -> LLMGenerationOptions {
        LLMGenerationOptions(
            maxTokens: maxTokens, temperature: temperature, topP: SDKConstants.Generation.topP, topK: SDKConstants.Generation.topK,
            seed: 42, streamingEnabled: true, threads: configuration.threads, reusePromptCache: false,
            speculation: configuration.speculation
        )
    }

    private func metrics(
        _ passes: [(result: LLMGenerationResult, e2eMs: Double)], loadTimeMs: Double, warmupMs: Double, availableDelta: Int64?,
        peakDelta: Int64?
    ) -> BenchmarkMetrics {
        let ttft = Spread(passes.compactMap(\.result.timeToFirstTokenMs))
        let speed = Spread(passes.map(\.result.tokensPerSecond))
        let latency = Spread(passes.map(\.e2eMs))
        let medianPass = passes.sorted { $0.e2eMs < $1.e2eMs }[passes.count / 2].result
        var metrics = BenchmarkMetrics(
            loadTimeMs: loadTimeMs, warmupTimeMs: warmupMs, timeToFirstTokenMs: ttft?.median, tokensPerSecond: speed?.median,
            endToEndLatencyMs: latency?.median ?? 0, inputTokens: medianPass.inputTokens, outputTokens: medianPass.tokensUsed,
            peakMemoryDeltaBytes: availableDelta
        )
        metrics.repetitions = passes.count
        metrics.timeToFirstTokenMinMs = ttft?.min
        metrics.timeToFirstTokenMaxMs = ttft?.max
        metrics.tokensPerSecondMin = speed?.min
        metrics.tokensPerSecondMax = speed?.max
        metrics.endToEndLatencyMinMs = latency?.min
        metrics.endToEndLatencyMaxMs = latency?.max
        metrics.promptTokensPerSecond = Spread(passes.map(\.result.promptTokensPerSecond))?.median
        metrics.decodeTokensPerSecond = Spread(passes.map(\.result.decodeTokensPerSecond))?.median
        metrics.peakRSSDeltaBytes = peakDelta
        metrics.backend = passes.last?.result.backend
        let drafted = passes.compactMap(\.result.draftTokens).reduce(0, +)
        if drafted > 0 {
            metrics.draftAcceptanceRate = Double(passes.compactMap(\.result.acceptedDraftTokens).reduce(0, +)) / Double(drafted)
        }
        return metrics
    }
}
