import Foundation

/// Who wrote a message.
public enum MessageRole: String, Codable, Sendable, CaseIterable {
    case system
    case user
    case assistant
}

/// One message of a conversation, as the SDK takes it for chat.
public struct Message: Codable, Sendable, Equatable {
    /// Who wrote it.
    public let role: MessageRole
    /// What it says.
    public let content: String
    /// Free-form data the app keeps with the message (ids, flags); not shown to the model.
    public let metadata: [String: String]?
    /// When it was written.
    public let timestamp: Date

    /// Creates a message.
    public init(role: MessageRole, content: String, metadata: [String: String]? = nil, timestamp: Date = Date()) {
        self.role = role
        self.content = content
        self.metadata = metadata
        self.timestamp = timestamp
    }
}
