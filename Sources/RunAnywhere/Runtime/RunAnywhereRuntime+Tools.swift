import Foundation

extension RunAnywhereRuntime {
    /// Answers `prompt` with the current model, offering it `tools`: the result's
    /// ``LLMGenerationResult/toolCalls`` are the calls it made (stop reason
    /// ``LLMStopReason/toolCalls``), each with arguments that match its tool's schema (the call is
    /// grammar-constrained), or, with ``ToolChoice/auto``, it answers in text instead. Run the
    /// tools, then go on with ``generateWithTools(continuing:tools:toolChoice:options:)``. A model
    /// that runs out of tokens in the middle of a call is ``ErrorCode/generationFailed`` saying so.
    package func generateWithTools(
        _ prompt: String, tools: [Tool], toolChoice: ToolChoice = .auto, context: Context? = nil, options: LLMGenerationOptions? = nil
    ) async throws -> LLMGenerationResult {
        let options = Self.offering(tools, toolChoice, options ?? current[.language]?.info.generationOptions)
        return try checkToolCalls(try await generate(prompt, context: context, options: options), options: options)
    }

    /// Goes on with a conversation after tool calls: `context` ends with the user's message, the
    /// assistant's message with its calls (``Message/toolCalls``), and a ``MessageRole/tool``
    /// message with each call's result (``Message/toolResult(_:for:)``). The model reads the
    /// results and answers, or calls tools again.
    package func generateWithTools(
        continuing context: Context, tools: [Tool], toolChoice: ToolChoice = .auto, options: LLMGenerationOptions? = nil
    ) async throws -> LLMGenerationResult {
        let options = Self.offering(tools, toolChoice, options ?? current[.language]?.info.generationOptions)
        return try checkToolCalls(try await generate(continuing: context, options: options), options: options)
    }

    private static func offering(_ tools: [Tool], _ choice: ToolChoice, _ options: LLMGenerationOptions?) -> LLMGenerationOptions {
        var options = options ?? LLMGenerationOptions()
        options.tools = tools
        options.toolChoice = choice
        return options
    }

    /// `result`, unless the model ran out of tokens in the middle of a call.
    private func checkToolCalls(_ result: LLMGenerationResult, options: LLMGenerationOptions) throws -> LLMGenerationResult {
        guard result.stopReason == .length, result.toolCalls.isEmpty, options.offersTools else { return result }
        // A call's markup is never text: an empty answer cut by the limit was an unfinished call.
        if options.toolChoice != .auto || result.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw SDKError.llm(
                .generationFailed, "The model used all \(options.maxTokens) tokens before its tool call was complete; raise maxTokens")
        }
        return result
    }
}
