import Foundation
import Logging

/// Conversations kept one JSON file each in `<data>/conversations`, written atomically
/// (timestamps are stored as ISO-8601 with milliseconds); renaming, deleting and a chat's saves
/// take turns under a lock file beside the folder (`.conversations.lock`). A file that cannot be read is moved
/// aside as `<name>.corrupt-<time>` and reported; the others still load.
public struct ConversationStore: Sendable {
    /// The conversations that could be read, newest first, and the files moved aside.
    public struct Listing: Sendable {
        /// The conversations that could be read, newest first.
        public let conversations: [Conversation]
        /// Paths of unreadable files that were moved aside.
        public let movedAside: [String]
    }

    /// The folder of conversation files.
    public let directory: URL
    private let logger: Logger
    /// Where ``persist(_:)`` saves instead of the folder: the server's replicas' database.
    package let backend: (any ConversationBackend)?

    /// A store in `dataDirectory/conversations`.
    public init(dataDirectory: URL, logger: Logger = Logger(label: "runanywhere", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.directory = dataDirectory.appendingPathComponent(SDKConstants.Files.conversations)
        self.logger = logger
        self.backend = nil
    }

    /// A store whose ``persist(_:)`` saves to `backend`.
    package init(dataDirectory: URL, logger: Logger, backend: any ConversationBackend) {
        self.directory = dataDirectory.appendingPathComponent(SDKConstants.Files.conversations)
        self.logger = logger
        self.backend = backend
    }

    /// Saves `conversation` where this store keeps them: its backend, else its folder (``save(_:)``).
    /// ``ChatService`` saves through it. With `replacingOnly`, only a conversation still kept is
    /// replaced, so one deleted meanwhile (by another request, process or replica) stays deleted;
    /// and a kept title other than `titleSeen`, the one the saver last read, was renamed meanwhile
    /// and stays. Whether it was saved.
    @discardableResult
    package func persist(_ conversation: Conversation, replacingOnly: Bool = false, titleSeen: String? = nil) async throws -> Bool {
        guard let backend else {
            return try FileLock.withLock(at: lockURL) {
                var conversation = conversation
                if replacingOnly {
                    guard FileManager.default.fileExists(atPath: try file(for: conversation.id).path) else { return false }
                    if let titleSeen, let kept = try? load(id: conversation.id).title, kept != titleSeen { conversation.title = kept }
                }
                try save(conversation)
                return true
            }
        }
        return try await backend.save(conversation, replacingOnly: replacingOnly, titleSeen: titleSeen)
    }

    /// Saves `conversation`, replacing its previous version.
    public func save(_ conversation: Conversation) throws {
        let url = try file(for: conversation.id)
        do {
            try AtomicFile.write(try JSONEncoder.runAnywhere.encode(conversation), to: url)
            logger.debug("Saved conversation", metadata: ["event": "\(SDKConstants.Events.conversationSaved)", "id": "\(conversation.id)"])
        } catch {
            throw SDKError.writeFailed("Cannot save conversation to \(url.path)", error)
        }
    }

    /// Reads the conversation `id`, or the only one whose id starts with `id`.
    public func load(id: String) throws -> Conversation {
        let url = try file(for: try resolve(id))
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SDKError.fileManagement(.fileNotFound, "No conversation \(id)")
        }
        do {
            return try JSONDecoder.runAnywhere.decode(Conversation.self, from: data)
        } catch {
            let aside = moveAside(url, error: error)
            throw SDKError.fileManagement(
                .modelStorageCorrupted,
                "Conversation file \(url.lastPathComponent) is unreadable\(aside.map { "; it was moved to \($0)" } ?? "")")
        }
    }

    /// Every readable conversation, most recently updated first.
    public func list() -> Listing {
        var conversations: [Conversation] = []
        var movedAside: [String] = []
        for url in conversationFiles() {
            guard let data = FileManager.default.contents(atPath: url.path) else { continue }
            do {
                conversations.append(try JSONDecoder.runAnywhere.decode(Conversation.self, from: data))
            } catch {
                if let aside = moveAside(url, error: error) { movedAside.append(aside) }
            }
        }
        return Listing(conversations: conversations.sorted { $0.updatedAt > $1.updatedAt }, movedAside: movedAside)
    }

    /// Conversations whose title or any message contains `text`, ignoring case and accents.
    public func search(_ text: String) -> [Conversation] {
        list().conversations.filter { $0.contains(text) }
    }

