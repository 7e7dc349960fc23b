extension RunAnywhere {
    /// Generates JSON that `schema` accepts with the loaded model (its sampler constrained to the
    /// schema, so the JSON is valid by construction) and decodes it as `type`. A model that runs
    /// out of tokens before the JSON is complete is ``ErrorCode/generationFailed`` saying so
    /// (raise `maxTokens`); a schema the converter does not support is ``ErrorCode/invalidInput``.
    public static func generateStructured<T: Decodable & Sendable>(
        _ schema: JSONValue, as type: T.Type, prompt: String, options: LLMGenerationOptions? = nil
    ) async throws -> StructuredOutputResult<T> {
        try await runtime().generateStructured(schema, as: type, prompt: prompt, options: options)
    }

    /// Generates a `T` (constrained to ``Generatable/jsonSchema``) with the loaded model.
    public static func generateStructured<T: Generatable>(_ type: T.Type, prompt: String, options: LLMGenerationOptions? = nil)
        async throws -> StructuredOutputResult<T>
    {
        try await runtime().generateStructured(type, prompt: prompt, options: options)
    }

    /// Answers `prompt` with the loaded model, offering it `tools`: the result's
    /// ``LLMGenerationResult/toolCalls`` are the calls it made (stop reason
    /// ``LLMStopReason/toolCalls``), each with arguments that match its tool's schema (the call is
    /// grammar-constrained), or, with ``ToolChoice/auto``, it answers in text instead. Run the
    /// tools, then go on with ``generateWithTools(continuing:tools:toolChoice:options:)``. A model
    /// that runs out of tokens in the middle of a call is ``ErrorCode/generationFailed`` saying so.
    public static func generateWithTools(
        _ prompt: String, tools: [Tool], toolChoice: ToolChoice = .auto, context: Context? = nil, options: LLMGenerationOptions? = nil
    ) async throws -> LLMGenerationResult {
        try await runtime().generateWithTools(prompt, tools: tools, toolChoice: toolChoice, context: context, options: options)
    }

    /// Goes on with a conversation after tool calls: `context` ends with the user's message, the
    /// assistant's message with its calls (``Message/toolCalls``), and a ``MessageRole/tool``
    /// message with each call's result (``Message/toolResult(_:for:)``). The model reads the
    /// results and answers, or calls tools again.
    public static func generateWithTools(
        continuing context: Context, tools: [Tool], toolChoice: ToolChoice = .auto, options: LLMGenerationOptions? = nil
    ) async throws -> LLMGenerationResult {
        try await runtime().generateWithTools(continuing: context, tools: tools, toolChoice: toolChoice, options: options)
    }
}

extension RunAnywhere {
    /// Answers `prompt` with the loaded model, running the tools it calls: each round's calls run
    /// in order through `execute`, whose text goes back to the model, until it answers in text
    /// (an MCP server's tools run this way through `MCPToolbox` in RunAnywhereMCP). `toolChoice`
    /// holds for the first round and later rounds are ``ToolChoice/auto``; after `maxRounds` rounds
    /// of calls the tools are withdrawn, so the model answers with what it has. An error `execute`
    /// throws ends the answer with it; give a tool's own failure back as text instead, which the
    /// model can read and work around.
    public static func generateWithTools(
        _ prompt: String, tools: [Tool], toolChoice: ToolChoice = .auto, context: Context? = nil, options: LLMGenerationOptions? = nil,
        maxRounds: Int = SDKConstants.Limits.toolRounds, execute: @escaping @Sendable (ToolCall) async throws -> String
    ) async throws -> ToolRunResult {
        try await runtime().generateWithTools(
            prompt, tools: tools, toolChoice: toolChoice, context: context, options: options, maxRounds: maxRounds, execute: execute)
    }
}
