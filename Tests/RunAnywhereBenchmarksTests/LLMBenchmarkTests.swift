import Foundation
import RunAnywhere
import RunAnywhereBenchmarks
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// The LLM provider on the real default model through llama.cpp, 1 thread.
@Suite(
    .inProcessLane, .serialized,
    .enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model: run scripts/setup --tests --build tests"))
struct LLMBenchmarkTests {
    func runtime(models: URL) -> RunAnywhereRuntime {
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(modelsDirectory: models, dataDirectory: FileManager.default.temporaryDirectory))
        runtime.frameworks.register(LlamaCppAdapter())
        return runtime
    }

    @Test func measuresLoadWarmupAndTheMedianOfThePasses() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = runtime(models: folder.appendingPathComponent("models"))
        try runtime.registerModel(id: "smol", name: "SmolLM2", url: try #require(TestEnvironment.defaultModelFile), framework: .llamaCpp)
        let handle = BenchmarkRunner(
            configuration: BenchmarkConfiguration(runtime: runtime, repetitions: 3, threads: 1), store: nil, appVersion: "test"
        ).start(categories: [.llm], scenarios: ["Short generation"])
        for await _ in handle.events {}
        let run = await handle.run.value
        let result = try #require(run.results.first)
        let m = result.metrics
        #expect(run.status == .completed && run.results.count == 1)
        #expect(m.error == nil)
        #expect((m.loadTimeMs ?? 0) > 0 && (m.warmupTimeMs ?? 0) > 0)
        #expect(m.repetitions == 3)
        let ttft = try #require(m.timeToFirstTokenMs)
        let speed = try #require(m.tokensPerSecond)
        #expect((m.timeToFirstTokenMinMs ?? .infinity) <= ttft && ttft <= (m.timeToFirstTokenMaxMs ?? 0))
        #expect((m.tokensPerSecondMin ?? .infinity) <= speed && speed <= (m.tokensPerSecondMax ?? 0))
        #expect((m.endToEndLatencyMinMs ?? .infinity) <= m.endToEndLatencyMs && m.endToEndLatencyMs <= (m.endToEndLatencyMaxMs ?? 0))
        #expect(ttft < m.endToEndLatencyMs)
        #expect((m.inputTokens ?? 0) > 5 && (1...50).contains(m.outputTokens ?? 0))
        #expect((m.promptTokensPerSecond ?? 0) > 0)
        #expect((m.peakRSSDeltaBytes ?? 0) > 10 << 20, "loading a 98 MB model grows the resident set")
        #expect(result.componentModelInfo.framework == "llama.cpp" && result.componentModelInfo.formatOrQuantization == "gguf")
        #expect(await !runtime.isModelLoaded, "the provider unloads after measuring")
    }

    @Test func aModelThatFailsToLoadDoesNotStopTheRun() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = runtime(models: folder.appendingPathComponent("models"))
        let real = try #require(TestEnvironment.defaultModelFile)
        let broken = folder.appendingPathComponent("broken.gguf")
        try TestEnvironment.writeTruncatedCopy(of: real, to: broken, bytes: 1 << 20)
        try runtime.registerModel(id: "broken", name: "Broken", url: broken, framework: .llamaCpp)
        try runtime.registerModel(id: "smol", name: "SmolLM2", url: real, framework: .llamaCpp)
        let handle = BenchmarkRunner(
            configuration: BenchmarkConfiguration(runtime: runtime, repetitions: 1, threads: 1), store: nil, appVersion: "test"
        )
        .start(categories: [.llm], scenarios: ["Short generation"])
        for await _ in handle.events {}
        let run = await handle.run.value
        #expect(run.status == .completed)
        #expect(run.results.first { $0.componentModelInfo.modelId == "broken" }?.metrics.error?.contains("truncated") == true)
        #expect(run.results.first { $0.componentModelInfo.modelId == "smol" }?.metrics.tokensPerSecond.map { $0 > 0 } == true)
    }
}
