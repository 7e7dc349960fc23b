import Foundation

extension RunAnywhereRuntime {
    /// Whether a diffusion model is loaded.
    public var isDiffusionModelLoaded: Bool { loadedDiffusion != nil }

    /// The loaded diffusion model.
    public var currentDiffusionModel: ModelInfo? { loadedDiffusion?.info }

    /// Loads the diffusion model at `modelPath` (a file, or a model's folder) and makes it the one
    /// ``generateImage(prompt:options:)`` uses, replacing the loaded one (the spec's Appendix B
    /// signature). A catalog model with that id and path is used as it is; any other path is
    /// loaded as a model of its own with that id and name.
    public func loadDiffusionModel(modelPath: String, modelId: String, modelName: String, configuration: DiffusionConfiguration? = nil) async throws {
        let url = URL(fileURLWithPath: modelPath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw SDKError(.fileNotFound, "No diffusion model at \(modelPath)")
        }
        let model: ModelInfo
        if let known = try? catalog.model(id: modelId), known.localPath?.standardizedFileURL == url.standardizedFileURL {
            model = known
        } else {
            model = ModelInfo(
                id: modelId, name: modelName, category: .imageGeneration, format: ModelFormat.detect(fromPath: url.lastPathComponent),
                framework: configuration?.preferredFramework ?? .stableDiffusionCpp, localPath: url, source: .local
            )
        }
        try await loadDiffusionModel(model, configuration: configuration)
    }

    /// Loads the diffusion model `model` (a catalog entry, downloaded) and makes it the current one.
    public func loadDiffusionModel(_ model: ModelInfo, configuration: DiffusionConfiguration? = nil) async throws {
        guard model.category == .imageGeneration else {
            throw SDKError(.modelIncompatible, "Model '\(model.id)' is a \(model.category.rawValue) model, not an image-generation model")
        }
        let configuration = configuration ?? DiffusionConfiguration(modelId: model.id)
        try await diffusionLock.withLock {
            if let loaded = loadedDiffusion, loaded.info.id == model.id, loaded.info.localPath == model.localPath, loaded.configuration == configuration {
                return
            }
            let adapter = try adapter(for: model).adapter
            if let previous = loadedDiffusion?.info.id { events.publish(.modelUnloaded(modelId: previous)) }
            loadedDiffusion = nil  // free its memory before the next model takes some
            let service = try await adapter.loadDiffusionModel(model, configuration: configuration, logger: logger)
            loadedDiffusion = (model, configuration, service)
            events.publish(.modelLoaded(modelId: model.id))
        }
    }

    /// Unloads the diffusion model, after a generation in progress ends.
    public func unloadDiffusionModel() async {
        await diffusionLock.withLock {
            if let id = loadedDiffusion?.info.id { events.publish(.modelUnloaded(modelId: id)) }
            loadedDiffusion = nil
        }
    }

    /// Generates an image of `prompt` (or of `options.prompt` when `prompt` is empty) with the
    /// loaded model. Cancelling the calling task, or ``cancelImageGeneration()``, stops the engine
    /// at its next step.
    public func generateImage(prompt: String, options: DiffusionGenerationOptions? = nil) async throws -> DiffusionResult {
        let progress = try await generateImageStream(prompt: prompt, options: options)
        for try await step in progress {
            if let result = step.result { return result }
        }
        throw CancellationError()  // the stream ends without an image only when cancelled
    }

