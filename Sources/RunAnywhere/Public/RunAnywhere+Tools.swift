extension RunAnywhere {
    /// Answers `prompt` offering the model `tools`; its calls are in the result's `toolCalls`.
    public static func generateWithTools(
        _ prompt: String, tools: [Tool], toolChoice: ToolChoice = .auto, context: Context? = nil, options: LLMGenerationOptions? = nil
    ) async throws -> LLMGenerationResult {
        try await runtime().generateWithTools(prompt, tools: tools, toolChoice: toolChoice, context: context, options: options)
    }

    /// Goes on with a conversation after the tool results (``MessageRole/tool`` messages at its end).
    public static func generateWithTools(
        continuing context: Context, tools: [Tool], toolChoice: ToolChoice = .auto, options: LLMGenerationOptions? = nil
    ) async throws -> LLMGenerationResult {
        try await runtime().generateWithTools(continuing: context, tools: tools, toolChoice: toolChoice, options: options)
    }
}
