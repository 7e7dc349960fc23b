import Foundation
import Hummingbird
import RunAnywhere

/// RunAnywhere's document collections (retrieval-augmented generation), which the web app's
/// Documents screen and Chat use; the same database as `runanywhere rag` (``ServerConfiguration/ragSession``):
/// - `GET /api/rag/collections`: each collection with its embedding model and document and chunk counts;
/// - `DELETE /api/rag/collections/{name}`: the collection with its documents and vectors; 204;
/// - `GET /api/rag/collections/{name}/documents`: its documents, by path;
/// - `POST /api/rag/collections/{name}/documents`, multipart: `files[]` (text, Markdown, HTML or,
///   with a registered PDF reader, PDF files, named by their file names; one named as a stored
///   document replaces it) and, for a new collection, `embeddingModel`; 201 with the ingest
///   report. Every file is checked before anything is stored: a Word file, a binary, damaged (not
///   UTF-8, not a readable PDF) or empty one, or one too large is a 400 naming it, and the
///   collection stays as it was;
/// - `DELETE /api/rag/collections/{name}/documents?path=…`: one document, named as listed; 204;
/// - `GET /api/rag/collections/{name}/passages?document=…&ordinal=n`: a stored chunk, the passage a
///   source came from;
/// - `POST /api/rag/collections/{name}/questions`: an answer from the collection (``RAGQuestionRequest``);
/// - `POST /api/rag/collections/{name}/search`: the passages a question would be answered from,
///   with no answer made (``RAGSearchRequest``), for an app that makes its own prompt.
///
/// An unknown collection, document or chunk is a 404.
struct RAGRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration
    /// The server's own collections.
    let sharedSession: RAGSession

    init(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) {
        self.runtime = runtime
        self.configuration = configuration
        sharedSession = configuration.ragSession ?? runtime.ragSession()
    }

    /// The collections of the request's account (``RequestAccount``).
    func session() throws -> RAGSession { try RequestAccount.documents(sharedSession, runtime: runtime) }

    struct Collections: Encodable, Sendable { let collections: [RAGCollection] }
    struct Documents: Encodable, Sendable { let documents: [RAGDocument] }

    /// The upload form.
    struct UploadForm: MultipartForm, Sendable {
        let files: [UploadedFile]
        let embeddingModel: String?
        enum CodingKeys: String, CodingKey, CaseIterable { case files, embeddingModel }
    }

    func register(on router: some RouterMethods<ServerContext>) {
        router.get("api/rag/collections") { _, _ in
            try jsonResponse(Collections(collections: try await session().listCollections()))
        }
        router.delete("api/rag/collections/:name") { _, context in
            let name = try Self.name(context)
            try await Self.notFound { try await session().removeCollection(name) }
            return Response(status: .noContent)
        }
        router.get("api/rag/collections/:name/documents") { _, context in
            let name = try Self.name(context)
            return try jsonResponse(Documents(documents: try await Self.notFound { try await session().listDocuments(collection: name) }))
        }
        router.post("api/rag/collections/:name/documents") { request, context in
            let name = try Self.name(context)
            let form = try await decodeMultipartForm(UploadForm.self, from: request, limit: configuration.maxBodySize)
            let embeddingModel = try form.embeddingModel.flatMap {
                $0.isEmpty ? nil : try runtime.model(id: $0, category: .embedding, field: "embeddingModel").id
            }
            let documents = try form.files.map { file in try session().reader.read(file.data, path: try Self.documentName(file)) }
            let report = try await session().ingest(
                documents: documents, collection: name,
                options: RAGIngestOptions(embeddingModel: embeddingModel, threads: configuration.threads)
            )
            return try jsonResponse(report, status: .created)
        }
        router.delete("api/rag/collections/:name/documents") { request, context in
            let name = try Self.name(context)
            let path = try Self.query(request, "path")
            try await Self.notFound { try await session().removeDocument(path, collection: name) }
            return Response(status: .noContent)
        }
        router.get("api/rag/collections/:name/passages") { request, context in
            let name = try Self.name(context)
            let document = try Self.query(request, "document")
            guard let ordinal = Int(try Self.query(request, "ordinal")), ordinal >= 0 else {
                throw APIError(.badRequest, "ordinal must be a chunk's number, 0 or more", param: "ordinal")
            }
            return try jsonResponse(
                try await Self.notFound { try await session().passage(document: document, ordinal: ordinal, collection: name) })
        }
        router.post("api/rag/collections/:name/search") { request, context in
            let name = try Self.name(context)
            let body = try await decodeJSON(RAGSearchRequest.self, from: request, limit: configuration.maxBodySize)
            guard body.query.contains(where: { !$0.isWhitespace }) else { throw APIError(.badRequest, "query is blank", param: "query") }
            try RAGQuestionRequest.check(topK: body.topK)
            let reranker = try RAGQuestionRequest.reranker(body.reranker, runtime: runtime)
            let sources = try await Self.notFound {
                try await session().retrieve(
                    body.query, collection: name, topK: body.topK ?? RAGQueryOptions.defaultTopK, threads: configuration.threads,
                    reranker: reranker)
            }
            return try jsonResponse(RAGSearchBody(collection: name, sources: RAGSourceBody.numbered(sources)))
        }
        router.post("api/rag/collections/:name/questions") { request, context in
            let name = try Self.name(context)
            let body = try await decodeJSON(RAGQuestionRequest.self, from: request, limit: configuration.maxBodySize)
            let answer = try await Self.notFound {
                try await session().query(
                    body.question, collection: name, topK: body.topK ?? RAGQueryOptions.defaultTopK,
                    options: try body.options(runtime: runtime, configuration: configuration))
            }
            guard body.stream ?? true else { return try jsonResponse(RAGAnswerBody(try await answer.result())) }
            return ServerSentEvents.response { writer in try await RAGAnswerBody.stream(answer, to: &writer) }
        }
    }

    /// The collection named in the path, checked.
    private static func name(_ context: ServerContext) throws -> String {
        let name = try context.pathParameter("name")
        do {
            try RAGCollection.validateName(name)
        } catch let error as SDKError {
            throw APIError(.badRequest, error.message, param: "name", code: "invalid_collection_name")
        }
        return name
    }

    /// The query parameter `key`, required and not empty.
    private static func query(_ request: Request, _ key: String) throws -> String {
        guard let value = request.uri.queryParameters.get(key), !value.isEmpty else {
            throw APIError(.badRequest, "The query parameter '\(key)' is required", param: key)
        }
        return value
    }

    /// The name an uploaded file is stored under: its file name without any folders.
    private static func documentName(_ file: UploadedFile) throws -> String {
        let name = (file.filename ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        guard !name.isEmpty, name != ".", name != "..", !name.contains(where: { $0.isNewline || $0.asciiValue.map { $0 < 32 } == true })
        else {
            throw APIError(.badRequest, "Each file needs a file name (its extension tells its format)", param: "files")
        }
        return name
    }

    /// Runs `body`, turning the store's "no such collection, document or chunk" into a 404.
    static func notFound<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SDKError where error.code == .fileNotFound {
            throw APIError(.notFound, error.message, code: "not_found")
        }
    }
}
