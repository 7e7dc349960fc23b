import Foundation
import RunAnywhere

/// One of `messages` in a chat completion request. `content` is a string or an array of parts,
/// as OpenAI's clients send it: `{"type": "text", "text": …}`, and for a vision-language model
/// `{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}}` (images travel in
/// the request: a server on this machine fetches nothing from elsewhere). An assistant message
/// may carry `tool_calls`; a `tool` message answers one by `tool_call_id`.
struct ChatMessageParam: Decodable, Sendable {
    let role: String
    let content: String
    let images: [VLMImage]
    let toolCalls: [ToolCallObject]
    let toolCallId: String?

    private enum CodingKeys: String, CodingKey { case role, content, toolCalls = "tool_calls", toolCallId = "tool_call_id" }
    private struct Part: Decodable {
        struct ImageURL: Decodable { let url: String }
        let type: String
        let text: String?
        let imageURL: ImageURL?
        enum CodingKeys: String, CodingKey { case type, text, imageURL = "image_url" }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(String.self, forKey: .role)
        toolCalls = try container.decodeIfPresent([ToolCallObject].self, forKey: .toolCalls) ?? []
        toolCallId = try container.decodeIfPresent(String.self, forKey: .toolCallId)
        if let text = try container.decodeIfOfType(String.self, forKey: .content) {
            content = text
            images = []
        } else if let parts = try container.decodeIfOfType([Part].self, forKey: .content) {
            var text = ""
            var images: [VLMImage] = []
            for part in parts {
                switch part.type {
                case "text": text += part.text ?? ""
                case "image_url":
                    guard let url = part.imageURL?.url, url.hasPrefix("data:") else {
                        throw APIError(
                            .badRequest, "An image_url must be a data: URL (data:image/png;base64,…); this server fetches no images",
                            param: "messages")
                    }
                    images.append(VLMImage(base64: url))
                default:
                    throw APIError(.badRequest, "Unsupported content part type '\(part.type)': use text or image_url", param: "messages")
                }
            }
            content = text
            self.images = images
        } else if try !container.contains(.content) || container.decodeNil(forKey: .content) {
            content = ""
            images = []
        } else {
            throw APIError(
                .badRequest, "A message's content must be a string or an array of text and image_url parts", param: "messages")
        }
    }
}

/// `POST /v1/chat/completions`.
struct ChatCompletionRequest: Decodable, Sendable {
    let messages: [ChatMessageParam]
    var fields: GenerationFields
    var tools: ToolFields

    enum CodingKeys: String, CodingKey { case messages }

    init(from decoder: any Decoder) throws {
        messages = try decoder.container(keyedBy: CodingKeys.self).decode([ChatMessageParam].self, forKey: .messages)
        fields = try GenerationFields(from: decoder)
        tools = try ToolFields(from: decoder)
    }

    /// The conversation: the system messages as its system prompt, then the rest, ending with the
    /// user's message (or the assistant's tool calls and their results after it).
    func conversation() throws -> Context {
        var messages: [Message] = []
        for message in self.messages {
            let role: MessageRole =
                switch message.role {
                case "system", "developer": .system
                case "user": .user
                case "assistant": .assistant
                case "tool": .tool
                default: throw APIError(.badRequest, "Unsupported message role '\(message.role)'", param: "messages")
                }
            messages.append(
                Message(
                    role: role, content: message.content, images: message.images, toolCalls: try message.toolCalls.map { try $0.call() },
                    toolCallId: message.toolCallId
                ))
        }
        guard messages.contains(where: { $0.role != .system }) else {
            throw APIError(
                .badRequest,
                messages.isEmpty
                    ? "messages is empty: send the user's message" : "The messages hold no user message to answer, only a system prompt",
                param: "messages")
        }
        guard let last = messages.last, last.role == .user || last.role == .tool else {
            throw APIError(.badRequest, "The last message must be the user's, or a tool's result", param: "messages")
        }
        let system = messages.filter { $0.role == .system }.map(\.content)
        let history = messages.filter { $0.role != .system }
        // Every message the client sent is read; only a full context window drops the oldest.
        return Context(systemPrompt: system.isEmpty ? nil : system.joined(separator: "\n"), messages: history, maxMessages: history.count)
    }
}

/// `usage` of a response.
struct Usage: Encodable, Sendable {
    struct PromptDetails: Encodable, Sendable {
        let cachedTokens: Int
        enum CodingKeys: String, CodingKey { case cachedTokens = "cached_tokens" }
    }
    let promptTokens: Int
    let completionTokens: Int
    let totalTokens: Int
    let promptTokensDetails: PromptDetails

    enum CodingKeys: String, CodingKey {
        case promptTokens = "prompt_tokens", completionTokens = "completion_tokens", totalTokens = "total_tokens"
        case promptTokensDetails = "prompt_tokens_details"
    }

    /// The usage of the choices of one request, `perPrompt` choices a prompt (nil: all of them
    /// of one): each prompt once (its first choice's reading of it), the tokens of every choice.
    init(_ results: [LLMGenerationResult], perPrompt: Int? = nil) {
        let prompts = stride(from: 0, to: results.count, by: max(perPrompt ?? results.count, 1)).map { results[$0] }
        promptTokens = prompts.reduce(0) { $0 + $1.inputTokens }
        completionTokens = results.reduce(0) { $0 + $1.tokensUsed }
        totalTokens = promptTokens + completionTokens
        promptTokensDetails = PromptDetails(cachedTokens: prompts.reduce(0) { $0 + $1.cachedInputTokens })
    }
}

