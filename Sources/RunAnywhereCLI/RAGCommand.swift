import ArgumentParser
import Foundation
import RunAnywhere

/// `runanywhere rag …`: questions answered from your own documents.
struct RAGCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rag", abstract: "Answer questions from your own documents, with numbered sources (retrieval-augmented generation).",
        discussion: """
            `rag ingest` reads text, Markdown, HTML and PDF files (a folder: its files of those kinds), splits them into \
            overlapping chunks, embeds them and stores them in a collection (SQLite, rag.sqlite in the data folder, or \
            PostgreSQL with --database postgres://… or $RUNANYWHERE_RAG_DATABASE); ingesting a file again \
            replaces it. `rag query` retrieves the chunks closest to a question and streams the language model's answer, then \
            its numbered sources; `rag search` retrieves them alone.
            """,
        subcommands: [Ingest.self, Query.self, Search.self, List.self, Remove.self]
    )

    struct Ingest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ingest", abstract: "Add documents to a collection (or replace them), as chunks with their vectors.",
            discussion:
                "Nothing is stored unless every file is read: a missing, binary, unreadable (a damaged or password-protected PDF) or too large file is an error and leaves the collection as it was."
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: RAGDatabaseOption
        @Option(name: .long, help: "The collection (made on first use).") var collection = RAGCollection.defaultName
        @Option(
            name: .customLong("embedding-model"),
            help:
                "Embedding model of a new collection (default: \(SDKConstants.Models.defaultEmbeddingModelID)); an existing collection keeps its own."
        )
        var embeddingModel: String?
        @Option(name: .customLong("chunk-size"), help: "Most characters per chunk.") var chunkSize = TextChunker.defaultSize
        @Option(name: .customLong("chunk-overlap"), help: "Characters a chunk repeats from the one before.") var chunkOverlap = TextChunker
            .defaultOverlap
        @Option(name: .customLong("max-file-size"), help: "Largest file read, in MiB.") var maxFileSize =
            DocumentReader.defaultMaxFileSize >> 20
        @Option(name: .long, help: "CPU threads for embedding.") var threads: Int?
        @Flag(name: .long, help: "Print the report as JSON.") var json = false
        @Argument(help: "Files or folders to ingest.") var paths: [String] = []

        func run() async throws {
            try await CLIContext.run(global) { _ in
                guard (1...4096).contains(maxFileSize) else {
                    throw SDKError(.invalidInput, "--max-file-size must be 1 to 4096 (MiB), not \(maxFileSize)")
                }
                let report = try await store.withSession(
                    reader: DocumentReader(maxFileSize: maxFileSize << 20), chunker: TextChunker(size: chunkSize, overlap: chunkOverlap)
                ) { session in
                    try await session.ingest(
                        paths: paths, collection: collection, options: RAGIngestOptions(embeddingModel: embeddingModel, threads: threads))
                }
                if json { return try JSONOutput.print(report) }
                let lines = report.documents.map {
                    "\($0.path): \($0.chunkCount) chunk\($0.chunkCount == 1 ? "" : "s")\($0.replaced ? " (replaced)" : "")\n"
                }
                let total = report.documents.reduce(0) { $0 + $1.chunkCount }
                let count = report.documents.count
                Terminal.write(
                    lines.joined()
                        + "Ingested \(count) document\(count == 1 ? "" : "s") (\(total) chunks) into '\(report.collection)' with \(report.embeddingModelId).\n"
                )
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the collections, or one collection's documents.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: RAGDatabaseOption
        @Option(name: .long, help: "List this collection's documents.") var collection: String?
        @Flag(name: .long, help: "Print a JSON array.") var json = false

        func run() async throws {
            try await CLIContext.run(global) { _ in
                try await store.withSession { try await list($0) }
            }
        }

        private func list(_ session: RAGSession) async throws {
            if let collection {
                let documents = try await session.listDocuments(collection: collection)
                if json { return try JSONOutput.print(documents) }
                guard !documents.isEmpty else { return Terminal.write("Collection '\(collection)' has no documents.\n") }
                let rows = documents.map {
                    [
                        $0.path, $0.format.rawValue, "\($0.chunkCount)",
                        ByteCountFormatter.string(fromByteCount: Int64($0.size), countStyle: .file),
                        $0.ingestedAt.formatted(date: .abbreviated, time: .shortened),
                    ]
                }
                return Terminal.write(Terminal.table(["PATH", "FORMAT", "CHUNKS", "SIZE", "INGESTED"], rows))
            }
            let collections = try await session.listCollections()
            if json { return try JSONOutput.print(collections) }
            guard !collections.isEmpty else { return Terminal.write("No collections; `runanywhere rag ingest FILE...` makes one.\n") }
            let rows = collections.map {
                [
                    $0.name, $0.embeddingModelId, "\($0.dimensions)", "\($0.documentCount)", "\($0.chunkCount)",
                    $0.createdAt.formatted(date: .abbreviated, time: .shortened),
                ]
            }
            Terminal.write(Terminal.table(["NAME", "EMBEDDING MODEL", "DIMENSIONS", "DOCUMENTS", "CHUNKS", "CREATED"], rows))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Remove a collection, or one document of it, with their vectors.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var store: RAGDatabaseOption
        @Argument(help: "The collection.") var collection: String
        @Argument(help: "The document: its path, as ingested, or its name as `rag list` shows it (default: the whole collection).")
        var document: String?

        func run() async throws {
            try await CLIContext.run(global) { _ in
                try await store.withSession { try await remove($0) }
            }
        }

        private func remove(_ session: RAGSession) async throws {
            if let document {
                // A name stored as given (an upload's), else a file's path from the current folder.
                let stored = try await session.listDocuments(collection: collection).map(\.path)
                let name = stored.contains(document) ? document : URL(fileURLWithPath: document).standardizedFileURL.path
                try await session.removeDocument(name, collection: collection)
                Terminal.write("Removed \(name) from '\(collection)'.\n")
            } else {
                try await session.removeCollection(collection)
                Terminal.write("Removed the collection '\(collection)'.\n")
            }
        }
    }
}
