import Foundation
import RunAnywhere
import RunAnywhereStableDiffusion
import RunAnywhereTestSupport
import Testing

/// Image generation in an engine worker process (``EngineProcesses``, the `runanywhere
/// engine-worker` built beside the tests), on the fixture: the same seed draws the same PNG as in
/// this process, each step is reported as it is done, what only the model can say (its samplers)
/// is asked of the worker, and a real SIGSEGV inside the worker fails only that drawing, after
/// which the model loads again.
@Suite(
    .inProcessLane, .serialized,
    .enabled(
        if: TestEnvironment.diffusionFixture != nil,
        "needs the diffusion fixture and libstable-diffusion: run scripts/setup --tests --build tests"))
struct DiffusionEngineProcessTests {
    /// Draws `prompt` with the fixture in `runtime`: the steps reported, then the image.
    static func draw(_ runtime: RunAnywhereRuntime, _ prompt: String, _ options: DiffusionGenerationOptions) async throws -> (
        [Int], DiffusionResult?
    ) {
        let model = try runtime.model(id: DiffusionTests.fixtureID)
        var (steps, result): ([Int], DiffusionResult?) = ([], nil)
        for try await progress in try await runtime.generateImageStream(
            prompt: prompt, options: options, model: model, configuration: DiffusionTests.configuration)
        {
            if let image = progress.result { result = image } else { steps.append(progress.currentStep) }
        }
        return (steps, result)
    }

    @Test func anImageModelInAWorkerDrawsAsItDoesHereAndOutlivesACrash() async throws {
        let options = DiffusionTests.small(seed: 11)
        let inProcess = DiffusionTests.makeRuntime()
        let (_, here) = try await Self.draw(inProcess, "A lighthouse at dusk", options)
        await inProcess.unloadAllModels()

        let isolated = EngineWorkers.runtime()
        isolated.frameworks.register(StableDiffusionAdapter())
        let (steps, there) = try await Self.draw(isolated, "A lighthouse at dusk", options)
        #expect(there?.imageData == here?.imageData && there?.seedUsed == 11, "the same seed and engine: the same PNG")
        #expect(steps == [1, 2], "each step as the worker does it")
        #expect(EngineWorkers.holding(DiffusionTests.fixtureID).count == 1, "one worker, named after the model")
        var lms = options
        lms.scheduler = .lms
        await #expect(throws: SDKError.self, "the worker's engine refuses a sampler it lacks") {
            try await Self.draw(isolated, "A cat", lms)
        }

        setenv("RUNANYWHERE_TEST_ENGINE_FAULTS", "1", 1)  // read by the workers started from here
        defer { unsetenv("RUNANYWHERE_TEST_ENGINE_FAULTS") }
        await isolated.unloadAllModels()
        let error = await #expect(throws: SDKError.self) { try await Self.draw(isolated, "[[engine-fault:segv]]", options) }
        #expect(error?.code == .engineCrashed && error?.message.contains("SIGSEGV") == true, "\(String(describing: error))")
        #expect(
            try await Self.draw(isolated, "A lighthouse at dusk", options).1?.imageData == here?.imageData,
            "loaded again, it draws as before")
        await isolated.unloadAllModels()
        #expect(EngineWorkers.holding(DiffusionTests.fixtureID).isEmpty)
    }
}
