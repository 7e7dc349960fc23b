extension RunAnywhere {
    /// Loads the diffusion model at `modelPath` (the spec's Appendix B signature).
    public static func loadDiffusionModel(
        modelPath: String, modelId: String, modelName: String, configuration: DiffusionConfiguration? = nil
    ) async throws {
        try await runtime().loadDiffusionModel(modelPath: modelPath, modelId: modelId, modelName: modelName, configuration: configuration)
    }
    /// Loads a downloaded catalog diffusion model.
    public static func loadDiffusionModel(_ model: ModelInfo, configuration: DiffusionConfiguration? = nil) async throws {
        try await runtime().loadDiffusionModel(model, configuration: configuration)
    }
    /// Unloads the diffusion model.
    public static func unloadDiffusionModel() async throws { try await runtime().unloadDiffusionModel() }
    /// Whether a diffusion model is loaded.
    public static var isDiffusionModelLoaded: Bool { get async { (try? await runtime().isDiffusionModelLoaded) ?? false } }
    /// Generates an image of `prompt`.
    public static func generateImage(prompt: String, options: DiffusionGenerationOptions? = nil) async throws -> DiffusionResult {
        try await runtime().generateImage(prompt: prompt, options: options)
    }
    /// Starts generating an image of `prompt`, streaming its progress and then the image.
    public static func generateImageStream(prompt: String, options: DiffusionGenerationOptions? = nil) async throws -> AsyncThrowingStream<
        DiffusionProgress, any Error
    > {
        try await runtime().generateImageStream(prompt: prompt, options: options)
    }
    /// Stops the image generation in progress at its next step.
    public static func cancelImageGeneration() async throws { try await runtime().cancelImageGeneration() }
}
