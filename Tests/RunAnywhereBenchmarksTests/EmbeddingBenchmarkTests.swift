import Foundation
import RunAnywhere
import RunAnywhereBenchmarks
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// The embedding provider on the installed default embedding model (all-MiniLM-L6-v2 on
/// llama.cpp), 1 thread, 2 passes: its built-in scenarios and a batch of the caller's texts.
@Suite(
    .inProcessLane, .serialized,
    .enabled(
        if: TestEnvironment.engineInstalled && TestEnvironment.embeddingModelFile != nil,
        "needs llama.cpp and the default embedding model: run scripts/setup --tests --build tests"))
struct EmbeddingBenchmarkTests {
    static let custom = ["A man is eating food.", "A man is eating a piece of bread.", "The girl is carrying a baby."]

    @Test func measuresEveryScenarioOnTheDefaultEmbeddingModel() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: folder))
        runtime.frameworks.register(LlamaCppAdapter())
        let configuration = BenchmarkConfiguration(runtime: runtime, repetitions: 2, threads: 1)
        let provider = EmbeddingBenchmarkProvider(configuration: configuration, customTexts: Self.custom)
        #expect(provider.scenarios().map(\.name) == ["Single sentence", "Batch of 32 sentences", "Custom texts (3)"])
        #expect(provider.texts(for: BenchmarkScenario(name: "Custom texts (4)", category: .embedding)) == nil)
        let handle = BenchmarkRunner(configuration: configuration, providers: [provider], store: nil, appVersion: "test").start(
            categories: [.embedding])
        for await _ in handle.events {}
        let run = await handle.run.value
        #expect(run.status == .completed)
        let results = run.results.filter { $0.componentModelInfo.modelId == SDKConstants.Models.defaultEmbeddingModelID }
        #expect(results.map(\.scenarioName) == ["Single sentence", "Batch of 32 sentences", "Custom texts (3)"])
        // [CLS] and [SEP] counted: 8 tokens for the single sentence, 8 + 11 + 9 for the custom texts.
        let tokens = ["Single sentence": 8, "Custom texts (3)": 28]
        let counts = ["Single sentence": 1, "Batch of 32 sentences": 32, "Custom texts (3)": 3]
        for result in results {
            let m = result.metrics
            #expect(m.error == nil, "\(result.scenarioName): \(m.error ?? "")")
            #expect(result.category == .embedding && result.componentModelInfo.framework == "llama.cpp")
            #expect((m.loadTimeMs ?? 0) > 0 && (m.warmupTimeMs ?? 0) > 0 && m.repetitions == 2)
            let speed = try #require(m.sentencesPerSecond)
            #expect((m.sentencesPerSecondMin ?? .infinity) <= speed && speed <= (m.sentencesPerSecondMax ?? 0))
            #expect((m.endToEndLatencyMinMs ?? .infinity) <= m.endToEndLatencyMs && m.endToEndLatencyMs <= (m.endToEndLatencyMaxMs ?? 0))
            // Both from the same passes: sentences/s is the batch's texts over its latency.
            let count = Double(try #require(counts[result.scenarioName]))
            #expect(
                speed >= count / ((m.endToEndLatencyMaxMs ?? 0) / 1000) && speed <= count / ((m.endToEndLatencyMinMs ?? .infinity) / 1000))
            let inputTokens = try #require(m.inputTokens)
            if let expected = tokens[result.scenarioName] { #expect(inputTokens == expected) } else { #expect(inputTokens > 32 * 5) }
            #expect(try #require(m.tokensPerSecond) > speed, "every text takes several tokens")
            #expect(try #require(m.embeddingTimeMs) <= m.endToEndLatencyMs, "the SDK's time is within the call's")
            #expect(m.outputTokens == nil && m.timeToFirstTokenMs == nil)
            #expect(m.peakRSSDeltaBytes != nil)
        }
        #expect(
            await !runtime.loadedModels().contains { $0.modelId == SDKConstants.Models.defaultEmbeddingModelID },
            "the provider unloads after measuring")
        let markdown = BenchmarkReportFormatter.markdown(run)
        for fragment in ["## Embeddings", "### Batch of 32 sentences — all-MiniLM-L6-v2", "- Sentences/sec: ", "- Embedding: "] {
            #expect(markdown.contains(fragment), "missing \(fragment)")
        }
    }
}
