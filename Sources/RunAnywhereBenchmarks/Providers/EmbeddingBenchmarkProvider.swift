import Foundation
import RunAnywhere

/// Text embeddings: one short sentence, and a batch of 32 short sentences (fixed, built in, in
/// the spirit of spec 1.3), plus, when given, the caller's own texts as one batch ("Custom texts
/// (N)", e.g. `bench run --embedding-texts FILE`). Each scenario loads the model (timed, with
/// its memory), embeds its texts once to warm up (discarded), then the configured passes, each
/// one `embed` call on the whole batch: tokenization, the engine and normalization, not the load.
/// Reported: the latency per batch (median, min, max), sentences per second (additive, with its
/// range), tokens embedded per second in `tokensPerSecond`, the tokens of the batch in
/// `inputTokens`, and the SDK's own time for the batch (``RunAnywhere/EmbeddingResult/latencyMs``) in
/// `embeddingTimeMs`.
package struct EmbeddingBenchmarkProvider: BenchmarkScenarioProvider {
    package let category = BenchmarkCategory.embedding
    private let configuration: BenchmarkConfiguration
    private let customTexts: [String]

    /// A provider of the built-in scenarios, and of "Custom texts (N)" when `customTexts` has any.
    package init(configuration: BenchmarkConfiguration, customTexts: [String] = []) {
        self.configuration = configuration
        self.customTexts = customTexts
    }

    /// The 32 short sentences of "Batch of 32 sentences"; the first is "Single sentence".
    package static let sentences = [
        "A man is eating food.",
        "The weather is lovely today.",
        "She plays the violin in an orchestra.",
        "Our train leaves at half past seven.",
        "The cat is sleeping on the warm windowsill.",
        "Interest rates rose again this quarter.",
        "He forgot his umbrella at the office.",
        "Photosynthesis turns sunlight into chemical energy.",
        "The museum opens on Sunday mornings.",
        "A child is flying a red kite in the park.",
        "The server returned an unexpected error.",
        "Fresh bread smells wonderful in the morning.",
        "The committee postponed its final decision.",
        "Mount Everest is the highest mountain on Earth.",
        "Please restart the router and try again.",
        "The river flooded the valley last spring.",
        "Two dogs are running along the beach.",
        "The new phone has a larger battery.",
        "Volcanoes release gas and molten rock.",
        "The library extended its opening hours.",
        "A woman is slicing tomatoes in the kitchen.",
        "The stock market closed slightly higher.",
        "Bees help pollinate many of our crops.",
        "The concert was cancelled because of rain.",
        "He learned to speak Japanese in two years.",
        "The bridge was repainted over the summer.",
        "Compilers translate source code into machine code.",
        "The hikers reached the summit before noon.",
        "Coffee prices have doubled since last year.",
        "The baby laughed at the puppet show.",
        "Solar panels work even on cloudy days.",
        "The meeting has been moved to Thursday.",
    ]

    /// The name of the scenario of the caller's texts.
    package static func customScenarioName(count: Int) -> String { "Custom texts (\(count))" }

    package func scenarios() -> [BenchmarkScenario] {
        var names = ["Single sentence", "Batch of 32 sentences"]
        if !customTexts.isEmpty { names.append(Self.customScenarioName(count: customTexts.count)) }
        return names.map { BenchmarkScenario(name: $0, category: .embedding) }
    }

    /// The texts `scenario` embeds in each pass; nil for a scenario this provider does not have.
    package func texts(for scenario: BenchmarkScenario) -> [String]? {
        switch scenario.name {
        case "Single sentence": [Self.sentences[0]]
        case "Batch of 32 sentences": Self.sentences
        case Self.customScenarioName(count: customTexts.count) where !customTexts.isEmpty: customTexts
        default: nil
        }
    }

    package func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
        guard let texts = texts(for: scenario) else { throw SDKError(.invalidInput, "Unknown embedding scenario '\(scenario.name)'") }
        let runtime = configuration.runtime
        let options = EmbeddingOptions(threads: configuration.threads)
        await runtime.unloadModel(id: model.id)
        let memory = MemoryProbe.start()
        let loadStart = ContinuousClock.now
        let handle = try await runtime.hold(model.id, options: ModelLoadOptions(threads: configuration.threads))
        let loadTimeMs = loadStart.millisecondsElapsed
        let availableDelta = memory.availableDelta()
        do {
            let warmupStart = ContinuousClock.now
            _ = try await handle.embed(texts, options: options)
            let warmupMs = warmupStart.millisecondsElapsed
            var passes: [(result: EmbeddingResult, e2eMs: Double)] = []
            for _ in 0..<configuration.repetitions {
                let start = ContinuousClock.now
                let result = try await handle.embed(texts, options: options)
                passes.append((result, start.millisecondsElapsed))
                try Task.checkCancellation()
            }
            await handle.release()
            await runtime.unloadModel(id: model.id)
            return metrics(
                passes, texts: texts.count, loadTimeMs: loadTimeMs, warmupMs: warmupMs, availableDelta: availableDelta,
                peakDelta: memory.peakResidentDelta())
        } catch {
            await handle.release()
            await runtime.unloadModel(id: model.id)
            throw error
        }
    }

    private func metrics(
        _ passes: [(result: EmbeddingResult, e2eMs: Double)], texts: Int, loadTimeMs: Double, warmupMs: Double, availableDelta: Int64?,
        peakDelta: Int64?
    ) -> BenchmarkMetrics {
        let latency = Spread(passes.map(\.e2eMs))
        let sentences = Spread(passes.map { Double(texts) / ($0.e2eMs / 1000) })
        let tokens = passes.first?.result.totalTokens
        var metrics = BenchmarkMetrics(
            loadTimeMs: loadTimeMs, warmupTimeMs: warmupMs,
            tokensPerSecond: Spread(passes.map { Double($0.result.totalTokens) / ($0.e2eMs / 1000) })?.median,
            endToEndLatencyMs: latency?.median ?? 0, inputTokens: tokens, peakMemoryDeltaBytes: availableDelta
        )
        metrics.repetitions = passes.count
        metrics.endToEndLatencyMinMs = latency?.min
        metrics.endToEndLatencyMaxMs = latency?.max
        metrics.sentencesPerSecond = sentences?.median
        metrics.sentencesPerSecondMin = sentences?.min
        metrics.sentencesPerSecondMax = sentences?.max
        metrics.embeddingTimeMs = Spread(passes.map(\.result.latencyMs))?.median
        metrics.peakRSSDeltaBytes = peakDelta
        return metrics
    }
}
