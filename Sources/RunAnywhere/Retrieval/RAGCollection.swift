import Foundation

/// A named set of documents searched together, made with one embedding model.
public struct RAGCollection: Codable, Sendable, Equatable {
    /// The name, as `validateName(_:)` accepts it.
    public let name: String
    /// The embedding model its vectors were made with; questions to it are embedded with the same.
    public let embeddingModelId: String
    /// The length of its vectors.
    public let dimensions: Int
    /// When its first document was ingested.
    public let createdAt: Date
    /// Its documents.
    public let documentCount: Int
    /// Its chunks (one vector each), over all its documents.
    public let chunkCount: Int

    /// The collection the SDK and the CLI use when none is named.
    public static let defaultName = "default"
    /// The longest name, in characters.
    package static let maxNameLength = 64

    /// Creates a collection's description.
    package init(name: String, embeddingModelId: String, dimensions: Int, createdAt: Date, documentCount: Int, chunkCount: Int) {
        self.name = name
        self.embeddingModelId = embeddingModelId
        self.dimensions = dimensions
        self.createdAt = createdAt
        self.documentCount = documentCount
        self.chunkCount = chunkCount
    }

    /// Throws ``ErrorCode/invalidInput`` unless `name` is 1 to ``maxNameLength`` letters, digits,
    /// `.`, `_` and `-`, not starting with `.` or `-` (as model ids are).
    package static func validateName(_ name: String) throws {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let problem: String? =
            if name.isEmpty { "it is empty" } else if name.count > maxNameLength {
                "it is longer than \(maxNameLength) characters"
            } else if !name.allSatisfy({ allowed.contains($0) }) {
                "use only letters, digits, '.', '_' and '-'"
            } else if name.hasPrefix(".") || name.hasPrefix("-") { "it must not start with '.' or '-'" } else { nil }
        if let problem {
            throw SDKError(.invalidInput, "Invalid collection name '\(name.debugDescription.dropFirst().dropLast())': \(problem)")
        }
    }
}
