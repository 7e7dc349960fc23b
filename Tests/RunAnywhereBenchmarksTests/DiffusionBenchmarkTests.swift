import Foundation
import RunAnywhere
import RunAnywhereBenchmarks
import RunAnywhereStableDiffusion
import RunAnywhereTestSupport
import Testing

/// The image-generation provider on the fixture scripts/setup --tests writes (random weights), 1 thread,
/// at the spec's settings (512×512, 10 steps: about half a minute here).
@Suite(
    .inProcessLane,
    .enabled(
        if: TestEnvironment.diffusionFixture != nil,
        "needs the diffusion fixture and libstable-diffusion: run scripts/setup --tests --build tests"))
struct DiffusionBenchmarkTests {
    @Test func measuresTheSpecScenarioOnTheFixture() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let models = folder.appendingPathComponent("models/\(SDKConstants.Models.diffusionFixtureID)")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let fixture = try #require(TestEnvironment.diffusionFixture)
        try FileManager.default.copyItem(at: fixture, to: models.appendingPathComponent(fixture.lastPathComponent))
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(modelsDirectory: models.deletingLastPathComponent(), dataDirectory: folder))
        runtime.frameworks.register(StableDiffusionAdapter())
        let handle = BenchmarkRunner(
            configuration: BenchmarkConfiguration(runtime: runtime, repetitions: 1, threads: 1), store: nil, appVersion: "test"
        )
        .start(categories: [.diffusion])
        for await _ in handle.events {}
        let run = await handle.run.value
        #expect(run.status == .completed)
        let result = try #require(run.results.first)
        #expect(run.results.count == 1 && result.scenarioName == "Simple prompt (fast)")
        #expect(
            result.componentModelInfo.modelId == SDKConstants.Models.diffusionFixtureID
                && result.componentModelInfo.framework == "stable-diffusion.cpp")
        let m = result.metrics
        #expect(m.error == nil, "\(m.error ?? "")")
        #expect((m.loadTimeMs ?? 0) > 0 && (m.warmupTimeMs ?? 0) > 0 && m.repetitions == 1)
        let generation = try #require(m.imageGenerationTimeMs)
        #expect(generation > 0 && generation <= m.endToEndLatencyMs + 1)
        #expect(m.tokensPerSecond == nil && m.outputTokens == nil)
        #expect(await !runtime.isDiffusionModelLoaded, "the provider unloads after measuring")
    }
}
