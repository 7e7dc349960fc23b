import Foundation

extension RunAnywhereRuntime {
    /// Whether the current diffusion model is loaded.
    package var isDiffusionModelLoaded: Bool { current[.imageGeneration].map { cache[$0.info.id]?.engine != nil } ?? false }

    /// The current diffusion model.
    package var currentDiffusionModel: ModelInfo? { current[.imageGeneration]?.info }

    /// Loads the diffusion model at `modelPath` (a file, or a model's folder) and makes it the one
    /// ``generateImage(prompt:options:)`` uses, replacing the loaded one (the spec's Appendix B
    /// signature). A catalog model with that id and path is used as it is; any other path is
    /// loaded as a model of its own with that id and name.
    package func loadDiffusionModel(modelPath: String, modelId: String, modelName: String, configuration: DiffusionConfiguration? = nil)
        async throws
    {
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

    /// Loads the diffusion model `model` (a catalog entry, downloaded) into the model cache, with
    /// the memory budget and lifecycle every model has, and makes it the current one (kept until
    /// it is replaced or unloaded); the previous current one is unloaded first. Loading the
    /// current model again with the same configuration does nothing.
    package func loadDiffusionModel(_ model: ModelInfo, configuration: DiffusionConfiguration? = nil) async throws {
        let configuration = try Self.check(model, configuration)
        await dropCurrent(.imageGeneration, keeping: model.id)  // free its memory before the next model takes some
        release(try await acquire(model, as: .imageGeneration, options: ModelLoadOptions(), keepAlive: .forever, diffusion: configuration))
        current[.imageGeneration] = CurrentModel(info: model, options: ModelLoadOptions(), diffusion: configuration)
    }

    /// Unloads the current diffusion model, after a generation in progress ends.
    package func unloadDiffusionModel() async {
        await dropCurrent(.imageGeneration)
    }

    /// Generates an image of `prompt` (or of `options.prompt` when `prompt` is empty) with the
    /// loaded model. Cancelling the calling task, or ``cancelImageGeneration()``, stops the engine
    /// at its next step.
    package func generateImage(prompt: String, options: DiffusionGenerationOptions? = nil) async throws -> DiffusionResult {
        try await Self.image(from: generateImageStream(prompt: prompt, options: options))
    }

    /// Starts generating an image with the current model and streams its progress: one value
    /// after each denoising step (step n of N, elapsed time, time to go), then one carrying the
    /// image. Bad options, an empty prompt, no current model or (with the model loaded) a size
    /// the memory cannot hold throw here, before any work. Cancelling the iterating task,
    /// dropping the stream, or ``cancelImageGeneration()`` stops the engine at its next step.
    package func generateImageStream(prompt: String, options: DiffusionGenerationOptions? = nil) async throws -> AsyncThrowingStream<
        DiffusionProgress, any Error
    > {
        guard let current = current[.imageGeneration], let configuration = current.diffusion else {
            throw SDKError(
                .notInitialized, "No diffusion model is loaded; call loadDiffusionModel(modelPath:modelId:modelName:configuration:) first")
        }
        if case .imageGeneration(let service)? = cache[current.info.id]?.engine {
            _ = try prepare(prompt, options, service: service, configuration: configuration)
        }
        return try await generateImageStream(prompt: prompt, options: options, model: current.info, configuration: configuration)
    }

    /// Generates an image with `model`, loading it into the model cache first (with
    /// `configuration`) when it is not loaded, or loaded otherwise; the model is lent to the
    /// generation until it ends, so no other request unloads it meanwhile. The options are
    /// checked before anything loads; what only the model can say (its samplers, the memory a
    /// size needs) ends the stream with an error.
    public func generateImageStream(
        prompt: String, options: DiffusionGenerationOptions?, model: ModelInfo, configuration: DiffusionConfiguration? = nil
    ) async throws -> AsyncThrowingStream<DiffusionProgress, any Error> {
        let configuration = try Self.check(model, configuration)
        try options?.validate()
        guard !(prompt.isEmpty ? options?.prompt ?? "" : prompt).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw SDKError(.emptyInput, "The image prompt is empty")
        }
        // Its steps, then its image; cancelling the task raises the engine's flag (draw's handler).
        return .fed { continuation in
            let result = try await self.loadAndDraw(
                prompt, options, model: model, configuration: configuration, cancellation: CancellationFlag(), continuation: continuation)
            continuation.yield(
                DiffusionProgress(
                    progress: 1, currentStep: result.steps, totalSteps: result.steps, stage: .complete,
                    elapsedMs: Double(result.generationTimeMs), etaMs: nil, result: result))
        }
    }

    /// Stops the image generations in progress, if any, at their next step.
    package func cancelImageGeneration() {
        imageGenerationCancellations.values.forEach { $0.cancel() }
    }

    /// The image at the end of `progress`, a stream from ``generateImageStream(prompt:options:)``;
    /// `CancellationError` when the stream ends without one.
    package static func image(from progress: AsyncThrowingStream<DiffusionProgress, any Error>) async throws -> DiffusionResult {
        for try await step in progress {
            if let result = step.result { return result }
        }
        throw CancellationError()  // the stream ends without an image only when cancelled
    }

