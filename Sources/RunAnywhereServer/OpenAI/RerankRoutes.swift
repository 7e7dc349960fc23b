import Foundation
import Hummingbird
import RunAnywhere

/// `POST /v1/rerank` and `POST /rerank`, reranking in the shape llama.cpp's server and Jina use:
/// `query`, `documents` (up to `RerankOptions.maxDocuments` texts, or Jina's `{"text": …}`
/// objects; none empty), `model` (a reranker id; by default the first downloaded reranker),
/// `top_n` (how many of the best to return; all by default), `return_documents` (each result
/// with its `document` as `{"text": …}`; off by default, as llama.cpp's server answers), and
/// RunAnywhere's own `truncate` (shorten a document whose pair with the query is longer than the
/// model reads instead of refusing it) and `keep_alive`. Results come best first, each with its
/// `index` in `documents` and its `relevance_score`: the model's raw score (a logit for BERT-style
/// cross-encoders), as llama.cpp's server returns it.
struct RerankRoutes: Sendable {
    let runtime: RunAnywhereRuntime
    let configuration: ServerConfiguration

    struct RerankRequest: Decodable, Sendable {
        let query: String
        let documents: [Document]
        let model: String?
        @NumberField var topN: Int?
        let returnDocuments: Bool?
        let truncate: Bool?
        let keepAlive: KeepAliveField?
        enum CodingKeys: String, CodingKey {
            case query, documents, model, topN = "top_n", returnDocuments = "return_documents", truncate, keepAlive = "keep_alive"
        }
    }

    /// A document: a string, or an object with its `text` (as Jina's API also takes them).
    struct Document: Decodable, Sendable {
        let text: String

        private enum CodingKeys: String, CodingKey { case text }

        init(from decoder: any Decoder) throws {
            if let text = try decoder.singleValueContainer().decodeIfOfType(String.self) {
                self.text = text
            } else if let text = try (try? decoder.container(keyedBy: CodingKeys.self))?.decodeIfOfType(String.self, forKey: .text) {
                self.text = text
            } else {
                throw APIError(
                    .badRequest, "documents must be an array of strings (or of objects with a text string)", param: "documents")
            }
        }
    }

    struct RerankList: Encodable, Sendable {
        struct Item: Encodable, Sendable {
            struct Text: Encodable, Sendable { let text: String }
            let index: Int
            let relevanceScore: Double
            let document: Text?
            enum CodingKeys: String, CodingKey { case index, relevanceScore = "relevance_score", document }
        }

        struct Usage: Encodable, Sendable {
            let promptTokens: Int
            let totalTokens: Int
            enum CodingKeys: String, CodingKey { case promptTokens = "prompt_tokens", totalTokens = "total_tokens" }
        }

        let object = "list"
        let model: String
        let results: [Item]
        let usage: Usage
    }

    func register(on router: some RouterMethods<ServerContext>) {
        for path in ["v1/rerank", "rerank"] {
            router.post(RouterPath(path)) { request, _ in try await rerank(request) }
        }
    }

    private func rerank(_ request: Request) async throws -> Response {
        let body = try await decodeJSON(RerankRequest.self, from: request, limit: configuration.maxBodySize)
        let documents = body.documents.map(\.text)
        guard !body.query.isEmpty else {
            throw APIError(.badRequest, "query is empty; there is nothing to rank the documents against", param: "query")
        }
        guard !documents.isEmpty else {
            throw APIError(.badRequest, "documents is an empty array; give at least one document", param: "documents")
        }
        guard documents.count <= RerankOptions.maxDocuments else {
            throw APIError(
                .badRequest, "documents has \(documents.count) entries; one request ranks at most \(RerankOptions.maxDocuments)",
                param: "documents")
        }
        if let index = documents.firstIndex(where: \.isEmpty) {
            throw APIError(.badRequest, "documents \(index) is empty; there is nothing to rank", param: "documents")
        }
        if let topN = body.topN, topN < 1 { throw APIError(.badRequest, "top_n must be at least 1 (got \(topN))", param: "top_n") }
        let result: RerankResult
        do {
            result = try await runtime.rerank(
                query: body.query, documents: documents, model: body.model,
                options: RerankOptions(topN: body.topN, truncate: body.truncate ?? false),
                loadOptions: configuration.loadOptions, keepAlive: body.keepAlive?.value ?? configuration.keepAlive
            )
        } catch let error as SDKError where error.code == .contextTooLong {
            throw APIError(.badRequest, error.message, param: "documents", code: "context_length_exceeded")  // the SDK's message, naming the document
        }
        let items = result.results.map {
            RerankList.Item(
                index: $0.index, relevanceScore: $0.score, document: body.returnDocuments == true ? .init(text: $0.document) : nil)
        }
        return try jsonResponse(
            RerankList(
                model: result.modelId, results: items, usage: .init(promptTokens: result.totalTokens, totalTokens: result.totalTokens)
            ))
    }
}
