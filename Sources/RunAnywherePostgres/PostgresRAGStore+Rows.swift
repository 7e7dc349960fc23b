import Foundation
import NIOCore
import PostgresNIO
import RunAnywhere

extension PostgresRAGStore {
    /// Chunk rows per INSERT statement (6 values each, far below PostgreSQL's 65,535 parameters).
    private static let rowsPerInsert = 200

    package func write(
        _ documents: [IngestedDocument], collection: String, embeddingModel: String, dimensions: Int
    ) async throws -> [(document: RAGDocument, replaced: Bool)] {
        try RAGCollection.validateName(collection)
        return try await writing { [self] connection in
            let now = Date()
            let collectionID: Int
            if let existing = try await stored(connection, collection) {
                try RAGStoreChecks.check(existing, model: embeddingModel, dimensions: dimensions)
                collectionID = existing.id
            } else {
                collectionID = try await Self.id(
                    connection.query(
                        """
                        INSERT INTO rag_collections (account, name, embedding_model, dimensions, created_at)
                        VALUES (\(account), \(collection), \(embeddingModel), \(dimensions), \(now.timeIntervalSince1970)) RETURNING id
                        """,
                        logger: logger
                    ))
            }
            var stored: [(document: RAGDocument, replaced: Bool)] = []
            for item in documents {
                try RAGStoreChecks.check(item, dimensions: dimensions)
                let document = item.document
                let replaced = try await Self.hasRows(
                    connection.query(
                        "DELETE FROM rag_documents WHERE collection_id = \(collectionID) AND path = \(document.path) RETURNING id",
                        logger: logger
                    ))
                let documentID = try await Self.id(
                    connection.query(
                        """
                        INSERT INTO rag_documents (collection_id, path, format, sha256, size, ingested_at)
                        VALUES (\(collectionID), \(document.path), \(document.format.rawValue), \(document.sha256), \(document.size), \(now.timeIntervalSince1970))
                        RETURNING id
                        """,
                        logger: logger
                    ))
                for batch in stride(from: 0, to: item.chunks.count, by: Self.rowsPerInsert) {
                    let range = batch..<min(batch + Self.rowsPerInsert, item.chunks.count)
                    var binds = PostgresBindings(capacity: range.count * 6)
                    var rows: [String] = []
                    for index in range {
                        let chunk = item.chunks[index]
                        let first = binds.count + 1
                        binds.append(documentID)
                        binds.append(chunk.ordinal)
                        binds.append(chunk.text)
                        binds.append(chunk.start)
                        binds.append(chunk.end)
                        binds.append(VectorBlob.encode(item.vectors[index]))
                        rows.append("(" + (first..<first + 6).map { "$\($0)" }.joined(separator: ", ") + ")")
                    }
                    try await connection.query(
                        PostgresQuery(
                            unsafeSQL:
                                "INSERT INTO rag_chunks (document_id, ordinal, text, start_offset, end_offset, vector) VALUES \(rows.joined(separator: ", "))",
                            binds: binds
                        ),
                        logger: logger
                    )
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

    /// Every vector of the collection is compared, streamed from the server in the order stored.
    package func search(_ vector: [Float], collection: String, topK: Int) async throws -> [RAGSource] {
        try await reading { [self] connection in
            guard let stored = try await stored(connection, collection) else {
                throw RAGStoreChecks.noCollection(collection)
            }
            try RAGStoreChecks.check(vector, searching: stored)
            let best = TopScores(limit: topK)
            let queryNorm = EmbeddingMath.norm(vector)
            let vectors = try await connection.query(
                "SELECT k.id, k.vector FROM rag_chunks k JOIN rag_documents d ON k.document_id = d.id WHERE d.collection_id = \(stored.id) ORDER BY k.id",
                logger: logger
            )
            for try await (chunk, blob) in vectors.decode((Int, ByteBuffer).self) {
                best.offer(chunk, score: VectorBlob.cosine(vector, queryNorm: queryNorm, blob: blob))
            }
            let scores = best.result(logger: logger, collection: collection)
            guard !scores.isEmpty else { return [] }
            let rows = try await connection.query(
                """
                SELECT k.id, k.ordinal, k.text, k.start_offset, k.end_offset, d.path FROM rag_chunks k JOIN rag_documents d ON k.document_id = d.id
                WHERE k.id = ANY(\(scores.map(\.id)))
                """,
                logger: logger
            )
            var byID: [Int: (ordinal: Int, text: String, start: Int, end: Int, path: String)] = [:]
            for try await (id, ordinal, text, start, end, path) in rows.decode((Int, Int, String, Int, Int, String).self) {
                byID[id] = (ordinal, text, start, end, path)
            }
            return scores.compactMap { entry in
                byID[entry.id].map {
                    RAGSource(documentPath: $0.path, ordinal: $0.ordinal, text: $0.text, start: $0.start, end: $0.end, score: entry.score)
                }
            }
        }
    }

    package func passage(document path: String, ordinal: Int, collection: String) async throws -> RAGPassage {
        try await reading { [self] connection in
            guard try await stored(connection, collection) != nil else {
                throw RAGStoreChecks.noCollection(collection)
            }
            let rows = try await connection.query(
                """
                SELECT k.text, k.start_offset, k.end_offset, (SELECT COUNT(*) FROM rag_chunks c WHERE c.document_id = d.id)
                FROM rag_documents d JOIN rag_collections o ON d.collection_id = o.id LEFT JOIN rag_chunks k ON k.document_id = d.id AND k.ordinal = \(ordinal)
                WHERE o.account = \(account) AND o.name = \(collection) AND d.path = \(path)
                """,
                logger: logger
            )
            for try await (text, start, end, total) in rows.decode((String?, Int?, Int?, Int).self) {
                guard let text, let start, let end else { throw RAGStoreChecks.noChunk(ordinal, path: path, total: total) }
                return RAGPassage(
                    collection: collection, documentPath: path, ordinal: ordinal, documentChunkCount: total, text: text, start: start,
                    end: end)
            }
            throw RAGStoreChecks.noDocument(path, collection: collection)
        }
    }

    /// The id in the first row of `rows` (an INSERT's `RETURNING id`).
    private static func id(_ rows: PostgresRowSequence) async throws -> Int {
        for try await id in rows.decode(Int.self) { return id }
        throw SDKError.fileManagement(.fileWriteFailed, "PostgreSQL returned no id for a row it inserted")
    }
}
