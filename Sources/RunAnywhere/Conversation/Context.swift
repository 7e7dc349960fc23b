/// A conversation so far, which the SDK turns into a prompt with the model's chat template.
///
/// Only the newest `maxMessages` messages are used; if the prompt still would not leave room for
/// the answer in the model's context window, the oldest are dropped until it does.
public struct Context: Codable, Sendable, Equatable {
    /// Instructions that stay at the top of every prompt.
    public let systemPrompt: String?
    /// Earlier messages, oldest first.
    public let messages: [Message]
    /// Most messages to keep from the end of `messages`.
    public let maxMessages: Int
    /// Free-form data the app keeps with the conversation.
    public let metadata: [String: String]

    /// Creates a context.
    public init(
        systemPrompt: String? = nil, messages: [Message] = [], maxMessages: Int = SDKConstants.Limits.contextMessages,
        metadata: [String: String] = [:]
    ) {
        self.systemPrompt = systemPrompt
        self.messages = messages
        self.maxMessages = maxMessages
        self.metadata = metadata
    }
}
