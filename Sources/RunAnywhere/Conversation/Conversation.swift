import Foundation

/// A saved chat: its messages and the model that answered.
public struct Conversation: Codable, Sendable, Identifiable, Equatable {
    /// Unique id (a UUID string).
    public let id: String
    /// A title, by default the start of the first user message.
    public var title: String
    /// When it started.
    public let createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// The messages, oldest first.
    public var messages: [Message]
    /// The display name of the model used.
    public var modelName: String?
    /// The display name of the framework used.
    public var frameworkName: String?

    /// Creates an empty conversation.
    public init(id: String = UUID().uuidString, title: String = "New conversation", createdAt: Date = Date(), modelName: String? = nil, frameworkName: String? = nil) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = createdAt
        self.messages = []
        self.modelName = modelName
        self.frameworkName = frameworkName
    }

    /// Appends a message; the first user message also becomes the title.
    public mutating func append(_ message: Message) {
        if message.role == .user, !messages.contains(where: { $0.role == .user }) {
            let line = message.content.split(whereSeparator: \.isNewline).first.map(String.init) ?? message.content
            title = line.count > 60 ? String(line.prefix(57)) + "..." : line
        }
        messages.append(message)
        updatedAt = message.timestamp
    }
}

/// Conversations kept one JSON file each in `<data>/conversations`, written atomically
/// (timestamps are stored as ISO-8601 with milliseconds).
public struct ConversationStore: Sendable {
    /// The folder of conversation files.
    public let directory: URL

    /// A store in `dataDirectory/conversations`.
    public init(dataDirectory: URL) {
        self.directory = dataDirectory.appendingPathComponent("conversations")
    }

    /// Saves `conversation`, replacing its previous version.
    public func save(_ conversation: Conversation) throws {
        let url = directory.appendingPathComponent("\(conversation.id).json")
        do {
            try AtomicFile.write(try JSONEncoder.runAnywhere.encode(conversation), to: url)
        } catch {
            throw SDKError.fileManagement(.fileWriteFailed, "Cannot save conversation to \(url.path): \(error.localizedDescription)")
        }
    }

    /// Reads the conversation `id`.
    public func load(id: String) throws -> Conversation {
        let url = directory.appendingPathComponent("\(id).json")
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SDKError.fileManagement(.fileNotFound, "No conversation \(id)")
        }
        do {
            return try JSONDecoder.runAnywhere.decode(Conversation.self, from: data)
        } catch {
            throw SDKError.fileManagement(.modelStorageCorrupted, "Conversation file \(url.path) is unreadable: \(error.localizedDescription)")
        }
    }
}
