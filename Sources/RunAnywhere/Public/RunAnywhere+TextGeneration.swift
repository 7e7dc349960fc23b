extension RunAnywhere {
    /// Generates an answer to `prompt` with the loaded model.
    public static func generate(_ prompt: String, options: LLMGenerationOptions? = nil) async throws -> LLMGenerationResult {
        try await runtime().generate(prompt, context: nil, options: options)
    }

    /// Generates the next assistant message of a conversation (`prompt` is the new user message).
    public static func generate(_ prompt: String, context: Context?, options: LLMGenerationOptions? = nil) async throws
        -> LLMGenerationResult
    {
        try await runtime().generate(prompt, context: context, options: options)
    }

    /// Starts generating an answer, streaming its text.
    public static func generateStream(_ prompt: String, options: LLMGenerationOptions? = nil) async throws -> LLMStreamingResult {
        try await runtime().generateStream(prompt, context: nil, options: options)
    }

    /// Starts generating the next assistant message of a conversation, streaming its text.
    public static func generateStream(_ prompt: String, context: Context?, options: LLMGenerationOptions? = nil) async throws
        -> LLMStreamingResult
    {
        try await runtime().generateStream(prompt, context: context, options: options)
    }

    /// Starts generating the next assistant message of a conversation (`context` may be nil)
    /// with the loaded model: its typed events, the reasoning, the answer's text and the tool
    /// calls apart, ending with `.completed(result)`. Cancelling the iteration stops the engine.
    public static func generateEvents(
        _ prompt: String, context: Context? = nil, options: LLMGenerationOptions? = nil
    ) async throws -> GenerationEvents {
        try await runtime().generateEvents(prompt, context: context, options: options)
    }

    /// Stops every running generation within one decode step.
    public static func cancelGeneration() async {
        await (try? runtime())?.cancelGeneration()
    }
}
