import Foundation
import Logging
import NIOCore
import SQLiteNIO

/// The RAG collections on disk: one SQLite database (sqlite-nio's SQLite, WAL journal), by
/// default `rag.sqlite` in the runtime's data folder, shared by every process using that folder;
/// the default ``RAGStore``.
/// Its tables: `collections` (name, embedding model id, dimensions, created), `documents`
/// (collection, path, format, sha256, size, ingested) and `chunks` (document, ordinal, text,
/// offsets, and the vector as little-endian Float32s in a BLOB).
///
/// Each call opens its own connection and closes it; every change is one transaction, so that a
/// failure leaves the collections as they were. Reads of a database that does not exist yet find
/// nothing and create no file.
package struct SQLiteRAGStore: RAGStore {
    /// The database's file name in the data folder.
    package static let fileName = "rag.sqlite"

    /// The database file.
    package let url: URL
    let logger: Logger

    /// The store in the file `url`.
    package init(url: URL, logger: Logger) {
        self.url = url
        self.logger = logger
    }

    /// The file's path.
    package var location: String { url.path }

    /// Nothing to let go of: each call opens its own connection and closes it.
    package func close() async {}

    /// The collection `name`, nil when there is none.
    package func collection(named name: String) async throws -> RAGCollection? {
        try await reading(nil) { try await Self.collections($0, named: name).first }
    }

    /// Every collection, by name.
    package func collections() async throws -> [RAGCollection] {
        try await reading([]) { try await Self.collections($0, named: nil) }
    }

    /// The documents of the collection `collection`, by path; an unknown collection throws ``ErrorCode/fileNotFound``.
    package func documents(in collection: String) async throws -> [RAGDocument] {
        let documents = try await reading(nil) { connection -> [RAGDocument]? in
            guard try await Self.stored(connection, collection) != nil else { return nil }
            return try await connection.query(
                """
                SELECT d.path, d.format, d.sha256, d.size, d.ingested_at, (SELECT COUNT(*) FROM chunks k WHERE k.document_id = d.id) AS chunks
                FROM documents d JOIN collections c ON d.collection_id = c.id WHERE c.name = ? ORDER BY d.path
                """,
                [.text(collection)]
            ).map { row in
                RAGDocument(
                    collection: collection, path: row.column("path")?.string ?? "",
                    format: DocumentFormat(rawValue: row.column("format")?.string ?? "") ?? .plainText,
                    sha256: row.column("sha256")?.string ?? "",
                    size: row.column("size")?.integer ?? 0, chunkCount: row.column("chunks")?.integer ?? 0,
                    ingestedAt: Date(timeIntervalSince1970: row.column("ingested_at")?.double ?? 0)
                )
            }
        }
        guard let documents else { throw RAGStoreChecks.noCollection(collection) }
        return documents
    }

    /// Removes the document `path` of `collection` with its chunks and vectors; one that is not
    /// there throws ``ErrorCode/fileNotFound``.
    package func removeDocument(path: String, collection: String) async throws {
        try await writing { connection in
            guard let id = try await Self.stored(connection, collection)?.id else { throw RAGStoreChecks.noCollection(collection) }
            let documents = [SQLiteData.integer(id), .text(path)]
            _ = try await connection.query(
                "DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE collection_id = ? AND path = ?)", documents)
            guard try await !connection.query("DELETE FROM documents WHERE collection_id = ? AND path = ? RETURNING id", documents).isEmpty
            else {
                throw RAGStoreChecks.noDocument(path, collection: collection)
            }
        }
    }

    /// Removes the collection `name` with its documents, chunks and vectors; one that is not
    /// there throws ``ErrorCode/fileNotFound``.
    package func removeCollection(_ name: String) async throws {
        try await writing { connection in
            guard let id = try await Self.stored(connection, name)?.id else { throw RAGStoreChecks.noCollection(name) }
            _ = try await connection.query(
                "DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE collection_id = ?)", [.integer(id)])
            _ = try await connection.query("DELETE FROM documents WHERE collection_id = ?", [.integer(id)])
            _ = try await connection.query("DELETE FROM collections WHERE id = ?", [.integer(id)])
        }
    }

    /// Every chunk row in the database, whichever its collection: what the tests count to see
    /// that removing frees the vectors.
    package func chunkRowCount() async throws -> Int {
        try await reading(0) { try await $0.query("SELECT COUNT(*) AS total FROM chunks").first?.column("total")?.integer ?? 0 }
    }

    /// The collections (those named `name`, or all), with their counts.
    static func collections(_ connection: SQLiteConnection, named name: String?) async throws -> [RAGCollection] {
        let rows = try await connection.query(
            """
            SELECT c.name, c.embedding_model, c.dimensions, c.created_at,
                (SELECT COUNT(*) FROM documents d WHERE d.collection_id = c.id) AS documents,
                (SELECT COUNT(*) FROM chunks k JOIN documents d ON k.document_id = d.id WHERE d.collection_id = c.id) AS chunks
            FROM collections c \(name == nil ? "" : "WHERE c.name = ?") ORDER BY c.name
            """,
            name.map { [.text($0)] } ?? []
        )
        return rows.map { row in
            RAGCollection(
                name: row.column("name")?.string ?? "", embeddingModelId: row.column("embedding_model")?.string ?? "",
                dimensions: row.column("dimensions")?.integer ?? 0,
                createdAt: Date(timeIntervalSince1970: row.column("created_at")?.double ?? 0),
                documentCount: row.column("documents")?.integer ?? 0, chunkCount: row.column("chunks")?.integer ?? 0
            )
        }
    }

    /// The collection `name` without its counts, nil when there is none.
    static func stored(_ connection: SQLiteConnection, _ name: String) async throws -> StoredCollection? {
        let row = try await connection.query("SELECT id, embedding_model, dimensions FROM collections WHERE name = ?", [.text(name)]).first
        guard let row, let id = row.column("id")?.integer else { return nil }
        return StoredCollection(
            id: id, name: name, embeddingModelId: row.column("embedding_model")?.string ?? "",
            dimensions: row.column("dimensions")?.integer ?? 0
        )
    }

    /// Runs `body` on a connection; `absent` when the database does not exist yet.
    func reading<T>(_ absent: T, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        guard FileManager.default.fileExists(atPath: url.path) else { return absent }
        return try await withConnection(body)
    }

    /// Runs `body` on a connection in one transaction (creating the database if needed): its
    /// changes are kept when it returns and undone when it throws.
    func writing<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        try await withConnection { connection in try await connection.inTransaction(body) }
    }

    private func withConnection<T>(_ body: (SQLiteConnection) async throws -> T) async throws -> T {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw SDKError.writeFailed("Cannot create the folder \(url.deletingLastPathComponent().path)", error)
        }
        do {
            return try await SQLiteFile(url: url, logger: logger, schema: Self.schema).withConnection(body)
        } catch {
            throw Self.error(error, url: url)
        }
    }

    private static let schema = [
        "PRAGMA busy_timeout = 10000", "PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL", "PRAGMA foreign_keys = ON",
        """
        CREATE TABLE IF NOT EXISTS collections (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, embedding_model TEXT NOT NULL,
            dimensions INTEGER NOT NULL, created_at REAL NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS documents (id INTEGER PRIMARY KEY, collection_id INTEGER NOT NULL REFERENCES collections (id) ON DELETE CASCADE,
            path TEXT NOT NULL, format TEXT NOT NULL, sha256 TEXT NOT NULL, size INTEGER NOT NULL, ingested_at REAL NOT NULL, UNIQUE (collection_id, path))
        """,
        """
        CREATE TABLE IF NOT EXISTS chunks (id INTEGER PRIMARY KEY, document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL, text TEXT NOT NULL, start_offset INTEGER NOT NULL, end_offset INTEGER NOT NULL, vector BLOB NOT NULL,
            UNIQUE (document_id, ordinal))
        """,
    ]

    /// SQLite's errors as ``SDKError``s naming the file: a full disk as ``ErrorCode/insufficientStorage``.
    private static func error(_ error: any Error, url: URL) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        switch error.reason {
        case .full: return SDKError(.insufficientStorage, "No space left to write the RAG store \(url.path)")
        case .corrupt, .notADatabase:
            return SDKError.fileManagement(
                .modelStorageCorrupted, "The RAG store \(url.path) is damaged (\(error.message)); move it aside to start a new one")
        default: return SDKError.fileManagement(.fileWriteFailed, "The RAG store \(url.path) failed: \(error.message)")
        }
    }
}
