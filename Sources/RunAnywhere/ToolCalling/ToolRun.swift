/// A tool call the model made, run: the call and the text its result gave back to the model.
public struct ToolRunStep: Codable, Sendable, Equatable {
    /// The call, with its arguments.
    public let call: ToolCall
    /// What running it gave back to the model.
    public let output: String
    /// The round of calls it was made in, from 0 (a round's calls come from one generation);
    /// nil in steps saved before rounds were recorded.
    public let round: Int?

    /// Creates a step.
    public init(call: ToolCall, output: String, round: Int? = nil) {
        self.call = call
        self.output = output
        self.round = round
    }
}

/// An answer made with tools run as the model called them: the answer and every call on the way.
public struct ToolRunResult: Sendable {
    /// The last generation, the answer in text (its stop reason is never ``LLMStopReason/toolCalls``).
    public let result: LLMGenerationResult
    /// Each call the model made, with what it gave back, in the order they ran.
    public let steps: [ToolRunStep]
    /// The conversation: the context given, the prompt, each call with its result, and the
    /// answer; go on from it with the next message.
    public let context: Context
}

extension RunAnywhereRuntime {
    /// Answers `prompt` with the current model, running the tools it calls: each round's calls run
    /// in order through `execute`, whose text goes back to the model, until it answers in text.
    /// `toolChoice` holds for the first round, later rounds are ``ToolChoice/auto``, and after
    /// `maxRounds` rounds of calls the tools are withdrawn, so the model answers with what it has.
    /// An error `execute` throws ends the answer with it; a tool's own failure is better given back
    /// to the model as text, which it can read and work around.
    package func generateWithTools(
        _ prompt: String, tools: [Tool], toolChoice: ToolChoice = .auto, context: Context? = nil, options: LLMGenerationOptions? = nil,
        maxRounds: Int = SDKConstants.Limits.toolRounds, execute: @escaping @Sendable (ToolCall) async throws -> String
    ) async throws -> ToolRunResult {
        guard maxRounds >= 0 else { throw SDKError.llm(.invalidInput, "maxRounds must be 0 or more, not \(maxRounds)") }
        let start = context ?? Context()
        var messages = start.messages + [Message(role: .user, content: prompt)]
        var steps: [ToolRunStep] = []
        var (choice, round) = (toolChoice, 0)
        while true {
            let conversation = Context(
                systemPrompt: start.systemPrompt, messages: messages, maxMessages: start.maxMessages, metadata: start.metadata)
            let result = try await generateWithTools(
                continuing: conversation, tools: tools, toolChoice: round < maxRounds ? choice : .none, options: options)
            messages.append(Message(role: .assistant, content: result.text, toolCalls: result.toolCalls))
            guard !result.toolCalls.isEmpty else {
                return ToolRunResult(
                    result: result, steps: steps,
                    context: Context(
                        systemPrompt: start.systemPrompt, messages: messages, maxMessages: start.maxMessages, metadata: start.metadata))
            }
            for call in result.toolCalls {
                try Task.checkCancellation()
                let output = try await execute(call)
                steps.append(ToolRunStep(call: call, output: output, round: round))
                messages.append(.toolResult(output, for: call))
            }
            (choice, round) = (.auto, round + 1)
        }
    }
}
