import Foundation
import NIOCore
import SQLiteNIO

extension SQLiteRAGStore {
    /// Chunk rows per INSERT statement (7 values each, far below SQLite's limit on them).
    private static let rowsPerInsert = 200

    /// Stores `documents` in the collection `collection` in one transaction (``RAGStore/write(_:collection:embeddingModel:dimensions:)``).
    package func write(
        _ documents: [IngestedDocument], collection: String, embeddingModel: String, dimensions: Int
    ) async throws -> [(document: RAGDocument, replaced: Bool)] {
        try RAGCollection.validateName(collection)
        return try await writing { connection in
            let now = Date()
            let collectionID: Int
            if let existing = try await Self.stored(connection, collection) {
                try RAGStoreChecks.check(existing, model: embeddingModel, dimensions: dimensions)
                collectionID = existing.id
            } else {
                collectionID =
                    try await connection.query(
                        "INSERT INTO collections (name, embedding_model, dimensions, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                        [.text(collection), .text(embeddingModel), .integer(dimensions), .float(now.timeIntervalSince1970)]
                    ).first?.column("id")?.integer ?? 0
            }
            var stored: [(document: RAGDocument, replaced: Bool)] = []
            for item in documents {
                try RAGStoreChecks.check(item, dimensions: dimensions)
                let document = item.document
                let key = [SQLiteData.integer(collectionID), .text(document.path)]
                _ = try await connection.query(
                    "DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE collection_id = ? AND path = ?)", key)
                let replaced = try await !connection.query("DELETE FROM documents WHERE collection_id = ? AND path = ? RETURNING id", key)
                    .isEmpty
                guard
                    let documentID = try await connection.query(
                        "INSERT INTO documents (collection_id, path, format, sha256, size, ingested_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                        key + [
                            .text(document.format.rawValue), .text(document.sha256), .integer(document.size),
                            .float(now.timeIntervalSince1970),
                        ]
                    ).first?.column("id")?.integer
                else { throw SDKError.fileManagement(.fileWriteFailed, "The RAG store \(url.path) did not keep \(document.path)") }
                for batch in stride(from: 0, to: item.chunks.count, by: Self.rowsPerInsert) {
                    let range = batch..<min(batch + Self.rowsPerInsert, item.chunks.count)
                    var binds: [SQLiteData] = []
                    for index in range {
                        let chunk = item.chunks[index]
                        binds += [
                            .integer(documentID), .integer(chunk.ordinal), .text(chunk.text), .integer(chunk.start), .integer(chunk.end),
                            .blob(VectorBlob.encode(item.vectors[index])),
                        ]
                    }
                    let rows = Array(repeating: "(?, ?, ?, ?, ?, ?)", count: range.count).joined(separator: ", ")
                    _ = try await connection.query(
                        "INSERT INTO chunks (document_id, ordinal, text, start_offset, end_offset, vector) VALUES \(rows)", binds)
                }
                stored.append(
                    (
                        RAGDocument(
                            collection: collection, path: document.path, format: document.format, sha256: document.sha256,
                            size: document.size,
                            chunkCount: item.chunks.count, ingestedAt: now
                        ), replaced
                    ))
            }
            return stored
        }
    }
}
