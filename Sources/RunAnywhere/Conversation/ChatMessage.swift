import Foundation

/// A message of a saved chat, with the measurements of the answer it is (the sample app's
/// message type; `toSDKMessages()` turns it into the ``Message``s that ``Context`` takes).
public struct ChatMessage: Codable, Sendable, Identifiable, Equatable {
    public let id: UUID
    /// Who wrote the message.
    public let role: MessageRole
    /// The text; for an assistant message, the answer without its thinking.
    public let content: String
    /// The reasoning between thinking tags, if any.
    public let thinkingContent: String?
    /// When the message was written.
    public let timestamp: Date
    /// Measurements of an assistant message (also of stopped and failed ones).
    public let analytics: MessageAnalytics?
    /// The model that wrote an assistant message.
    public let modelInfo: MessageModelInfo?
    /// Why generation failed, for a failed assistant message. Additive to the spec.
    public let error: String?
    /// For an answer from documents, the collection and passages it was given (absent in
    /// conversations saved before it existed). Additive to the spec.
    public let grounding: ChatGrounding?
    /// For an answer made with tools (``ChatService/tools``), each call the model made with what
    /// it gave back, in order (absent otherwise); the answer's `content` is the text of every
    /// round, and a later prompt reads the calls and results before it. Additive to the spec.
    public let toolSteps: [ToolRunStep]?

    /// Creates a message.
    public init(
        id: UUID = UUID(), role: MessageRole, content: String, thinkingContent: String? = nil, timestamp: Date = Date(),
        analytics: MessageAnalytics? = nil, modelInfo: MessageModelInfo? = nil, error: String? = nil, grounding: ChatGrounding? = nil,
        toolSteps: [ToolRunStep]? = nil
    ) {
        self.id = id
        self.role = role
        self.content = content
        self.thinkingContent = thinkingContent
        self.timestamp = timestamp
        self.analytics = analytics
        self.modelInfo = modelInfo
        self.error = error
        self.grounding = grounding
        self.toolSteps = toolSteps
    }

    /// The SDK message for a ``Context``; the id and any thinking travel in its metadata.
    package func toSDKMessage() -> Message {
        var metadata = ["messageId": id.uuidString]
        if let thinkingContent { metadata["thinking"] = thinkingContent }
        return Message(role: role, content: content, metadata: metadata, timestamp: timestamp)
    }

    /// The message as the model reads it in a later prompt: an answer made with tools is each
    /// round's calls with their results, then the answer (unless it has no text: stopped before).
    package func toSDKMessages() -> [Message] {
        var messages: [Message] = []
        var steps = (toolSteps ?? [])[...]
        while let first = steps.first {
            // A round's calls together; a step saved without its round, alone.
            let round = first.round.map { round in steps.prefix { $0.round == round } } ?? steps.prefix(1)
            steps = steps.dropFirst(round.count)
            messages.append(Message(role: .assistant, content: "", timestamp: timestamp, toolCalls: round.map(\.call)))
            messages += round.map { Message.toolResult($0.output, for: $0.call) }
        }
        return messages.isEmpty || !content.isEmpty ? messages + [toSDKMessage()] : messages
    }
}

/// Which model wrote a message.
public struct MessageModelInfo: Codable, Sendable, Equatable {
    /// The model's ID.
    public let modelId: String
    /// The model's name for people.
    public let modelName: String
    /// The framework's raw value, e.g. "LlamaCpp".
    public let framework: String

    /// The model info of `modelInfo`.
    public init(from modelInfo: ModelInfo) {
        modelId = modelInfo.id
        modelName = modelInfo.name
        framework = modelInfo.framework.rawValue
    }
}