    /// Starts generating an image and streams its progress: one value after each denoising step
    /// (step n of N, elapsed time, time to go), then one carrying the image. Bad options, an
    /// empty prompt, no loaded model or a size the memory cannot hold throw here, before any
    /// work. Cancelling the iterating task, dropping the stream, or ``cancelImageGeneration()``
    /// stops the engine at its next step.
    public func generateImageStream(prompt: String, options: DiffusionGenerationOptions? = nil) async throws -> AsyncThrowingStream<DiffusionProgress, any Error> {
        guard let (model, loadConfiguration, service) = loadedDiffusion else {
            throw SDKError(.notInitialized, "No diffusion model is loaded; call loadDiffusionModel(modelPath:modelId:modelName:configuration:) first")
        }
        var options = options ?? DiffusionGenerationOptions.defaults(for: loadConfiguration.modelVariant)
        let text = (prompt.isEmpty ? options.prompt : prompt).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw SDKError(.emptyInput, "The image prompt is empty") }
        try options.validate()
        try service.check(options)
        let needed = service.workingMemory(width: options.width, height: options.height)
        let free = HardwareProfile.availableMemory()
        let available = configuration.modelMemoryBudget.map { free > 0 ? min(free, $0) : $0 } ?? free  // a budget set bounds it too
        if available > 0, needed > available {
            throw SDKError(.insufficientMemory, "A \(options.width)×\(options.height) image needs about \(needed >> 20) MiB more memory but only \(available >> 20) MiB is available; choose a smaller size\(loadConfiguration.reduceMemory ? "" : ", or load the model with reduceMemory")")
        }
        if options.seed < 0 { options.seed = Int64.random(in: 0...Int64(Int32.max)) }
        options.prompt = text
        let request = DiffusionRequest(prompt: text, options: options)
        let cancellation = CancellationFlag()
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DiffusionProgress.self)
        let task = Task {
            do {
                let result = try await draw(request, model: model, service: service, cancellation: cancellation, continuation: continuation)
                continuation.yield(DiffusionProgress(progress: 1, currentStep: result.steps, totalSteps: result.steps, stage: .complete, elapsedMs: Double(result.generationTimeMs), etaMs: nil, result: result))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination {
                cancellation.cancel()
                task.cancel()
            }
        }
        return stream
    }

    /// Stops the image generation in progress, if any, at its next step.
    public func cancelImageGeneration() {
        imageGenerationCancellation?.cancel()
    }

    /// Runs one generation under the diffusion lock, reporting each step to `continuation`.
    private func draw(
        _ request: DiffusionRequest, model: ModelInfo, service: any DiffusionService, cancellation: CancellationFlag,
        continuation: AsyncThrowingStream<DiffusionProgress, any Error>.Continuation
    ) async throws -> DiffusionResult {
        try await diffusionLock.withLock {
            guard loadedDiffusion?.service === service else {
                throw SDKError(.notInitialized, "The diffusion model '\(model.id)' was unloaded before the generation started")
            }
            imageGenerationCancellation = cancellation
            defer { imageGenerationCancellation = nil }
            let started = ContinuousClock.now
            let image = try await withTaskCancellationHandler {
                try await runBlocking {
                    try service.generate(request, cancellation: cancellation) { done, total in
                        let elapsed = (ContinuousClock.now - started).inSeconds * 1000
                        continuation.yield(DiffusionProgress(
                            progress: Float(done) / Float(max(total, 1)), currentStep: done, totalSteps: total, stage: .denoising,
                            elapsedMs: elapsed, etaMs: done > 0 ? elapsed / Double(done) * Double(total - done) : nil
                        ))
                    }
                }
            } onCancel: {
                cancellation.cancel()
            }
            let milliseconds = Int64((ContinuousClock.now - started).inSeconds * 1000)
            return DiffusionResult(
                imageData: image.png, width: image.width, height: image.height, seedUsed: request.options.seed, steps: request.options.steps,
                generationTimeMs: milliseconds, modelId: model.id
            )
        }
    }
}

extension RunAnywhereRuntime {
    /// The image-generation model to use when none is named: the first downloaded one, a real
    /// one before the fixture; ``ErrorCode/modelNotDownloaded`` when none is.
    public nonisolated func defaultDiffusionModel() throws -> ModelInfo {
        let candidates = catalog.all().filter { $0.category == .imageGeneration && $0.isDownloaded }
        guard let model = candidates.first(where: { $0.id != SDKConstants.Models.diffusionFixtureID }) ?? candidates.first else {
            throw SDKError(.modelNotDownloaded, "No image-generation model is downloaded: run `runanywhere models pull stable-diffusion-v1-5-q8-0`, or scripts/setup for the fixture")
        }
        return model
    }
}
