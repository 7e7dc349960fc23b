import Foundation

/// Who wrote a message.
public enum MessageRole: String, Codable, Sendable, CaseIterable {
    /// Instructions for the model.
    case system
    /// The person's message.
    case user
    /// The model's answer.
    case assistant
    /// A tool's result, answering one of the assistant's ``Message/toolCalls``.
    case tool
}

/// One message of a conversation, as the SDK takes it for chat.
public struct Message: Codable, Sendable, Equatable {
    /// Who wrote it.
    public let role: MessageRole
    /// What it says.
    public let content: String
    /// The images it shows the model (a vision-language model reads them before the text).
    public let images: [VLMImage]
    /// Free-form data the app keeps with the message (ids, flags); not shown to the model.
    public let metadata: [String: String]?
    /// When it was written.
    public let timestamp: Date
    /// The tools an assistant message calls (its `content` is then often empty).
    public let toolCalls: [ToolCall]
    /// Which call a ``MessageRole/tool`` message answers (its ``ToolCall/id``).
    public let toolCallId: String?

    /// Creates a message.
    public init(
        role: MessageRole, content: String, images: [VLMImage] = [], metadata: [String: String]? = nil, timestamp: Date = Date(),
        toolCalls: [ToolCall] = [], toolCallId: String? = nil
    ) {
        self.role = role
        self.content = content
        self.images = images
        self.metadata = metadata
        self.timestamp = timestamp
        self.toolCalls = toolCalls
        self.toolCallId = toolCallId
    }

    /// The result of `call`, as the message that gives it back to the model.
    public static func toolResult(_ content: String, for call: ToolCall) -> Message {
        Message(role: .tool, content: content, toolCallId: call.id)
    }

    private enum CodingKeys: String, CodingKey { case role, content, images, metadata, timestamp, toolCalls, toolCallId }

    /// Decodes a message; `images` and `toolCalls` may be absent (messages saved before they existed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(MessageRole.self, forKey: .role)
        content = try container.decode(String.self, forKey: .content)
        images = try container.decodeIfPresent([VLMImage].self, forKey: .images) ?? []
        metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata)
        timestamp = try container.decode(Date.self, forKey: .timestamp)
        toolCalls = try container.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
        toolCallId = try container.decodeIfPresent(String.self, forKey: .toolCallId)
    }

    /// Encodes a message; `images` and `toolCalls` only when there are some.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(role, forKey: .role)
        try container.encode(content, forKey: .content)
        if !images.isEmpty { try container.encode(images, forKey: .images) }
        try container.encodeIfPresent(metadata, forKey: .metadata)
        try container.encode(timestamp, forKey: .timestamp)
        if !toolCalls.isEmpty { try container.encode(toolCalls, forKey: .toolCalls) }
        try container.encodeIfPresent(toolCallId, forKey: .toolCallId)
    }
}