    /// Gives the conversation `id` a new title, trimmed; an empty title, one over 200 characters
    /// or one that is not a single line of printable characters is ``ErrorCode/invalidInput``.
    @discardableResult
    public func rename(id: String, to title: String) throws -> Conversation {
        try FileLock.withLock(at: lockURL) {
            let conversation = try load(id: id).renamed(to: title)
            try save(conversation)
            return conversation
        }
    }

    /// Deletes the conversation `id`.
    public func delete(id: String) throws {
        let url = try file(for: try resolve(id))
        try FileLock.withLock(at: lockURL) { try AtomicFile.remove(url) }
    }

    /// Whether the conversation `id` is kept where ``persist(_:replacingOnly:)`` saves it.
    package func keeps(id: String) async throws -> Bool {
        guard let backend else { return contains(id: id) }
        return try await backend.contains(id: id)
    }

    /// Whether a conversation has exactly the id `id` (no prefix matching).
    package func contains(id: String) -> Bool {
        guard let url = try? file(for: id) else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// The full id of the conversation `id` names, exactly or as a unique prefix.
    package func resolve(_ id: String) throws -> String {
        if contains(id: id) { return id }  // no need to list the folder
        try Self.validate(id)
        let ids = conversationFiles().map { $0.deletingPathExtension().lastPathComponent }
        let matches = ids.filter { $0.lowercased().hasPrefix(id.lowercased()) }
        guard !matches.isEmpty else {
            throw SDKError.fileManagement(.fileNotFound, "No conversation \(id); `runanywhere conversations list` shows them")
        }
        guard matches.count == 1 else {
            throw SDKError(.invalidInput, "'\(id)' matches \(matches.count) conversations; give more of the id")
        }
        return matches[0]
    }

    private static func validate(_ id: String) throws {
        let allowed = Set("0123456789abcdefABCDEF-")
        guard !id.isEmpty, id.count <= 64, id.allSatisfy({ allowed.contains($0) }) else {
            throw SDKError(.invalidInput, "Invalid conversation id '\(id)'")
        }
    }

    /// The lock that the read-modify-write changes (renaming, deleting, an answer's save) take
    /// in turn, across the processes sharing the folder (the server and `runanywhere chat`).
    private var lockURL: URL { directory.deletingLastPathComponent().appendingPathComponent(".conversations.lock") }

    private func file(for id: String) throws -> URL {
        try Self.validate(id)
        return directory.appendingPathComponent("\(id).json")
    }

    private func conversationFiles() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { directory.appendingPathComponent($0) }
    }

    private func moveAside(_ url: URL, error: any Error) -> String? {
        do {
            let aside = try AtomicFile.moveAside(url)
            // A warning: nothing is lost, and the caller shows where the file went (`movedAside`).
            logger.warning(
                "An unreadable conversation file was moved aside",
                metadata: [
                    "event": "\(SDKConstants.Events.fileMovedAside)", "file": "\(url.path)", "movedTo": "\(aside.path)",
                    "error": "\(error)",
                ])
            return aside.path
        } catch {
            logger.error(
                "An unreadable conversation file could not be moved aside", metadata: ["file": "\(url.path)", "error": "\(error)"])
            return nil
        }
    }
}

/// Where conversations are kept other than a store's folder (the server's replicas' database).
package protocol ConversationBackend: Sendable {
    /// Saves `conversation`, replacing its previous version; with `replacingOnly`, only when it
    /// has one (a deleted conversation stays deleted), and keeping a title other than
    /// `titleSeen` (renamed meanwhile). Whether it was saved.
    func save(_ conversation: Conversation, replacingOnly: Bool, titleSeen: String?) async throws -> Bool
    /// Whether it keeps a conversation of exactly the id `id`.
    func contains(id: String) async throws -> Bool
}

extension Conversation {
    /// The conversation with the title `title` (``title(_:)``), updated now.
    package func renamed(to title: String) throws -> Conversation {
        var conversation = self
        conversation.title = try Self.title(title)
        conversation.updatedAt = Date()
        return conversation
    }

    /// `text` as a title (``checkedName(_:what:limit:)``): trimmed; empty, over 200 characters
    /// or more than one printable line is refused.
    package static func title(_ text: String) throws -> String {
        try checkedName(text, what: "A conversation title", limit: 200)
    }
}
