import Foundation
import SQLiteNIO

extension SQLiteRAGStore {
    /// The `topK` chunks of `collection` closest to `vector` (``RAGStore/search(_:collection:topK:)``):
    /// every vector of the collection is compared, read one row at a time.
    package func search(_ vector: [Float], collection: String, topK: Int) async throws -> [RAGSource] {
        let found = try await reading(nil) { connection -> [RAGSource]? in
            guard let stored = try await Self.stored(connection, collection) else { return nil }
            try RAGStoreChecks.check(vector, searching: stored)
            let best = TopScores(limit: topK)
            let queryNorm = EmbeddingMath.norm(vector)
            try await connection.query(
                "SELECT k.id, k.vector FROM chunks k JOIN documents d ON k.document_id = d.id WHERE d.collection_id = ?",
                [.integer(stored.id)]
            ) { row in
                guard let chunk = row.column("id")?.integer, case .blob(let blob)? = row.column("vector") else { return }
                let score = VectorBlob.cosine(vector, queryNorm: queryNorm, blob: blob)
                best.offer(chunk, score: score)
            }
            let scores = best.result(logger: logger, collection: collection)
            guard !scores.isEmpty else { return [] }
            let placeholders = Array(repeating: "?", count: scores.count).joined(separator: ", ")
            let rows = try await connection.query(
                """
                SELECT k.id, k.ordinal, k.text, k.start_offset, k.end_offset, d.path FROM chunks k JOIN documents d ON k.document_id = d.id
                WHERE k.id IN (\(placeholders))
                """,
                scores.map { .integer($0.id) }
            )
            let byID = Dictionary(
                rows.compactMap { row in row.column("id")?.integer.map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
            return scores.compactMap { entry in
                byID[entry.id].map { row in
                    RAGSource(
                        documentPath: row.column("path")?.string ?? "", ordinal: row.column("ordinal")?.integer ?? 0,
                        text: row.column("text")?.string ?? "",
                        start: row.column("start_offset")?.integer ?? 0, end: row.column("end_offset")?.integer ?? 0, score: entry.score
                    )
                }
            }
        }
        guard let found else { throw RAGStoreChecks.noCollection(collection) }
        return found
    }

    /// The chunk `ordinal` of the document `path` in `collection` (``RAGStore/passage(document:ordinal:collection:)``).
    package func passage(document path: String, ordinal: Int, collection: String) async throws -> RAGPassage {
        let found = try await reading(nil) { connection -> RAGPassage? in
            guard try await Self.stored(connection, collection) != nil else { throw RAGStoreChecks.noCollection(collection) }
            let rows = try await connection.query(
                """
                SELECT k.text, k.start_offset, k.end_offset, (SELECT COUNT(*) FROM chunks c WHERE c.document_id = d.id) AS total
                FROM documents d JOIN collections o ON d.collection_id = o.id LEFT JOIN chunks k ON k.document_id = d.id AND k.ordinal = ?
                WHERE o.name = ? AND d.path = ?
                """,
                [.integer(ordinal), .text(collection), .text(path)]
            )
            guard let row = rows.first else { throw RAGStoreChecks.noDocument(path, collection: collection) }
            guard let text = row.column("text")?.string else {
                throw RAGStoreChecks.noChunk(ordinal, path: path, total: row.column("total")?.integer ?? 0)
            }
            return RAGPassage(
                collection: collection, documentPath: path, ordinal: ordinal, documentChunkCount: row.column("total")?.integer ?? 0,
                text: text,
                start: row.column("start_offset")?.integer ?? 0, end: row.column("end_offset")?.integer ?? 0
            )
        }
        guard let found else { throw RAGStoreChecks.noCollection(collection) }
        return found
    }
}
