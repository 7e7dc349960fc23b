import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// A question to a collection, `POST /api/rag/collections/{name}/questions`: `question`, and
/// optionally `model` (a language model; by default ``RunAnywhere/RunAnywhere/defaultModelID``), `topK`
/// (passages retrieved), `reranker` (a reranker id, or `none`; by default the first downloaded
/// reranker, if any), `maxTokens`, `temperature`, `seed` over the saved settings, and `stream`
/// (default true: server-sent events; false: one JSON ``RAGAnswerBody``).
struct RAGQuestionRequest: Decodable, Sendable {
    let question: String
    let model: String?
    let reranker: String?
    @NumberField var topK: Int?
    @NumberField var maxTokens: Int?
    @NumberField var temperature: Float?
    @NumberField var seed: UInt32?
    let stream: Bool?

    /// The query's options: the saved generation settings on the server's threads, the model's
    /// defaults over them and this request's over both; the server's load options.
    func options(runtime: RunAnywhereRuntime, configuration: ServerConfiguration) async throws -> RAGQueryOptions {
        try Self.check(topK: topK)
        if let maxTokens, maxTokens < 1 { throw APIError(.badRequest, "maxTokens must be 1 or more", param: "maxTokens") }
        if let temperature, !(0...2).contains(temperature) {
            throw APIError(.badRequest, "temperature must be between 0 and 2", param: "temperature")
        }
        let model = try model.map { try runtime.model(id: $0, category: .language).id } ?? RunAnywhere.defaultModelID
        let reranker = try Self.reranker(reranker, runtime: runtime)
        var options = try await ServerSettings(dataDirectory: runtime.configuration.dataDirectory, configuration: configuration).load()
            .options
        if let threads = configuration.threads { options.threads = threads }
        runtime.defaults(of: model)?.apply(to: &options)
        if let maxTokens { options.maxTokens = maxTokens }
        if let temperature { options.temperature = temperature }
        if let seed { options.seed = seed }
        options.streamingEnabled = true
        return RAGQueryOptions(
            generation: options, model: model, loadOptions: configuration.loadOptions, embeddingThreads: configuration.threads,
            reranker: reranker
        )
    }

    /// A 400 naming `topK` unless it is nil or 1 to ``RAGQueryOptions/maxTopK``.
    static func check(topK: Int?) throws {
        if let topK, !(1...RAGQueryOptions.maxTopK).contains(topK) {
            throw APIError(.badRequest, "topK must be 1 to \(RAGQueryOptions.maxTopK)", param: "topK")
        }
    }

    /// The reranker `reranker` names (the automatic choice when nil), checked before any work: an
    /// unknown model, or one that is not a reranker, is refused naming the `reranker` field.
    static func reranker(_ reranker: String?, runtime: RunAnywhereRuntime) throws -> RAGReranker {
        do {
            let reranker = try reranker.map(RAGReranker.init(parsing:)) ?? .automatic
            if case .model(let id) = reranker { _ = try runtime.model(id: id, category: .reranking) }
            return reranker
        } catch let error as SDKError {
            throw APIError.from(error).naming("reranker")
        }
    }
}

/// A retrieved passage, numbered from 1 best first: a source of an answer (`[number]` in the
/// answer cites it) or a search's result.
struct RAGSourceBody: Encodable, Sendable {
    let number: Int
    let document: String
    let ordinal: Int
    let text: String
    let start: Int
    let end: Int
    let score: Double
    let rerankScore: Double?

    /// `sources`, best first, numbered.
    static func numbered(_ sources: [RAGSource]) -> [RAGSourceBody] {
        sources.enumerated().map { index, source in
            RAGSourceBody(
                number: index + 1, document: source.documentPath, ordinal: source.ordinal, text: source.text, start: source.start,
                end: source.end, score: source.score, rerankScore: source.rerankScore)
        }
    }
}

/// A search of a collection, `POST /api/rag/collections/{name}/search`: `query`, and optionally
/// `topK` (passages returned) and `reranker` (a reranker id, or `none`; by default the first
/// downloaded reranker, if any), as a question's retrieval takes them, with no answer made.
struct RAGSearchRequest: Decodable, Sendable {
    let query: String
    let reranker: String?
    @NumberField var topK: Int?
}

/// A search's passages (``RAGSearchRequest``), best first.
struct RAGSearchBody: Encodable, Sendable {
    let collection: String
    let sources: [RAGSourceBody]
}

/// An answer with its numbered sources: the `done` event of a streamed answer, or the whole body
/// of one asked with `"stream": false`.
struct RAGAnswerBody: Encodable, Sendable {
    let answer: String
    let reasoning: String?
    let sources: [RAGSourceBody]
    let collection: String
    let reranker: String?
    let model: String
    let stopReason: String
    let tokensUsed: Int
    let tokensPerSecond: Double

    init(_ answer: RAGAnswer) {
        self.answer = answer.text
        reasoning = answer.generation.thinkingContent
        sources = RAGSourceBody.numbered(answer.sources)
        collection = answer.collection
        reranker = answer.reranker
        model = answer.generation.modelUsed
        stopReason = answer.generation.stopReason.rawValue
        tokensUsed = answer.generation.tokensUsed
        tokensPerSecond = answer.generation.tokensPerSecond
    }

    /// Writes `answer` as server-sent events: `delta` pieces (`content`, or `reasoning`), then
    /// `done` with the answer and its sources, or `error`. A client that goes away stops it.
    static func stream(_ answer: RAGAnswerEvents, to writer: inout any ResponseBodyWriter) async throws {
        var pending: [ServerSentEvent] = []
        try await answer.generation.relay(
            to: &writer,
            event: { event, writer in
                if case .completed(let result) = event {
                    pending.append(try ServerSentEvents.event(RAGAnswerBody(answer.answer(result)), name: "done"))
                } else if let delta = try ServerSentEvents.delta(event) {
                    pending.append(delta)
                }
                try await ServerSentEvents.send(&pending, to: &writer)
            },
            failure: { error, _ in pending.append(try ServerSentEvents.error(error)) },
            closing: { writer in try await ServerSentEvents.send(&pending, to: &writer) }
        )
    }
}
