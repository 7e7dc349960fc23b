import Foundation
import RunAnywhere

/// `POST /v1/completions`: each prompt is read verbatim, without a chat template, as text or as
/// the model's token ids; with `echo`, its text, and with `logprobs` its tokens'
/// log-probabilities, begin the choice. With `suffix`, each text prompt is the text before a gap
/// that the choice fills in (a code model's fill-in-the-middle).
struct CompletionRequest: Decodable, Sendable {
    /// One prompt, or several: each gets `n` choices, indexed prompt by prompt.
    let prompts: [CompletionPrompt]
    let echo: Bool
    /// The text after the gap; nil (or empty, as ollama reads it) for a plain completion.
    let suffix: String?
    var fields: GenerationFields

    /// The most completions a request may ask for: prompts × `n`, each a generation run beside
    /// the others (a server runs 4 at once and queues 16 by default).
    static let maxCompletions = 16

    enum CodingKeys: String, CodingKey { case prompt, echo, suffix }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func tokens(_ ids: [Int]) throws -> CompletionPrompt {
            guard let prompt = CompletionPrompt(ids: ids) else { throw CompletionPrompt.invalidTokens }
            return prompt
        }
        if let one = try container.decodeIfOfType(String.self, forKey: .prompt) {
            prompts = [.text(one)]
        } else if let many = try container.decodeIfOfType([String].self, forKey: .prompt), !many.isEmpty {
            prompts = many.map(CompletionPrompt.text)
        } else if let one = try container.decodeIfOfType([Int].self, forKey: .prompt), !one.isEmpty {
            prompts = [try tokens(one)]
        } else if let many = try container.decodeIfOfType([[Int]].self, forKey: .prompt), !many.isEmpty {
            prompts = try many.map(tokens)
        } else {
            throw APIError(
                .badRequest, "prompt must be a string, an array of token ids, or a non-empty array of either", param: "prompt")
        }
        echo = try container.decodeIfPresent(Bool.self, forKey: .echo) ?? false
        suffix = try container.decodeIfPresent(String.self, forKey: .suffix).flatMap { $0.isEmpty ? nil : $0 }
        if suffix != nil {
            if echo { throw APIError(.badRequest, "echo cannot be used with suffix: a filled-in gap has no prompt to echo", param: "echo") }
            if prompts.contains(where: { if case .tokens = $0 { true } else { false } }) {
                throw APIError(
                    .badRequest, "suffix goes with text prompts, not token ids: the gap's prompt is written with the model's own tokens",
                    param: "suffix")
            }
        }
        fields = try GenerationFields(from: decoder)
        let n = fields.choices
        guard !(1...GenerationFields.maxChoices).contains(n) || prompts.count * n <= Self.maxCompletions else {
            throw APIError(
                .badRequest, "A request may ask for at most \(Self.maxCompletions) completions (prompts times n)", param: "prompt")
        }
    }
}

/// A completion, whole or one streamed piece of it.
struct Completion: Encodable, Sendable {
    struct Choice: Encodable, Sendable {
        let text: String
        var index = 0
        let finishReason: String?
        /// Null unless the request asked for them.
        var logprobs: CompletionLogprobs? = nil
        enum CodingKeys: String, CodingKey { case text, index, logprobs, finishReason = "finish_reason" }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(text, forKey: .text)
            try container.encode(index, forKey: .index)
            try container.encode(logprobs, forKey: .logprobs)
            try container.encode(finishReason, forKey: .finishReason)
        }
    }
    let id: String
    let object = "text_completion"
    let created: Int
    let model: String
    var choices: [Choice]
    let usage: Usage?
    let timings: Timings?
}

/// `GET /v1/models` entries: the installed models the `/v1` routes serve, with their category
/// (`language`, `embedding`, `reranking`, …) so that a client can tell which route takes each.
struct ModelObject: Encodable, Sendable {
    let id: String
    let object = "model"
    let created: Int
    let ownedBy = "runanywhere"
    let name: String
    let category: String
    let contextLength: Int?
    /// Anthropic's fields, which its client's `models.list()` requires: the same path serves both.
    let type = "model"
    let displayName: String
    let createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, object, created, ownedBy = "owned_by", name, category, contextLength = "context_length", type
        case displayName = "display_name", createdAt = "created_at"
    }

    init(_ model: ModelInfo) {
        id = model.id
        created = Int(model.createdAt.timeIntervalSince1970)
        name = model.name
        displayName = model.name
        category = model.category.rawValue
        contextLength = model.contextLength
        createdAt = Date(timeIntervalSince1970: Double(created)).formatted(.iso8601)
    }
}

/// `GET /v1/models`: OpenAI's list and Anthropic's page (`has_more`, `first_id`, `last_id`) at once.
struct ModelList: Encodable, Sendable {
    let object = "list"
    let data: [ModelObject]
    let hasMore = false
    let firstId: String?
    let lastId: String?

    enum CodingKeys: String, CodingKey { case object, data, hasMore = "has_more", firstId = "first_id", lastId = "last_id" }

    init(data: [ModelObject]) {
        self.data = data
        (firstId, lastId) = (data.first?.id, data.last?.id)
    }
}
