import Foundation
import RunAnywhere
import RunAnywhereEspeak
import RunAnywhereLlamaCpp
import RunAnywhereSherpaOnnx
import RunAnywhereStableDiffusion
import RunAnywhereTestSupport
import RunAnywhereWhisperCpp
import Testing

/// One model of every kind in one runtime's model cache, each in its own engine worker: the
/// current model of each role (language, vision-language, speech recognition, speech synthesis,
/// image generation) and the models lent per request (embeddings, voice activity). Unloading all
/// of them leaves nothing held: no model in the cache, no current model, no worker process.
@Suite(
    .inProcessLane, .serialized,
    .enabled(
        if: TestEnvironment.speechInstalled && TestEnvironment.engineInstalled && TestEnvironment.embeddingModelFile != nil
            && TestEnvironment.visionFixture != nil && TestEnvironment.diffusionFixture != nil,
        "needs every engine, the default models and the fixtures: run scripts/setup --tests --build tests"))
struct EveryKindOfModelTests {
    static let load = ModelLoadOptions(threads: 1)

    @Test func oneModelOfEachKindLoadsAndUnloadingAllLeavesNothingHeld() async throws {
        let runtime = EngineWorkers.runtime()
        runtime.frameworks.register(LlamaCppAdapter())
        runtime.frameworks.register(WhisperCppAdapter())
        runtime.frameworks.register(SherpaOnnxAdapter(phonemizer: EspeakPhonemizer()))
        runtime.frameworks.register(EspeakAdapter())
        runtime.frameworks.register(StableDiffusionAdapter())
        let models = SDKConstants.Models.self
        let diffusion = DiffusionConfiguration(modelId: models.diffusionFixtureID, threads: 1)

        try await runtime.loadModel(models.defaultModelID, options: Self.load)
        try await runtime.loadVLMModel(runtime.model(id: models.visionFixtureID), options: Self.load)
        try await runtime.loadSTTModel(models.defaultSpeechRecognitionModelID, options: Self.load)
        try await runtime.loadTTSModel(models.defaultVoiceID, options: Self.load)
        try await runtime.loadDiffusionModel(runtime.model(id: models.diffusionFixtureID), configuration: diffusion)
        let embedded = try await runtime.embed("a lamp", model: models.defaultEmbeddingModelID, loadOptions: Self.load)
        #expect(embedded.embeddings.count == 1 && embedded.dimensions > 0)
        let silence = try AudioSamples(samples: [Float](repeating: 0, count: 16_000), sampleRate: 16_000)
        #expect(try await runtime.detectSpeech(in: silence).isEmpty)

        let every = [
            models.defaultModelID, models.visionFixtureID, models.defaultSpeechRecognitionModelID, models.defaultVoiceID,
            models.diffusionFixtureID, models.defaultEmbeddingModelID, models.voiceActivityModelID,
        ]
        #expect(Set(await runtime.loadedModels().map(\.modelId)) == Set(every))
        for id in every { #expect(EngineWorkers.holding(id).count == 1, "one worker named after \(id)") }
        let held = [
            await runtime.isModelLoaded, await runtime.isVLMModelLoaded, await runtime.isSTTModelLoaded, await runtime.isTTSVoiceLoaded,
            await runtime.isDiffusionModelLoaded,
        ]
        #expect(held == [true, true, true, true, true], "each role's current model")

        await runtime.unloadAllModels()
        #expect(await runtime.loadedModels().isEmpty)
        let current = [
            await runtime.currentModel, await runtime.currentVLMModel, await runtime.currentSTTModel, await runtime.currentTTSVoice,
            await runtime.currentDiffusionModel,
        ]
        #expect(current.allSatisfy { $0 == nil }, "no current model in any role")
        let stillHeld = [
            await runtime.isModelLoaded, await runtime.isVLMModelLoaded, await runtime.isSTTModelLoaded, await runtime.isTTSVoiceLoaded,
            await runtime.isDiffusionModelLoaded,
        ]
        #expect(stillHeld == [false, false, false, false, false])
        for id in every { #expect(EngineWorkers.holding(id).isEmpty, "\(id)'s worker ended with its model") }
    }
}
