import Foundation
import Logging
import PostgresNIO
import RunAnywhere

/// The RAG collections in a PostgreSQL database, for collections shared by several machines or
/// kept beside the telemetry collector's runs: the same rows and behaviour as ``SQLiteRAGStore``
/// (see ``RAGStore``) in the tables `rag_collections`, `rag_documents` and `rag_chunks` (vectors
/// as `bytea`, little-endian Float32s), created on first use under an advisory lock. Removing a
/// collection or document removes its rows by the foreign keys' cascade. Writes take a
/// transaction-wide advisory lock, so that two ingests into one new collection make it once.
///
/// Each collection belongs to an account (`rag_collections.account`; "" is the server's own, and
/// every store's unless scoped): a store ``scoped(to:)`` another account sees and changes only
/// that account's collections, as a shared server's keys need.
package final class PostgresRAGStore: RAGStore {
    let server: PostgresServer
    let logger: Logger
    /// The account whose collections this store holds ("" for the server's own).
    let account: String
    /// Whether ``close()`` closes the connections (the store that opened them), or leaves them
    /// to it (a scoped store).
    private let ownsServer: Bool
    /// The advisory lock that orders the migration and every write.
    static let lock: Int64 = 0x5241_7261_6700  // "RArag"
    /// How long a read (a search reads every vector of a collection) and a write (a whole
    /// ingest, in one transaction) may take: a database gone from the network, or a lock never
    /// released, fails the request within them instead of holding it for ever.
    let readLimit: Duration
    let writeLimit: Duration

    private init(
        server: PostgresServer, logger: Logger, limits: (read: Duration, write: Duration), account: String = "", ownsServer: Bool = true
    ) {
        self.server = server
        self.logger = logger
        (readLimit, writeLimit) = limits
        self.account = account
        self.ownsServer = ownsServer
    }

    /// The collections of `account`, over this store's connections (which stay this store's to close).
    package func scoped(to account: String) -> PostgresRAGStore {
        PostgresRAGStore(server: server, logger: logger, limits: (readLimit, writeLimit), account: account, ownsServer: false)
    }

    /// Connects to the database at `url` (``PostgresServer/Endpoint``) and creates the
    /// tables if they are missing; gives up after `timeout` when the server cannot be reached.
    /// Each read then has `readLimit`, each write `writeLimit`.
    package static func open(
        url: String, logger: Logger, timeout: Duration = .seconds(10), readLimit: Duration = .seconds(60),
        writeLimit: Duration = .seconds(300)
    ) async throws -> PostgresRAGStore {
        let server = try await PostgresServer.open(url: url, logger: logger, timeout: timeout) { server in
            try await server.client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lock))", logger: logger)
                for statement in schema { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            }
        }
        return PostgresRAGStore(server: server, logger: logger, limits: (readLimit, writeLimit))
    }

    package var location: String { server.location }

    package func close() async {
        if ownsServer { await server.close() }
    }

    package func collection(named name: String) async throws -> RAGCollection? {
        try await reading { try await self.collections($0, named: name).first }
    }

    package func collections() async throws -> [RAGCollection] {
        try await reading { try await self.collections($0, named: nil) }
    }

    package func documents(in collection: String) async throws -> [RAGDocument] {
        try await reading { [self] connection in
            guard let id = try await stored(connection, collection)?.id else {
                throw RAGStoreChecks.noCollection(collection)
            }
            let rows = try await connection.query(
                """
                SELECT d.path, d.format, d.sha256, d.size, d.ingested_at, (SELECT COUNT(*) FROM rag_chunks k WHERE k.document_id = d.id)
                FROM rag_documents d WHERE d.collection_id = \(id) ORDER BY d.path COLLATE "C"
                """,
                logger: logger
            )
            var documents: [RAGDocument] = []
            for try await (path, format, sha256, size, ingested, chunks) in rows.decode((String, String, String, Int, Double, Int).self) {
                documents.append(
                    RAGDocument(
                        collection: collection, path: path, format: DocumentFormat(rawValue: format) ?? .plainText, sha256: sha256,
                        size: size,
                        chunkCount: chunks, ingestedAt: Date(timeIntervalSince1970: ingested)
                    ))
            }
            return documents
        }
    }

    package func removeDocument(path: String, collection: String) async throws {
        try await writing { [self] connection in
            guard let id = try await stored(connection, collection)?.id else {
                throw RAGStoreChecks.noCollection(collection)
            }
            let removed = try await connection.query(
                "DELETE FROM rag_documents WHERE collection_id = \(id) AND path = \(path) RETURNING id", logger: logger)
            guard try await Self.hasRows(removed) else { throw RAGStoreChecks.noDocument(path, collection: collection) }
        }
    }

    package func removeCollection(_ name: String) async throws {
        try await writing { [self] connection in
            let removed = try await connection.query(
                "DELETE FROM rag_collections WHERE account = \(account) AND name = \(name) RETURNING id", logger: logger)
            guard try await Self.hasRows(removed) else { throw RAGStoreChecks.noCollection(name) }
        }
    }

    package func chunkRowCount() async throws -> Int {
        try await reading { [self] connection in
            let query: PostgresQuery = """
                SELECT COUNT(*) FROM rag_chunks k JOIN rag_documents d ON k.document_id = d.id
                JOIN rag_collections c ON d.collection_id = c.id WHERE c.account = \(account)
                """
            for try await total in try await connection.query(query, logger: logger).decode(Int.self) {
                return total
            }
            return 0
        }
    }

    /// The account's collections (those named `name`, or all), with their counts, by name in byte order (as SQLite sorts).
    func collections(_ connection: PostgresConnection, named name: String?) async throws -> [RAGCollection] {
        let query: PostgresQuery = """
            SELECT c.name, c.embedding_model, c.dimensions, c.created_at,
                (SELECT COUNT(*) FROM rag_documents d WHERE d.collection_id = c.id),
                (SELECT COUNT(*) FROM rag_chunks k JOIN rag_documents d ON k.document_id = d.id WHERE d.collection_id = c.id)
            FROM rag_collections c WHERE c.account = \(account) AND (\(name)::text IS NULL OR c.name = \(name)) ORDER BY c.name COLLATE "C"
            """
        var collections: [RAGCollection] = []
        for try await (name, model, dimensions, created, documents, chunks) in try await connection.query(query, logger: logger)
            .decode((String, String, Int, Double, Int, Int).self)
        {
            collections.append(
                RAGCollection(
                    name: name, embeddingModelId: model, dimensions: dimensions, createdAt: Date(timeIntervalSince1970: created),
                    documentCount: documents, chunkCount: chunks
                ))
        }
        return collections
    }

    /// The account's collection `name` without its counts, nil when there is none.
    func stored(_ connection: PostgresConnection, _ name: String) async throws -> StoredCollection? {
        let rows = try await connection.query(
            "SELECT id, embedding_model, dimensions FROM rag_collections WHERE account = \(account) AND name = \(name)", logger: logger)
        for try await (id, model, dimensions) in rows.decode((Int, String, Int).self) {
            return StoredCollection(id: id, name: name, embeddingModelId: model, dimensions: dimensions)
        }
        return nil
    }

    /// Whether `rows` has any row.
    static func hasRows(_ rows: PostgresRowSequence) async throws -> Bool {
        for try await _ in rows { return true }
        return false
    }

    /// Runs `body` on a pooled connection within ``readLimit``.
    func reading<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await server.withConnection(timeout: readLimit, body)
    }

    /// Runs `body` in one transaction holding the store's write lock, within ``writeLimit``: its
    /// changes are kept when it returns and undone when it throws.
    func writing<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = logger
        return try await server.withTransaction(timeout: writeLimit, logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lock))", logger: logger)
            return try await body(connection)
        }
    }

    /// The tables, made or brought up to date: a database made before collections had accounts
    /// gets the column (its collections the server's own) and names unique per account.
    private static let schema = [
        """
        CREATE TABLE IF NOT EXISTS rag_collections (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account TEXT NOT NULL DEFAULT '',
            name TEXT NOT NULL, embedding_model TEXT NOT NULL, dimensions BIGINT NOT NULL, created_at DOUBLE PRECISION NOT NULL)
        """,
        "ALTER TABLE rag_collections ADD COLUMN IF NOT EXISTS account TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE rag_collections DROP CONSTRAINT IF EXISTS rag_collections_name_key",
        "CREATE UNIQUE INDEX IF NOT EXISTS rag_collections_account_name ON rag_collections (account, name)",
        """
        CREATE TABLE IF NOT EXISTS rag_documents (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            collection_id BIGINT NOT NULL REFERENCES rag_collections (id) ON DELETE CASCADE, path TEXT NOT NULL, format TEXT NOT NULL,
            sha256 TEXT NOT NULL, size BIGINT NOT NULL, ingested_at DOUBLE PRECISION NOT NULL, UNIQUE (collection_id, path))
        """,
        """
        CREATE TABLE IF NOT EXISTS rag_chunks (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            document_id BIGINT NOT NULL REFERENCES rag_documents (id) ON DELETE CASCADE, ordinal BIGINT NOT NULL, text TEXT NOT NULL,
            start_offset BIGINT NOT NULL, end_offset BIGINT NOT NULL, vector BYTEA NOT NULL, UNIQUE (document_id, ordinal))
        """,
    ]
}
