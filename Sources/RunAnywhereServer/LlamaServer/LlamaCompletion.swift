import Foundation
import RunAnywhere

/// llama-server's answer to `/completion` and `/infill`: whole, or the last streamed event
/// (`stop` true), with its counts and `timings`. The streamed pieces before it carry `content`
/// (and `completion_probabilities`) with `stop` false.
struct LlamaCompletion: Encodable, Sendable {
    /// A token with its log-probability and those of the likeliest at its place (`n_probs`),
    /// as llama-server writes `completion_probabilities`.
    struct Probability: Encodable, Sendable {
        let token: TokenLogprob
        let alternatives: Bool

        enum CodingKeys: String, CodingKey { case id, token, bytes, logprob, topLogprobs = "top_logprobs" }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(token.id, forKey: .id)
            try container.encode(token.text, forKey: .token)
            try container.encode(token.bytes.map(Int.init), forKey: .bytes)
            try container.encode(token.logprob, forKey: .logprob)
            if alternatives {
                try container.encode(token.topLogprobs.map { Probability(token: $0, alternatives: false) }, forKey: .topLogprobs)
            }
        }
    }

    var index = 0
    let content: String
    /// Token ids are not returned (llama-server's `return_tokens`); always empty.
    let tokens: [Int32] = []
    let stop: Bool
    var model: String?
    var tokensPredicted: Int?
    var tokensEvaluated: Int?
    var hasNewLine: Bool?
    /// Whether the context filled before the answer ended or reached `n_predict`.
    var truncated: Bool?
    /// Why it ended: `eos` (the model ended it), `word` (a stop string, `stopping_word`), `limit`
    /// (`n_predict` or the context) or `none` (cancelled).
    var stopType: String?
    var stoppingWord: String?
    var tokensCached: Int?
    var timings: Timings?
    var completionProbabilities: [Probability]?

    enum CodingKeys: String, CodingKey {
        case index, content, tokens, stop, model, timings, tokensPredicted = "tokens_predicted", tokensEvaluated = "tokens_evaluated"
        case hasNewLine = "has_new_line", truncated, stopType = "stop_type", stoppingWord = "stopping_word"
        case tokensCached = "tokens_cached", completionProbabilities = "completion_probabilities"
    }

    /// A streamed piece of text, with its tokens' probabilities when the request asked for them.
    init(piece: String, probabilities: [TokenLogprob]?) {
        content = piece
        stop = false
        completionProbabilities = probabilities.map { $0.map { Probability(token: $0, alternatives: true) } }
    }

    /// The whole answer to a request for at most `maxTokens`, or with `streamed` the last event
    /// (its text already sent).
    init(_ result: LLMGenerationResult, maxTokens: Int, streamed: Bool) {
        content = streamed ? "" : result.text
        stop = true
        model = result.modelUsed
        tokensPredicted = result.tokensUsed
        tokensEvaluated = result.inputTokens
        hasNewLine = result.text.contains("\n")
        truncated = result.stopReason == .length && result.tokensUsed < maxTokens
        stopType =
            switch result.stopReason {
            case .stop, .toolCalls: result.stopSequence == nil ? "eos" : "word"
            case .length: "limit"
            case .cancelled: "none"
            }
        stoppingWord = result.stopSequence ?? ""
        tokensCached = result.inputTokens + result.tokensUsed
        timings = Timings(result)
        if !streamed { completionProbabilities = result.logprobs.map { $0.map { Probability(token: $0, alternatives: true) } } }
    }

    /// The fields `paths` name (`timings/prompt_n` reaches into `timings`), each under its path,
    /// as llama-server's `response_fields` picks them; a path that names nothing is left out.
    static func picking(_ paths: [String], from value: some Encodable) throws -> JSONValue {
        let whole = try JSONValue(parsing: String(decoding: try JSONEncoder.server.encode(value), as: UTF8.self))
        var picked = JSONObject()
        for path in paths {
            var node: JSONValue? = whole
            for key in path.split(separator: "/", omittingEmptySubsequences: false) { node = node?[String(key)] }
            if let node { picked[path] = node }
        }
        return .object(picked)
    }
}
