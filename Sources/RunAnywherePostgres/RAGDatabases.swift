import Foundation
import RunAnywhere

/// Opens the RAG session a `--database` value names: the SQLite file of the data folder by
/// default, another SQLite file, or a PostgreSQL database.
///
/// ```swift
/// let rag = try await RAGDatabases.session("postgres://rag@db.local/docs", runtime: RunAnywhere.runtime())
/// defer { Task { await rag.close() } }
/// ```
public enum RAGDatabases {
    /// The environment variable `runanywhere` reads the database from when no option names one.
    public static let environmentVariable = "RUNANYWHERE_RAG_DATABASE"

    /// A session over PostgreSQL for a `postgres://` or `postgresql://` URL
    /// (`postgres://user:password@host:port/database`, with `?sslmode=disable|prefer|require`,
    /// or `?host=/socket/folder`), whose tables are created on first use; otherwise over the
    /// SQLite file at the path `database` (nil or empty: `rag.sqlite` in the runtime's data
    /// folder). A server that does not answer within `timeout` throws ``RunAnywhere/ErrorCode/networkError``;
    /// a malformed URL, a folder, or a file in a folder that does not exist
    /// ``RunAnywhere/ErrorCode/invalidInput``. Close the session when done with it.
    public static func session(
        _ database: String?, runtime: RunAnywhereRuntime, reader: DocumentReader = DocumentReader(), chunker: TextChunker = TextChunker(),
        timeout: Duration = .seconds(10)
    ) async throws -> RAGSession {
        guard let database, !database.isEmpty else { return RAGSession(runtime: runtime, reader: reader, chunker: chunker) }
        guard PostgresServer.isURL(database) else {
            return RAGSession(runtime: runtime, database: try SQLiteFile.named(database), reader: reader, chunker: chunker)
        }
        let store = try await PostgresRAGStore.open(url: database, logger: runtime.configuration.logger, timeout: timeout)
        return RAGSession(runtime: runtime, store: store, reader: reader, chunker: chunker)
    }
}
