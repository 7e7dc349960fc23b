import Foundation
import RunAnywhere

/// A content block of an answer: the model's reasoning (`thinking`, with an empty `signature`:
/// nothing here checks it), text, or a tool call (`tool_use`, its `input` a JSON object).
enum AnthropicResponseBlock: Encodable, Sendable {
    case thinking(String)
    case text(String)
    case toolUse(ToolCall)

    private enum CodingKeys: String, CodingKey { case type, thinking, signature, text, id, name, input }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .thinking(let text):
            try container.encode("thinking", forKey: .type)
            try container.encode(text, forKey: .thinking)
            try container.encode("", forKey: .signature)
        case .text(let text):
            try container.encode("text", forKey: .type)
            try container.encode(text, forKey: .text)
        case .toolUse(let call):
            try container.encode("tool_use", forKey: .type)
            try container.encode(call.id, forKey: .id)
            try container.encode(call.name, forKey: .name)
            try container.encode(call.arguments, forKey: .input)
        }
    }
}

/// `usage`, as Anthropic counts it: `input_tokens` are the prompt's tokens read now, those reused
/// from the cache of an earlier request are `cache_read_input_tokens` apart (the prompt is their
/// sum, which `count_tokens` gives), and `output_tokens` the generated ones.
struct AnthropicUsage: Encodable, Sendable {
    let inputTokens: Int
    let outputTokens: Int
    let cacheReadInputTokens: Int
    let cacheCreationInputTokens = 0

    enum CodingKeys: String, CodingKey {
        case inputTokens = "input_tokens", outputTokens = "output_tokens", cacheReadInputTokens = "cache_read_input_tokens"
        case cacheCreationInputTokens = "cache_creation_input_tokens"
    }

    init(inputTokens: Int, outputTokens: Int, cacheReadInputTokens: Int) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.cacheReadInputTokens = cacheReadInputTokens
    }

    init(_ result: LLMGenerationResult) {
        self.init(
            inputTokens: max(result.inputTokens - result.cachedInputTokens, 0), outputTokens: result.tokensUsed,
            cacheReadInputTokens: result.cachedInputTokens)
    }
}

/// Anthropic's `stop_reason` for a result: `end_turn`, `stop_sequence` (one of the request's
/// was reached: the result's ``RunAnywhere/LLMGenerationResult/stopSequence``), `max_tokens` or `tool_use`.
func anthropicStopReason(_ result: LLMGenerationResult) -> String {
    switch result.stopReason {
    case .length: "max_tokens"
    case .toolCalls: "tool_use"
    case .stop, .cancelled: result.stopSequence == nil ? "end_turn" : "stop_sequence"
    }
}

/// A message of the Messages API: the request's answer, whole, or (with no content and no stop
/// reason yet) the start of a streamed one.
struct AnthropicMessage: Encodable, Sendable {
    let id: String
    let type = "message"
    let role = "assistant"
    let content: [AnthropicResponseBlock]
    let model: String
    let stopReason: String?
    let stopSequence: String?
    let usage: AnthropicUsage

    enum CodingKeys: String, CodingKey {
        case id, type, role, content, model, stopReason = "stop_reason", stopSequence = "stop_sequence", usage
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(type, forKey: .type)
        try container.encode(role, forKey: .role)
        try container.encode(content, forKey: .content)
        try container.encode(model, forKey: .model)
        try container.encode(stopReason, forKey: .stopReason)  // null while streaming, as Anthropic sends it
        try container.encode(stopSequence, forKey: .stopSequence)
        try container.encode(usage, forKey: .usage)
    }

    /// The whole answer of `result`: its reasoning when `showsThinking`, its text (also when
    /// empty, unless the model called tools), then its tool calls.
    init(id: String, result: LLMGenerationResult, showsThinking: Bool) {
        var content: [AnthropicResponseBlock] = []
        if showsThinking, let thinking = result.thinkingContent { content.append(.thinking(thinking)) }
        if !result.text.isEmpty || result.toolCalls.isEmpty { content.append(.text(result.text)) }
        content += result.toolCalls.map(AnthropicResponseBlock.toolUse)
        self.init(
            id: id, content: content, model: result.modelUsed, stopReason: anthropicStopReason(result), stopSequence: result.stopSequence,
            usage: AnthropicUsage(result)
        )
    }

    init(id: String, content: [AnthropicResponseBlock], model: String, stopReason: String?, stopSequence: String?, usage: AnthropicUsage) {
        self.id = id
        self.content = content
        self.model = model
        self.stopReason = stopReason
        self.stopSequence = stopSequence
        self.usage = usage
    }
}

/// `POST /v1/messages/count_tokens`'s answer.
struct AnthropicTokenCount: Encodable, Sendable {
    let inputTokens: Int
    enum CodingKeys: String, CodingKey { case inputTokens = "input_tokens" }
}
