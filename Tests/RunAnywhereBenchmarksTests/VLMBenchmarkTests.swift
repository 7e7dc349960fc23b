import Foundation
import RunAnywhere
import RunAnywhereBenchmarks
import RunAnywhereLlamaCpp
import RunAnywhereTestSupport
import Testing

/// The vision-language provider on the fixture scripts/setup --tests writes (random weights), 1 thread.
@Suite(
    .inProcessLane,
    .enabled(
        if: TestEnvironment.visionFixture != nil, "needs the vision-language fixture and libmtmd: run scripts/setup --tests --build tests"))
struct VLMBenchmarkTests {
    @Test func measuresBothScenariosOnTheFixture() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = folder.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try #require(TestEnvironment.visionFixture), to: models.appendingPathComponent(SDKConstants.Models.visionFixtureID))
        let runtime = RunAnywhereRuntime(configuration: RuntimeConfiguration(modelsDirectory: models, dataDirectory: folder))
        runtime.frameworks.register(LlamaCppAdapter())
        let handle = BenchmarkRunner(
            configuration: BenchmarkConfiguration(runtime: runtime, repetitions: 2, threads: 1), store: nil, appVersion: "test"
        )
        .start(categories: [.vlm])
        for await _ in handle.events {}
        let run = await handle.run.value
        #expect(run.status == .completed)
        #expect(run.results.map(\.scenarioName).sorted() == ["Gradient image", "Solid color image"])
        for result in run.results {
            let m = result.metrics
            #expect(m.error == nil, "\(m.error ?? "")")
            #expect(result.componentModelInfo.modelId == SDKConstants.Models.visionFixtureID)
            #expect((m.loadTimeMs ?? 0) > 0 && (m.warmupTimeMs ?? 0) > 0 && m.repetitions == 2)
            let description = try #require(m.vlmDescriptionTimeMs)
            #expect(description > 0 && description <= m.endToEndLatencyMs)
            #expect((m.inputTokens ?? 0) > 20 && (1...100).contains(m.outputTokens ?? 0))
            #expect((m.tokensPerSecond ?? 0) > 0 && m.timeToFirstTokenMs != nil)
        }
        #expect(await !runtime.isVLMModelLoaded, "the provider unloads after measuring")
    }
}
