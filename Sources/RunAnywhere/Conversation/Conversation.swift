import Foundation

/// A saved chat: its messages, the model that answered, and its analytics.
public struct Conversation: Codable, Sendable, Identifiable, Equatable {
    /// Unique id (a UUID string).
    public let id: String
    /// A title, by default the start of the first user message.
    public var title: String
    /// When the conversation began.
    public let createdAt: Date
    /// When a message was last added or the conversation last changed.
    public var updatedAt: Date
    /// The messages, oldest first.
    public var messages: [ChatMessage]
    /// Display name of the model last used.
    public var modelName: String?
    /// Display name of the framework last used.
    public var frameworkName: String?
    /// Aggregate analytics, updated after every answer.
    public var analytics: ConversationAnalytics?
    /// The performance summary, updated after every answer.
    public var performanceSummary: PerformanceSummary?

    /// Creates an empty conversation.
    public init(
        id: String = UUID().uuidString, title: String = Conversation.defaultTitle, createdAt: Date = Date(), modelName: String? = nil,
        frameworkName: String? = nil
    ) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = createdAt
        self.messages = []
        self.modelName = modelName
        self.frameworkName = frameworkName
    }

    /// The title of a conversation nobody has named yet.
    public static let defaultTitle = "New conversation"

    /// Appends a message; the first user message also becomes the title, unless the
    /// conversation was given one.
    package mutating func append(_ message: ChatMessage) {
        if message.role == .user, title == Self.defaultTitle, !messages.contains(where: { $0.role == .user }) {
            let line = message.content.split(whereSeparator: \.isNewline).first.map(String.init) ?? message.content
            title = line.count > 60 ? String(line.prefix(57)) + "..." : line
        }
        messages.append(message)
        updatedAt = message.timestamp
    }

    /// Recomputes ``analytics`` and ``performanceSummary`` from the messages.
    package mutating func refreshAnalytics(currentModel: String?) {
        analytics = ConversationAnalytics(conversation: self, currentModel: currentModel)
        performanceSummary = PerformanceSummary(messages: messages)
    }

    /// The history for the model: every message except failed answers (and the question each
    /// failed answer left unanswered); an answer made with tools brings its calls and their
    /// results before it.
    public var contextMessages: [Message] {
        var kept: [ChatMessage] = []
        for message in messages {
            if message.role == .assistant, message.error != nil {
                if kept.last?.role == .user { kept.removeLast() }
                continue
            }
            kept.append(message)
        }
        return kept.flatMap { $0.toSDKMessages() }
    }

    /// Whether the title or any message contains `text`, ignoring case and accents.
    package func contains(_ text: String) -> Bool {
        ([title] + messages.map(\.content)).contains {
            $0.range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
    }
}
