/// The tools a ``ChatService``'s model may call, and how each call runs: each answer offers
/// them, runs the calls the model makes through `execute` and gives their text back to the model
/// until it answers in text, as
/// ``RunAnywhere/generateWithTools(_:tools:toolChoice:context:options:maxRounds:execute:)`` does.
/// The saved answer keeps each call with its result (``ChatMessage/toolSteps``), the text of
/// every round, and analytics that count every round's tokens; the conversation's later
/// answers read the calls and their results.
public struct ChatTools: Sendable {
    /// The tools offered.
    public let tools: [Tool]
    /// How the model may call them in each answer's first round; later rounds are ``ToolChoice/auto``.
    public let toolChoice: ToolChoice
    /// Rounds of calls one answer may take before the tools are withdrawn.
    public let maxRounds: Int
    /// Runs a call, giving back the text the model reads; what it throws ends the answer with it.
    public let execute: @Sendable (ToolCall) async throws -> String

    /// Tools for a chat.
    public init(
        _ tools: [Tool], toolChoice: ToolChoice = .auto, maxRounds: Int = SDKConstants.Limits.toolRounds,
        execute: @escaping @Sendable (ToolCall) async throws -> String
    ) {
        self.tools = tools
        self.toolChoice = toolChoice
        self.maxRounds = maxRounds
        self.execute = execute
    }
}
