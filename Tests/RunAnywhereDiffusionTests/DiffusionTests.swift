import Foundation
import RunAnywhere
import RunAnywhereLlamaCpp
import RunAnywhereStableDiffusion
import RunAnywhereTestSupport
import Testing

/// Image generation on stable-diffusion.cpp with the fixture scripts/setup --tests writes (a tiny FLUX.2
/// klein-shaped model with random weights: its images are noise, so these tests check everything
/// but what they show). 64×64 images, a few steps, 1 thread.
@Suite(
    .inProcessLane, .serialized,
    .enabled(
        if: TestEnvironment.diffusionFixture != nil,
        "needs the diffusion fixture and libstable-diffusion: run scripts/setup --tests --build tests"))
struct DiffusionTests {
    static let fixtureID = SDKConstants.Models.diffusionFixtureID
    static let configuration = DiffusionConfiguration(modelId: fixtureID, threads: 1)

    /// A runtime with stable-diffusion.cpp and llama.cpp registered.
    static func makeRuntime(memoryBudget: Int64? = nil) -> RunAnywhereRuntime {
        var configuration = RuntimeConfiguration(
            modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: FileManager.default.temporaryDirectory)
        configuration.modelMemoryBudget = memoryBudget
        let runtime = RunAnywhereRuntime(configuration: configuration)
        runtime.frameworks.register(StableDiffusionAdapter())
        runtime.frameworks.register(LlamaCppAdapter())
        return runtime
    }

    /// One runtime with the fixture loaded through the spec's signature (a path, an id, a name).
    static let runtime = Task {
        let runtime = makeRuntime()
        try await runtime.loadDiffusionModel(
            modelPath: TestEnvironment.diffusionFixture!.path, modelId: fixtureID, modelName: "Diffusion fixture",
            configuration: configuration
        )
        return runtime
    }

    /// Small options: 64×64, two steps, guidance 1 (the fixture is guidance-distilled), euler.
    static func small(seed: Int64 = 42, steps: Int = 2, width: Int = 64, height: Int = 64) -> DiffusionGenerationOptions {
        DiffusionGenerationOptions(width: width, height: height, steps: steps, guidanceScale: 1, seed: seed, scheduler: .euler)
    }

    @Test func generatesAPNGOfTheSizeAsked() async throws {
        let runtime = try await Self.runtime.value
        #expect(await runtime.isDiffusionModelLoaded)
        #expect(await runtime.currentDiffusionModel?.id == Self.fixtureID)
        let result = try await runtime.generateImage(prompt: "A red circle on a white background", options: Self.small())
        let probe = try ImageProbe.probe(result.imageData)
        #expect(probe.format == .png && probe.width == 64 && probe.height == 64)
        #expect(result.width == 64 && result.height == 64 && result.seedUsed == 42 && result.steps == 2)
        #expect(result.generationTimeMs > 0 && !result.safetyFlagged && result.modelId == Self.fixtureID)
        // The fixture's network divides sizes by 16, so sd.cpp draws 80×64 for 72×64; the SDK
        // returns the size asked for, cut from the middle.
        let odd = try await runtime.generateImage(prompt: "A red circle", options: Self.small(width: 72))
        #expect(try ImageProbe.probe(odd.imageData).width == 72 && odd.width == 72 && odd.height == 64)
    }

    @Test func theSameSeedDrawsTheSameImage() async throws {
        let runtime = try await Self.runtime.value
        let first = try await runtime.generateImage(prompt: "A lighthouse at dusk", options: Self.small(seed: 7))
        let again = try await runtime.generateImage(prompt: "A lighthouse at dusk", options: Self.small(seed: 7))
        let other = try await runtime.generateImage(prompt: "A lighthouse at dusk", options: Self.small(seed: 8))
        #expect(first.imageData == again.imageData)
        #expect(first.imageData != other.imageData)
        let random = try await runtime.generateImage(prompt: "A lighthouse at dusk", options: Self.small(seed: -1))
        #expect(random.seedUsed >= 0)
        let replayed = try await runtime.generateImage(prompt: "A lighthouse at dusk", options: Self.small(seed: random.seedUsed))
        #expect(replayed.imageData == random.imageData)
        // The options' own prompt is used when the argument is empty.
        var withPrompt = Self.small(seed: 7)
        withPrompt.prompt = "A lighthouse at dusk"
        #expect(try await runtime.generateImage(prompt: "", options: withPrompt).imageData == first.imageData)
    }

