extension RunAnywhere {
    /// Loads a vision-language model; the SDK finds its language GGUF and its projector (mmproj).
    public static func loadVLMModel(_ model: ModelInfo) async throws { try await runtime().loadVLMModel(model) }
    /// Unloads the vision-language model.
    public static func unloadVLMModel() async { await (try? runtime())?.unloadVLMModel() }
    /// Whether a vision-language model is loaded.
    public static var isVLMModelLoaded: Bool { get async { (try? await runtime().isVLMModelLoaded) ?? false } }
    /// Describes an image as `prompt` asks.
    public static func processImage(_ image: VLMImage, prompt: String, maxTokens: Int32, temperature: Float) async throws -> VLMResult {
        try await runtime().processImage(image, prompt: prompt, maxTokens: maxTokens, temperature: temperature)
    }
    /// Describes an image as `prompt` asks, with generation options.
    public static func processImage(_ image: VLMImage, prompt: String, options: LLMGenerationOptions? = nil) async throws -> VLMResult {
        try await runtime().processImage(image, prompt: prompt, options: options)
    }
    /// Starts describing an image, streaming the answer.
    public static func processImageStream(_ image: VLMImage, prompt: String, maxTokens: Int32, temperature: Float) async throws
        -> VLMStreamingResult
    {
        try await runtime().processImageStream(
            image, prompt: prompt, options: LLMGenerationOptions(maxTokens: Int(maxTokens), temperature: temperature))
    }
}
