import Foundation
import RunAnywhere

/// `POST /v1/completions`: the prompt is read verbatim, without a chat template.
struct CompletionRequest: Decodable, Sendable {
    let prompt: String
    var fields: GenerationFields

    enum CodingKeys: String, CodingKey { case prompt }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let one = try container.decodeIfOfType(String.self, forKey: .prompt) {
            prompt = one
        } else if let many = try container.decodeIfOfType([String].self, forKey: .prompt), many.count == 1 {
            prompt = many[0]
        } else {
            throw APIError(.badRequest, "prompt must be one string", param: "prompt")
        }
        fields = try GenerationFields(from: decoder)
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

    enum CodingKeys: String, CodingKey { case id, object, created, ownedBy = "owned_by", name, category, contextLength = "context_length" }

    init(_ model: ModelInfo) {
        id = model.id
        created = Int(model.createdAt.timeIntervalSince1970)
        name = model.name
        category = model.category.rawValue
        contextLength = model.contextLength
    }
}

/// `GET /v1/models`.
struct ModelList: Encodable, Sendable {
    let object = "list"
    let data: [ModelObject]
}