    @Test func streamsEachStepThenTheImage() async throws {
        let runtime = try await Self.runtime.value
        var steps: [DiffusionProgress] = []
        var result: DiffusionResult?
        for try await progress in try await runtime.generateImageStream(prompt: "A boat", options: Self.small(steps: 3)) {
            if let image = progress.result { result = image } else { steps.append(progress) }
        }
        #expect(steps.map(\.currentStep) == [1, 2, 3])
        #expect(steps.allSatisfy { $0.totalSteps == 3 && $0.stage == .denoising && $0.etaMs != nil })
        #expect(steps.map(\.progress) == steps.map(\.progress).sorted() && steps.last?.progress == 1)
        #expect(steps.map(\.elapsedMs) == steps.map(\.elapsedMs).sorted())
        let image = try #require(result)
        #expect(image.steps == 3 && Double(image.generationTimeMs) >= (steps.last?.elapsedMs ?? 0).rounded(.down))
    }

    @Test func cancellingStopsBetweenStepsAndLeavesTheEngineClean() async throws {
        let runtime = try await Self.runtime.value
        let reference = try await runtime.generateImage(prompt: "A forest", options: Self.small(seed: 3))
        // cancelImageGeneration() after the first step.
        var seen = 0
        await #expect(throws: CancellationError.self) {
            for try await progress in try await runtime.generateImageStream(prompt: "A forest", options: Self.small(seed: 3, steps: 60)) {
                #expect(progress.result == nil)
                seen += 1
                if seen == 1 { await runtime.cancelImageGeneration() }
            }
        }
        #expect(seen >= 1 && seen < 60)
        // Cancelling the task that reads the stream.
        let stream = try await runtime.generateImageStream(prompt: "A forest", options: Self.small(seed: 3, steps: 60))
        let (firstStep, stepTaken) = AsyncStream.makeStream(of: Void.self)
        let reader = Task {
            var count = 0
            for try await _ in stream {
                count += 1
                stepTaken.yield()
            }
            return count
        }
        for await _ in firstStep { break }
        reader.cancel()
        let counted = await reader.result
        if case .success(let count) = counted { #expect(count < 60) }
        // Stopped through its frames, the engine draws the reference image again, byte for byte.
        let after = try await runtime.generateImage(prompt: "A forest", options: Self.small(seed: 3))
        #expect(after.imageData == reference.imageData)
    }

