import Foundation
import SQLiteNIO
import Synchronization

extension RAGStore {
    /// The `topK` chunks of the collection `collection` closest to `vector` by cosine
    /// similarity, best first (equal scores in the order they were stored), with their
    /// documents' paths. Every vector of the collection is compared (brute force, read one row
    /// at a time); an unknown collection throws ``ErrorCode/fileNotFound``, and a vector of
    /// other dimensions than the collection's ``ErrorCode/modelIncompatible``.
    package func search(_ vector: [Float], collection: String, topK: Int) async throws -> [RAGSource] {
        let found = try await reading(nil) { connection -> [RAGSource]? in
            guard let info = try await Self.collections(connection, named: collection).first,
                  let id = try await Self.collectionID(connection, collection) else { return nil }
            guard info.dimensions == vector.count else {
                throw SDKError(
                    .modelIncompatible,
                    "Collection '\(collection)' holds vectors of \(info.dimensions) dimensions; a question's vector of \(vector.count) cannot be compared with them"
                )
            }
            let best = TopScores(limit: topK)
            let queryNorm = EmbeddingMath.norm(vector)
            try await connection.query(
                "SELECT k.id, k.vector FROM chunks k JOIN documents d ON k.document_id = d.id WHERE d.collection_id = ?", [.integer(id)]
            ) { row in
                guard let chunk = row.column("id")?.integer, case .blob(let blob)? = row.column("vector") else { return }
                let score = VectorBlob.cosine(vector, queryNorm: queryNorm, blob: blob)
                best.offer(chunk, score: score)
            }
            let (scores, damaged) = best.result
            if damaged > 0 {
                logger.error("Chunks whose vectors have the wrong length were skipped", metadata: ["collection": "\(collection)", "count": "\(damaged)"])
            }
            guard !scores.isEmpty else { return [] }
            let placeholders = Array(repeating: "?", count: scores.count).joined(separator: ", ")
            let rows = try await connection.query(
                """
                SELECT k.id, k.ordinal, k.text, k.start_offset, k.end_offset, d.path FROM chunks k JOIN documents d ON k.document_id = d.id
                WHERE k.id IN (\(placeholders))
                """,
                scores.map { .integer($0.id) }
            )
            let byID = Dictionary(rows.compactMap { row in row.column("id")?.integer.map { ($0, row) } }, uniquingKeysWith: { first, _ in first })
            return scores.compactMap { entry in
                byID[entry.id].map { row in
                    RAGSource(
                        documentPath: row.column("path")?.string ?? "", ordinal: row.column("ordinal")?.integer ?? 0, text: row.column("text")?.string ?? "",
                        start: row.column("start_offset")?.integer ?? 0, end: row.column("end_offset")?.integer ?? 0, score: entry.score
                    )
                }
            }
        }
        guard let found else { throw Self.noCollection(collection) }
        return found
    }
}

/// The best scores offered so far, at most `limit`, best first (equal scores in the order
/// offered), safe to offer from any thread.
final class TopScores: Sendable {
    private struct State {
        var entries: [(id: Int, score: Double)] = []
        var damaged = 0
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// The best entries, and how many rows were offered without a score (a vector of the wrong length).
    var result: (entries: [(id: Int, score: Double)], damaged: Int) {
        state.withLock { ($0.entries, $0.damaged) }
    }

    func offer(_ id: Int, score: Double?) {
        state.withLock { state in
            guard let score else {
                state.damaged += 1
                return
            }
            guard state.entries.count < limit || score > (state.entries.last?.score ?? -.infinity) else { return }
            let index = state.entries.firstIndex { $0.score < score } ?? state.entries.count
            state.entries.insert((id, score), at: index)
            if state.entries.count > limit { state.entries.removeLast() }
        }
    }
}
