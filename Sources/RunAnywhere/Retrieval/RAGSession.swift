import Foundation

/// Questions answered from your own documents (retrieval-augmented generation) over named
/// collections kept on disk.
///
/// ```swift
/// let rag = try RunAnywhere.runtime().ragSession()
/// let report = try await rag.ingest(paths: ["docs/guide.md", "docs/faq.html"], collection: "docs")
/// let answer = try await rag.query("How do I reset the device?", collection: "docs")
/// for try await case .text(let piece) in answer { print(piece, terminator: "") }
/// for (number, source) in answer.sources.enumerated() { print("[\(number + 1)] \(source.documentPath) \(source.score)") }
/// ```
///
/// Ingesting reads each file (``DocumentReader``), splits it into overlapping chunks
/// (``TextChunker``), embeds them with the collection's embedding model and stores chunks and
/// vectors in a database (``database``): SQLite by default, PostgreSQL through RunAnywherePostgres's
/// `RAGDatabases`. A question is embedded with the same model, the closest
/// chunks by cosine similarity are retrieved (more of them, reranked down to the best, when a
/// reranker is downloaded or named: ``RAGReranker``), and the language model answers from them,
/// citing them by number. A session holds no state of its own but its database's connections: any
/// number of them, in any number of processes, may use one database.
public struct RAGSession: Sendable {
    /// The runtime that embeds and generates.
    public let runtime: RunAnywhereRuntime
    /// Where the collections are: the SQLite file's path, or the PostgreSQL database's URL
    /// without its password.
    public var database: String { store.location }
    /// How files are read (with the runtime's registered PDF reader when the reader given has
    /// none).
    public var reader: DocumentReader
    /// How documents are split.
    public var chunker: TextChunker
    /// The database of chunks and vectors.
    package let store: any RAGStore

    /// A session over the collections in the SQLite file `database` (by default `rag.sqlite` in
    /// the runtime's data folder, ``RuntimeConfiguration/dataDirectory``).
    public init(
        runtime: RunAnywhereRuntime, database: URL? = nil, reader: DocumentReader = DocumentReader(), chunker: TextChunker = TextChunker()
    ) {
        let url = database ?? runtime.configuration.dataDirectory.appendingPathComponent(SQLiteRAGStore.fileName)
        self.init(runtime: runtime, store: SQLiteRAGStore(url: url, logger: runtime.configuration.logger), reader: reader, chunker: chunker)
    }

    /// A session over the collections in `store`.
    package init(
        runtime: RunAnywhereRuntime, store: any RAGStore, reader: DocumentReader = DocumentReader(), chunker: TextChunker = TextChunker()
    ) {
        self.runtime = runtime
        self.store = store
        self.reader = reader
        if reader.pdf == nil { self.reader.pdf = runtime.frameworks.pdfReader }
        self.chunker = chunker
    }

    /// Lets go of the database's connections (a PostgreSQL session's; an SQLite one holds none
    /// between calls). The session is not used afterwards.
    public func close() async {
        await store.close()
    }

    /// Ingests the files `paths` (a folder stands for its document files, every level down:
    /// `DocumentReader.files(in:)`) into the collection `collection`, created on first use with
    /// the embedding model ``RAGIngestOptions/embeddingModel`` (default
    /// ``SDKConstants/Models/defaultEmbeddingModelID``). A file ingested before (by its absolute path)
    /// has its chunks replaced. Every file is read and split before anything is embedded, and
    /// all are stored in one transaction: a file that cannot be read (missing, PDF, binary, too
    /// large, empty) throws naming it and leaves the collection exactly as it was, as does any
    /// other failure. A collection made with another embedding model throws
    /// ``ErrorCode/modelIncompatible`` naming both. Chunks longer than the embedding model reads
    /// (rare at the default size) are embedded from their start, and stored whole.
    public func ingest(paths: [String], collection: String = RAGCollection.defaultName, options: RAGIngestOptions = RAGIngestOptions())
        async throws -> RAGIngestReport
    {
        _ = try await embeddingModel(collection: collection, options: options)  // a bad name or model fails before any file is read
        let documents = try self.files(paths).map { try reader.read($0) }
        return try await ingest(documents: documents, collection: collection, options: options)
    }

