import Foundation

/// A document of a collection.
public struct RAGDocument: Codable, Sendable, Equatable {
    /// Its collection's name.
    public let collection: String
    /// The file it was read from, as an absolute path: its identity in the collection.
    public let path: String
    /// What it was read as.
    public let format: DocumentFormat
    /// The sha256 of the file's bytes when it was ingested, lowercase hex.
    public let sha256: String
    /// The file's size in bytes.
    public let size: Int
    /// Its chunks.
    public let chunkCount: Int
    /// When it was ingested (last replaced).
    public let ingestedAt: Date

    /// Creates a document's description.
    package init(collection: String, path: String, format: DocumentFormat, sha256: String, size: Int, chunkCount: Int, ingestedAt: Date) {
        self.collection = collection
        self.path = path
        self.format = format
        self.sha256 = sha256
        self.size = size
        self.chunkCount = chunkCount
        self.ingestedAt = ingestedAt
    }
}
