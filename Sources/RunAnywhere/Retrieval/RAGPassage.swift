import Foundation
import SQLiteNIO

/// One stored chunk of a document, as a source's number opens it: its text and where it lies.
public struct RAGPassage: Codable, Sendable, Equatable {
    /// Its collection's name.
    public let collection: String
    /// The document's path, as ingested.
    public let documentPath: String
    /// The chunk's place in its document, from 0.
    public let ordinal: Int
    /// The chunks its document has.
    public let documentChunkCount: Int
    /// The chunk's text.
    public let text: String
    /// Where the chunk starts in its document's text, in Unicode scalars.
    public let start: Int
    /// Where it ends (exclusive), in Unicode scalars.
    public let end: Int
}

extension RAGSession {
    /// The chunk `ordinal` of the document `path` (exactly as ingested, as ``RAGSource/documentPath``
    /// names it) in `collection`: the passage a source came from. An unknown collection, document
    /// or chunk throws ``ErrorCode/fileNotFound``.
    public func passage(document path: String, ordinal: Int, collection: String = RAGCollection.defaultName) async throws -> RAGPassage {
        try RAGCollection.validateName(collection)
        return try await store.passage(document: path, ordinal: ordinal, collection: collection)
    }
}

extension RAGStore {
    /// The chunk `ordinal` of the document `path` in `collection`; what is not there throws ``ErrorCode/fileNotFound``.
    package func passage(document path: String, ordinal: Int, collection: String) async throws -> RAGPassage {
        let found = try await reading(nil) { connection -> RAGPassage? in
            guard try await Self.collectionID(connection, collection) != nil else { throw Self.noCollection(collection) }
            let rows = try await connection.query(
                """
                SELECT k.text, k.start_offset, k.end_offset, (SELECT COUNT(*) FROM chunks c WHERE c.document_id = d.id) AS total
                FROM documents d JOIN collections o ON d.collection_id = o.id LEFT JOIN chunks k ON k.document_id = d.id AND k.ordinal = ?
                WHERE o.name = ? AND d.path = ?
                """,
                [.integer(ordinal), .text(collection), .text(path)]
            )
            guard let row = rows.first else { throw SDKError.fileManagement(.fileNotFound, "Collection '\(collection)' has no document \(path)") }
            guard let text = row.column("text")?.string else {
                throw SDKError.fileManagement(.fileNotFound, "\(path) has no chunk \(ordinal) (it has \(row.column("total")?.integer ?? 0), numbered from 0)")
            }
            return RAGPassage(
                collection: collection, documentPath: path, ordinal: ordinal, documentChunkCount: row.column("total")?.integer ?? 0, text: text,
                start: row.column("start_offset")?.integer ?? 0, end: row.column("end_offset")?.integer ?? 0
            )
        }
        guard let found else { throw Self.noCollection(collection) }
        return found
    }
}