    /// The configuration to load `model` with (`configuration`, or the defaults), after checking
    /// that it is an image-generation model and the threads are in range.
    private static func check(_ model: ModelInfo, _ configuration: DiffusionConfiguration?) throws -> DiffusionConfiguration {
        guard model.category == .imageGeneration else {
            throw SDKError(.modelIncompatible, "Model '\(model.id)' is \(model.category.aModel), not an image-generation model")
        }
        let configuration = configuration ?? DiffusionConfiguration(modelId: model.id)
        try ModelLoadOptions.checkThreads(configuration.threads)
        return configuration
    }

    /// The request `prompt` and `options` make for the model `service` loaded with
    /// `configuration` (its family's defaults for options not given, a seed picked for -1),
    /// after checking both and the memory it needs.
    private func prepare(
        _ prompt: String, _ options: DiffusionGenerationOptions?, service: any DiffusionService,
        configuration loaded: DiffusionConfiguration
    ) throws -> DiffusionRequest {
        var options = options ?? DiffusionGenerationOptions.defaults(for: loaded.modelVariant)
        let text = (prompt.isEmpty ? options.prompt : prompt).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw SDKError(.emptyInput, "The image prompt is empty") }
        options.prompt = text
        try options.validate()
        try service.check(options)
        let needed = service.workingMemory(width: options.width, height: options.height)
        let free = frameworks.hardwareDetector.availableMemory()
        let available = configuration.modelMemoryBudget.map { free > 0 ? min(free, $0) : $0 } ?? free  // a budget set bounds it too
        if available > 0, needed > available {
            throw SDKError(
                .insufficientMemory,
                "A \(options.width)×\(options.height) image needs about \(needed >> 20) MiB more memory but only \(available >> 20) MiB is available; choose a smaller size\(loaded.reduceMemory ? "" : ", or load the model with reduceMemory")"
            )
        }
        if options.seed < 0 { options.seed = Int64.random(in: 0...Int64(Int32.max)) }
        return DiffusionRequest(prompt: text, options: options)
    }

    /// Leases `model` (loading it with `configuration` if needed) and draws in the model's turn:
    /// one generation at a time per model, as the engine's context is not shared. The lease keeps
    /// the model loaded as it is until the image is drawn; a request for another configuration
    /// reloads it once no request holds it.
    private func loadAndDraw(
        _ prompt: String, _ options: DiffusionGenerationOptions?, model: ModelInfo, configuration: DiffusionConfiguration,
        cancellation: CancellationFlag, continuation: AsyncThrowingStream<DiffusionProgress, any Error>.Continuation
    ) async throws -> DiffusionResult {
        let lease = try await acquire(
            model, as: .imageGeneration, options: ModelLoadOptions(), keepAlive: nil, diffusion: configuration, taking: \.imageGeneration)
        defer { release(lease) }
        let service = lease.engine
        return try await inTurn(on: model.id) {
            let request = try prepare(prompt, options, service: service, configuration: configuration)
            return try await draw(request, with: service, model: lease.info, cancellation: cancellation, continuation: continuation)
        }
    }

    /// Draws one image with `service` (model `model`), reporting each step to `continuation`;
    /// the caller holds the model's lease and its turn.
    private func draw(
        _ request: DiffusionRequest, with service: any DiffusionService, model: ModelInfo, cancellation: CancellationFlag,
        continuation: AsyncThrowingStream<DiffusionProgress, any Error>.Continuation
    ) async throws -> DiffusionResult {
        let id = UUID()
        imageGenerationCancellations[id] = cancellation
        defer { imageGenerationCancellations[id] = nil }
        let started = ContinuousClock.now
        let image = try await withTaskCancellationHandler {
            try await runBlocking {
                try service.generate(request, cancellation: cancellation) { done, total in
                    let elapsed = (ContinuousClock.now - started).inSeconds * 1000
                    continuation.yield(
                        DiffusionProgress(
                            progress: Float(done) / Float(max(total, 1)), currentStep: done, totalSteps: total, stage: .denoising,
                            elapsedMs: elapsed, etaMs: done > 0 ? elapsed / Double(done) * Double(total - done) : nil
                        ))
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return DiffusionResult(
            imageData: image.png, width: image.width, height: image.height, seedUsed: request.options.seed, steps: request.options.steps,
            generationTimeMs: Int64((ContinuousClock.now - started).inSeconds * 1000), modelId: model.id
        )
    }
}

extension RunAnywhereRuntime {
    /// The image-generation model to use when none is named: the first downloaded one, a real
    /// one before the fixture; ``ErrorCode/modelNotDownloaded`` when none is.
    public nonisolated func defaultDiffusionModel() throws -> ModelInfo {
        let candidates = catalog.all().filter { $0.category == .imageGeneration && $0.isDownloaded }
        guard let model = candidates.first(where: { !$0.isTestFixture }) ?? candidates.first else {
            throw SDKError(
                .modelNotDownloaded,
                "No image-generation model is downloaded: run `runanywhere models pull stable-diffusion-v1-5-q8-0`, or scripts/setup --tests for the fixture"
            )
        }
        return model
    }
}