    /// Ingests documents already read (``DocumentReader/read(_:path:)``, for bytes that are no
    /// file, such as an upload) into the collection `collection`, as ``ingest(paths:collection:options:)``
    /// does: a document whose ``DocumentText/path`` was ingested before has its chunks replaced.
    public func ingest(
        documents texts: [DocumentText], collection: String = RAGCollection.defaultName, options: RAGIngestOptions = RAGIngestOptions()
    ) async throws -> RAGIngestReport {
        let model = try await embeddingModel(collection: collection, options: options)
        guard !texts.isEmpty else { throw SDKError(.emptyInput, "No documents given to ingest") }
        var paths = Set<String>()
        if let twice = texts.first(where: { !paths.insert($0.path).inserted }) {
            throw SDKError(.invalidInput, "The document \(twice.path) is given twice")
        }
        let documents = try texts.map { ($0, try chunker.chunks(of: $0.text)) }
        let embedded = try await runtime.embed(
            documents.flatMap { $0.1.map(\.text) }, model: model, options: EmbeddingOptions(truncate: true, threads: options.threads),
            loadOptions: ModelLoadOptions(threads: options.threads)
        )
        var vectors = embedded.embeddings[...]
        let ingested = documents.map { document, chunks in
            defer { vectors = vectors.dropFirst(chunks.count) }
            return IngestedDocument(document: document, chunks: chunks, vectors: Array(vectors.prefix(chunks.count)))
        }
        let stored = try await store.write(
            ingested, collection: collection, embeddingModel: embedded.modelId, dimensions: embedded.dimensions)
        return RAGIngestReport(
            collection: collection, embeddingModelId: embedded.modelId,
            documents: stored.map {
                .init(path: $0.document.path, format: $0.document.format, chunkCount: $0.document.chunkCount, replaced: $0.replaced)
            },
            embeddingTokens: embedded.totalTokens
        )
    }

    /// Every collection, by name, with its embedding model and counts.
    public func listCollections() async throws -> [RAGCollection] {
        try await store.collections()
    }

    /// The documents of the collection `collection`, by path; an unknown collection throws ``ErrorCode/fileNotFound``.
    public func listDocuments(collection: String = RAGCollection.defaultName) async throws -> [RAGDocument] {
        try RAGCollection.validateName(collection)
        return try await store.documents(in: collection)
    }

    /// Removes the document `name` from `collection`, with its chunks and vectors: its
    /// ``RAGDocument/path`` as stored (a file's absolute path as ingested, or the name an uploaded
    /// document was given). One that is not there throws ``ErrorCode/fileNotFound``.
    public func removeDocument(_ name: String, collection: String = RAGCollection.defaultName) async throws {
        try RAGCollection.validateName(collection)
        try await store.removeDocument(path: name, collection: collection)
    }

    /// Removes the collection `name` with its documents, chunks and vectors. One that is not
    /// there throws ``ErrorCode/fileNotFound``.
    public func removeCollection(_ name: String) async throws {
        try RAGCollection.validateName(name)
        try await store.removeCollection(name)
    }

    /// The embedding model an ingest into `collection` uses, after checking the collection's
    /// name, the chunker's settings, and that the collection (if it exists) was made with it.
    private func embeddingModel(collection: String, options: RAGIngestOptions) async throws -> String {
        try RAGCollection.validateName(collection)
        try chunker.validate()
        let existing = try await store.collection(named: collection)
        let model = options.embeddingModel ?? existing?.embeddingModelId ?? SDKConstants.Models.defaultEmbeddingModelID
        if let existing { try RAGStoreChecks.check(existing, model: model, dimensions: existing.dimensions) }
        return model
    }

    /// `paths` as files, folders replaced by their document files, each once.
    private func files(_ paths: [String]) throws -> [URL] {
        guard !paths.isEmpty else { throw SDKError(.emptyInput, "No documents given to ingest") }
        var seen = Set<String>()
        var files: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            var isFolder: ObjCBool = false
            let found =
                FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
                ? try reader.files(in: url) : [url]
            if isFolder.boolValue, found.isEmpty {
                throw SDKError(.emptyInput, "The folder \(url.path) has no documents (.txt, .md, .html files)")
            }
            for file in found where seen.insert(file.path).inserted { files.append(file) }
        }
        return files
    }
}