/// RunAnywhere's measurements of a generation, beside `usage` (like llama-server's `timings`).
struct Timings: Encodable, Sendable {
    let promptN: Int
    let cacheN: Int
    let promptMs: Double
    let promptPerTokenMs: Double
    let promptPerSecond: Double
    let predictedN: Int
    let predictedMs: Double
    let predictedPerTokenMs: Double
    let predictedPerSecond: Double
    let timeToFirstTokenMs: Double?
    let totalMs: Double
    /// Tokens speculative decoding guessed and kept, as llama-server names them; absent when the
    /// generation did not speculate.
    let draftN: Int?
    let draftNAccepted: Int?

    enum CodingKeys: String, CodingKey {
        case promptN = "prompt_n", cacheN = "cache_n", promptMs = "prompt_ms", promptPerTokenMs = "prompt_per_token_ms"
        case promptPerSecond = "prompt_per_second", predictedN = "predicted_n", predictedMs = "predicted_ms"
        case predictedPerTokenMs = "predicted_per_token_ms", predictedPerSecond = "predicted_per_second", timeToFirstTokenMs =
            "time_to_first_token_ms", totalMs = "total_ms"
        case draftN = "draft_n", draftNAccepted = "draft_n_accepted"
    }

    init(_ result: LLMGenerationResult) {
        promptN = result.inputTokens - result.cachedInputTokens
        cacheN = result.cachedInputTokens
        promptPerSecond = result.promptTokensPerSecond
        predictedN = result.tokensUsed
        predictedPerSecond = result.decodeTokensPerSecond
        // The milliseconds the rates were measured over, as llama-server reports them beside them.
        promptMs = promptPerSecond > 0 ? Double(promptN) / promptPerSecond * 1000 : 0
        promptPerTokenMs = promptPerSecond > 0 ? 1000 / promptPerSecond : 0
        predictedMs = predictedPerSecond > 0 ? Double(predictedN) / predictedPerSecond * 1000 : 0
        predictedPerTokenMs = predictedPerSecond > 0 ? 1000 / predictedPerSecond : 0
        timeToFirstTokenMs = result.timeToFirstTokenMs
        totalMs = result.latencyMs
        draftN = result.draftTokens
        draftNAccepted = result.acceptedDraftTokens
    }
}

/// OpenAI's `finish_reason` for a stop reason.
func finishReason(_ reason: LLMStopReason) -> String {
    switch reason {
    case .length: "length"
    case .toolCalls: "tool_calls"
    case .stop, .cancelled: "stop"
    }
}

/// A whole chat completion.
struct ChatCompletion: Encodable, Sendable {
    struct Choice: Encodable, Sendable {
        struct Reply: Encodable, Sendable {
            let role = "assistant"
            let content: String?
            let reasoningContent: String?
            let toolCalls: [ToolCallObject]?
            enum CodingKeys: String, CodingKey { case role, content, reasoningContent = "reasoning_content", toolCalls = "tool_calls" }

            /// The reply for `result`: its calls, if any (then `content` is null unless the model wrote text besides).
            init(_ result: LLMGenerationResult) {
                toolCalls = result.toolCalls.isEmpty ? nil : result.toolCalls.map(ToolCallObject.init)
                content = toolCalls != nil && result.text.isEmpty ? nil : result.text
                reasoningContent = result.thinkingContent
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(role, forKey: .role)
                try container.encode(content, forKey: .content)  // null beside tool calls, as OpenAI sends it
                try container.encodeIfPresent(reasoningContent, forKey: .reasoningContent)
                try container.encodeIfPresent(toolCalls, forKey: .toolCalls)
            }
        }
        var index = 0
        let message: Reply
        let finishReason: String
        /// Null unless the request asked for them, as OpenAI sends it.
        let logprobs: ChatLogprobs?
        enum CodingKeys: String, CodingKey { case index, message, finishReason = "finish_reason", logprobs }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(message, forKey: .message)
            try container.encode(finishReason, forKey: .finishReason)
            try container.encode(logprobs, forKey: .logprobs)
        }
    }
    let id: String
    let object = "chat.completion"
    let created: Int
    let model: String
    let choices: [Choice]
    let usage: Usage
    let timings: Timings
}

/// One streamed piece of a chat completion.
struct ChatCompletionChunk: Encodable, Sendable {
    struct Choice: Encodable, Sendable {
        struct Delta: Encodable, Sendable {
            var role: String?
            var content: String?
            var reasoningContent: String?
            var toolCalls: [ToolCallDelta]?
            enum CodingKeys: String, CodingKey { case role, content, reasoningContent = "reasoning_content", toolCalls = "tool_calls" }
        }
        var index = 0
        let delta: Delta
        let finishReason: String?
        /// The log-probabilities of the tokens of `delta.content`, when the request asked for them.
        var logprobs: ChatLogprobs? = nil
        enum CodingKeys: String, CodingKey { case index, delta, finishReason = "finish_reason", logprobs }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(index, forKey: .index)
            try container.encode(delta, forKey: .delta)
            try container.encode(finishReason, forKey: .finishReason)  // null while streaming, as OpenAI sends it
            try container.encodeIfPresent(logprobs, forKey: .logprobs)
        }
    }
    let id: String
    let object = "chat.completion.chunk"
    let created: Int
    let model: String
    var choices: [Choice]
    let usage: Usage?
    let timings: Timings?
}