    @Test func refusesBadOptionsBeforeAnyWork() async throws {
        let runtime = try await Self.runtime.value
        let bad: [(DiffusionGenerationOptions, String)] = [
            (Self.small(width: 60), "width must be 64 to 2048"), (Self.small(width: 68), "width must be a multiple of 8"),
            (Self.small(height: 4096), "height must be 64 to 2048"), (Self.small(height: 0), "height must be 64 to 2048"),
            (Self.small(steps: 0), "steps must be 1 to"), (Self.small(steps: 151), "steps must be 1 to"),
            (Self.small(seed: -2), "seed must be -1"),
            (DiffusionGenerationOptions(width: 64, height: 64, guidanceScale: .nan), "guidanceScale must be 0 to 30"),
            (DiffusionGenerationOptions(width: 64, height: 64, scheduler: .lms), "no 'lms' sampler; choose one of"),
            (
                DiffusionGenerationOptions(negativePrompt: String(repeating: "no ", count: 700), width: 64, height: 64),
                "negativePrompt has 2100 characters"
            ),
        ]
        for (options, message) in bad {
            let error = await #expect(throws: SDKError.self) { try await runtime.generateImage(prompt: "A cat", options: options) }
            #expect(error?.code == .invalidInput && error?.message.contains(message) == true, "\(error?.message ?? "no error")")
        }
        let empty = await #expect(throws: SDKError.self) { try await runtime.generateImage(prompt: "  \n", options: Self.small()) }
        #expect(empty?.code == .emptyInput)
        let long = await #expect(throws: SDKError.self) {
            try await runtime.generateImage(prompt: String(repeating: "a cat ", count: 400), options: Self.small())
        }
        #expect(
            long?.code == .invalidInput && long?.message.contains("prompt has 2399 characters; at most 2000") == true,
            "\(long?.message ?? "")")
        #expect(try await runtime.generateImage(prompt: "A cat", options: Self.small()).width == 64)
    }

    @Test func refusesAnImageTheMemoryCannotHold() async throws {
        let runtime = Self.makeRuntime(memoryBudget: 512 << 20)
        await #expect(throws: SDKError.self) { try await runtime.generateImage(prompt: "A cat", options: Self.small()) }  // nothing loaded
        try await runtime.loadDiffusionModel(runtime.model(id: Self.fixtureID), configuration: Self.configuration)
        let error = await #expect(throws: SDKError.self) {
            try await runtime.generateImage(prompt: "A cat", options: Self.small(width: 2048, height: 2048))
        }
        #expect(error?.code == .insufficientMemory && error?.message.contains("reduceMemory") == true, "\(error?.message ?? "no error")")
        #expect(try await runtime.generateImage(prompt: "A cat", options: Self.small()).height == 64)
        await runtime.unloadDiffusionModel()
        #expect(await !runtime.isDiffusionModelLoaded)
    }

    @Test func namingTheModelLoadsItAndDrawsInOneStep() async throws {
        let runtime = Self.makeRuntime()
        let model = try runtime.model(id: Self.fixtureID)
        let language = try runtime.model(id: RunAnywhere.defaultModelID)
        let wrong = await #expect(throws: SDKError.self) {
            try await runtime.generateImageStream(prompt: "A cat", options: Self.small(), model: language)
        }
        #expect(wrong?.code == .modelIncompatible)
        let invalid = await #expect(throws: SDKError.self) {
            try await runtime.generateImageStream(prompt: "A cat", options: Self.small(steps: 0), model: model)
        }
        #expect(invalid?.code == .invalidInput)
        #expect(await !runtime.isDiffusionModelLoaded, "nothing loads for a request refused up front")
        let stream = try await runtime.generateImageStream(
            prompt: "A cat", options: Self.small(), model: model, configuration: Self.configuration)
        var last: DiffusionProgress?
        for try await progress in stream { last = progress }
        #expect(last?.stage == .complete && last?.result?.width == 64)
        // The model is in the one model cache, idle, with its keep-alive; not the facade's current model.
        let status = await runtime.loadedModels().first { $0.modelId == Self.fixtureID }
        #expect(
            status?.state == .loaded && status?.activeRequests == 0 && status?.keepAliveSeconds == 300 && (status?.memoryBytes ?? 0) > 0)
        #expect(await runtime.currentDiffusionModel == nil)
        // What only the loaded model can say ends the stream with the error.
        var lms = Self.small()
        lms.scheduler = .lms
        await #expect(throws: SDKError.self) {
            for try await _ in try await runtime.generateImageStream(
                prompt: "A cat", options: lms, model: model, configuration: Self.configuration)
            {}
        }
        await runtime.unloadModel(id: Self.fixtureID)
        #expect(await runtime.loadedModels().isEmpty)
    }

    @Test func anotherConfigurationReloadsTheModelOnceIdleAndTheBudgetCountsIt() async throws {
        let runtime = Self.makeRuntime()
        let model = try runtime.model(id: Self.fixtureID)
        let events = runtime.events.subscribe()
        let first = try await runtime.generateImageStream(
            prompt: "A cat", options: Self.small(), model: model, configuration: Self.configuration)
        var tiled = Self.configuration
        tiled.reduceMemory = true
        // Asked while the first image is drawn: it waits for that one, then the model is loaded again, tiled.
        async let second = RunAnywhereRuntime.image(
            from: runtime.generateImageStream(prompt: "A dog", options: Self.small(), model: model, configuration: tiled))
        #expect(try await RunAnywhereRuntime.image(from: first).width == 64)
        #expect(try await second.width == 64)
        await runtime.unloadModel(id: Self.fixtureID)
        var (loads, unloads) = (0, 0)
        for await event in events {
            if case .modelLoaded(let id) = event, id == Self.fixtureID { loads += 1 }
            if case .modelUnloaded(let id) = event, id == Self.fixtureID { unloads += 1 }
            if unloads == 2 { break }
        }
        #expect(loads == 2)
        // Held in the cache, it is evicted for a model that needs its room once idle.
        _ = try await RunAnywhereRuntime.image(
            from: runtime.generateImageStream(prompt: "A cat", options: Self.small(), model: model, configuration: Self.configuration))
        let image = try #require(await runtime.loadedModels().first { $0.modelId == Self.fixtureID }).memoryBytes
        try await runtime.preloadModel(RunAnywhere.defaultModelID, options: ModelLoadOptions(threads: 1))
        let language = try #require(await runtime.loadedModels().first { $0.modelId == RunAnywhere.defaultModelID }).memoryBytes
        await runtime.unloadModel(id: RunAnywhere.defaultModelID)
        await runtime.setModelMemoryBudget(image + language - 1)  // either fits, not both
        try await runtime.preloadModel(RunAnywhere.defaultModelID, options: ModelLoadOptions(threads: 1))
        #expect(await runtime.loadedModels().map(\.modelId) == [RunAnywhere.defaultModelID])
        await runtime.unloadAllModels()
    }

    @Test func badModelFilesAreClearErrors() async throws {
        let runtime = Self.makeRuntime()
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = try Data(contentsOf: TestEnvironment.diffusionFixture!)
        let truncated = folder.appendingPathComponent("truncated.gguf")
        try fixture.prefix(fixture.count / 2).write(to: truncated)
        let cut = await #expect(throws: SDKError.self) {
            try await runtime.loadDiffusionModel(modelPath: truncated.path, modelId: "truncated", modelName: "Truncated")
        }
        #expect(cut?.code == .invalidModelFormat && cut?.message.contains("the file is truncated") == true, "\(cut?.message ?? "")")
        let missing = await #expect(throws: SDKError.self) {
            try await runtime.loadDiffusionModel(
                modelPath: folder.appendingPathComponent("none.gguf").path, modelId: "none", modelName: "None")
        }
        #expect(missing?.code == .fileNotFound)
        if let language = TestEnvironment.defaultModelFile {
            // A language model's GGUF: sd.cpp finds no diffusion model in it.
            let error = await #expect(throws: SDKError.self) {
                try await runtime.loadDiffusionModel(modelPath: language.path, modelId: "smollm", modelName: "SmolLM2")
            }
            #expect(
                error?.code == .modelLoadFailed && error?.message.contains("stable-diffusion.cpp could not load") == true,
                "\(error?.message ?? "")")
            let wrongKind = await #expect(throws: SDKError.self) {
                try await runtime.loadDiffusionModel(runtime.model(id: RunAnywhere.defaultModelID))
            }
            #expect(wrongKind?.code == .modelIncompatible)
        }
        #expect(await !runtime.isDiffusionModelLoaded)
    }

    @Test(.enabled(if: TestEnvironment.engineInstalled, "needs llama.cpp and the default model"))
    func llamaCppAndStableDiffusionShareOneProcess() async throws {
        // Each carries its own ggml; opened with RTLD_LOCAL they stay apart and both keep working.
        let runtime = try await Self.runtime.value
        try await runtime.loadModel(RunAnywhere.defaultModelID, options: ModelLoadOptions(threads: 1))
        let options = LLMGenerationOptions(maxTokens: 4, temperature: 0, threads: 1)
        let before = try await runtime.generate("Name a colour.", options: options)
        let image = try await runtime.generateImage(prompt: "A red circle", options: Self.small())
        let after = try await runtime.generate("Name a colour.", options: options)
        #expect(before.tokensUsed > 0 && after.tokensUsed > 0 && image.width == 64)
        let maps = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readToEnd() ?? Data(), as: UTF8.self)
        #expect(maps.contains("libllama.so") && maps.contains("libstable-diffusion.so"))
        await runtime.unloadModel()
    }
}
