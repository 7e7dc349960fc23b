import Foundation

extension RunAnywhereRuntime {
    /// Loads a vision-language model (a language GGUF and its vision projector, `mmproj`, in the
    /// model's folder) and makes it the current one for ``processImage(_:prompt:options:)``,
    /// replacing the previous one. It lives in the same model cache as language models, so a
    /// chat request naming it shares the loaded copy.
    package func loadVLMModel(_ model: ModelInfo, options: ModelLoadOptions = ModelLoadOptions()) async throws {
        let model = try catalog.model(id: model.id)
        guard model.projectorFile != nil else {
            throw SDKError(
                .modelIncompatible,
                model.isDownloaded
                    ? "Model '\(model.id)' has no vision projector: its folder needs an mmproj GGUF beside the language model"
                    : "Model '\(model.id)' is not downloaded (run `runanywhere models pull \(model.id)`)")
        }
        await dropCurrent(.vision, keeping: model.id)
        release(try await acquire(model, options: options, keepAlive: .forever))
        current[.vision] = CurrentModel(info: model, options: options)
    }

    /// Unloads the current vision-language model once no request uses it.
    package func unloadVLMModel() async {
        await dropCurrent(.vision)
    }

    /// Whether a vision-language model is loaded.
    package var isVLMModelLoaded: Bool { current[.vision].map { cache[$0.info.id]?.service != nil } ?? false }

    /// The current vision-language model.
    package var currentVLMModel: ModelInfo? { current[.vision]?.info }

    /// Describes `image` as `prompt` asks, with the current vision-language model, and returns
    /// the answer when complete. Cancelling the calling task stops the engine.
    package func processImage(_ image: VLMImage, prompt: String, options: LLMGenerationOptions? = nil) async throws -> VLMResult {
        let streaming = try await processImageStream(image, prompt: prompt, options: options)
        return try await withTaskCancellationHandler {
            for try await _ in streaming.stream {}  // read to its end: a stream dropped unread cancels the generation
            return try await streaming.result.value
        } onCancel: {
            streaming.result.cancel()
        }
    }

    /// The spec's form: at most `maxTokens` tokens at `temperature`.
    package func processImage(_ image: VLMImage, prompt: String, maxTokens: Int32, temperature: Float) async throws -> VLMResult {
        try await processImage(image, prompt: prompt, options: LLMGenerationOptions(maxTokens: Int(maxTokens), temperature: temperature))
    }

    /// Starts describing `image`, streaming the answer. Returns once the engine has taken the
    /// request, so that a bad image, no loaded model or a full queue throw here.
    package func processImageStream(_ image: VLMImage, prompt: String, options: LLMGenerationOptions? = nil) async throws
        -> VLMStreamingResult
    {
        guard let current = current[.vision] else {
            throw SDKError.llm(.notInitialized, "No vision-language model is loaded; call loadVLMModel(_:) first")
        }
        let options = options ?? current.info.generationOptions
        try options.validate()
        let admitted = try await admit(
            try Self.turn(prompt, images: [image]), context: nil, options: options, model: current.info, loadOptions: current.options,
            keepAlive: nil
        )
        let projection = LLMStreamingResult.Projection(thinkingPattern: admitted.lease.info.thinkingPattern ?? .defaultPattern)
        let text = try generation(projection.project) { emit in track { try await self.drive(admitted, emit: emit) } }
        let result = Task {
            try await withTaskCancellationHandler {
                VLMResult(try await text.task.value)
            } onCancel: {
                text.task.cancel()
            }
        }
        return VLMStreamingResult(stream: text.stream, result: result)
    }
}

extension RunAnywhereRuntime {
    /// The vision-language model to use when none is named: the first downloaded one with a
    /// projector, a real one before the fixture; ``ErrorCode/modelNotDownloaded`` when none is.
    public nonisolated func defaultVisionModel() throws -> ModelInfo {
        let candidates = catalog.all().filter { $0.category == .multimodal && $0.projectorFile != nil }
        guard let model = candidates.first(where: { !$0.isTestFixture }) ?? candidates.first else {
            throw SDKError(
                .modelNotDownloaded,
                "No vision-language model is downloaded: run `runanywhere models pull smolvlm-256m-instruct`, or scripts/setup --tests for the fixture"
            )
        }
        return model
    }
}
