import ArgumentParser
import Foundation
import RunAnywhere
import RunAnywherePostgres

/// `--database`: where `rag` keeps its collections.
struct RAGDatabaseOption: ParsableArguments {
    /// The help of `--database` and of `--rag-database` (chat, serve).
    static let help: ArgumentHelp =
        "The collections' database: a postgres:// URL or an SQLite file (default: $\(RAGDatabases.environmentVariable), else rag.sqlite in the data folder)."

    @Option(name: .long, help: help) var database: String?

    /// Runs `body` with a session over the collections of `--database`, closed after it.
    func withSession<T>(
        reader: DocumentReader = DocumentReader(), chunker: TextChunker = TextChunker(), _ body: (RAGSession) async throws -> T
    ) async throws -> T {
        try await Self.withSession(database, reader: reader, chunker: chunker, body)
    }

    /// Runs `body` with a session over the collections of `database` (as ``session(_:reader:chunker:)``
    /// finds them), closed after it.
    static func withSession<T>(
        _ database: String?, reader: DocumentReader = DocumentReader(), chunker: TextChunker = TextChunker(),
        _ body: (RAGSession) async throws -> T
    ) async throws -> T {
        let session = try await session(database, reader: reader, chunker: chunker)
        do {
            let value = try await body(session)
            await session.close()
            return value
        } catch {
            await session.close()
            throw error
        }
    }

    /// A session over the collections of `database`, else of `$RUNANYWHERE_RAG_DATABASE`, else of the data folder's rag.sqlite.
    static func session(_ database: String?, reader: DocumentReader = DocumentReader(), chunker: TextChunker = TextChunker()) async throws
        -> RAGSession
    {
        let named = database ?? ProcessInfo.processInfo.environment[RAGDatabases.environmentVariable]
        return try await RAGDatabases.session(named, runtime: RunAnywhere.runtime(), reader: reader, chunker: chunker)
    }
}
