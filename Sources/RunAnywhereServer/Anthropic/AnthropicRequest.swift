import Foundation
import RunAnywhere

/// One of `messages`: `role` `user` or `assistant`, and its ``AnthropicContent``.
struct AnthropicMessageParam: Decodable, Sendable {
    let role: String
    let content: AnthropicContent
}

/// `system`: a string, or text blocks.
struct AnthropicSystem: Decodable, Sendable {
    let text: String

    init(from decoder: any Decoder) throws {
        let content = try AnthropicContent(from: decoder)
        guard content.blocks.allSatisfy({ if case .text = $0 { true } else { false } }) else {
            throw APIError(.badRequest, "system must be a string or text blocks", param: "system")
        }
        text = content.text
    }
}

/// `thinking`: `{"type": "enabled", "budget_tokens"}`, `{"type": "adaptive"}` or
/// `{"type": "disabled"}`, with an optional `display` (`summarized` or `omitted`). A model that
/// thinks does so in its own way (the SDK has no budget to give it); the reasoning is sent as
/// `thinking` blocks unless thinking is `disabled` or its display `omitted`.
struct AnthropicThinking: Decodable, Sendable {
    let type: String
    let budgetTokens: Int?
    let display: String?

    enum CodingKeys: String, CodingKey { case type, budgetTokens = "budget_tokens", display }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        budgetTokens = try container.decode(NumberField<Int>.self, forKey: .budgetTokens).wrappedValue
        display = try container.decodeIfPresent(String.self, forKey: .display)
        guard ["enabled", "adaptive", "disabled", "between_tools"].contains(type) else {
            throw APIError(
                .badRequest, "thinking.type '\(type)' is not supported; use enabled, adaptive or disabled", param: "thinking.type")
        }
        if let display, !["summarized", "omitted"].contains(display) {
            throw APIError(.badRequest, "thinking.display must be summarized or omitted", param: "thinking.display")
        }
    }

    /// Whether the reasoning is sent.
    var shown: Bool { type != "disabled" && display != "omitted" }
}

/// `output_config`: `effort` (accepted; a local model has one way of working) and `format`,
/// `{"type": "json_schema", "schema"}`, which the answer keeps to.
struct AnthropicOutputConfig: Decodable, Sendable {
    struct Format: Decodable, Sendable {
        let type: String
        var schema: JSONValue?
    }
    let effort: String?
    var format: Format?

    /// The output constraint `format` asks for.
    func structuredOutput() throws -> StructuredOutputConfig? {
        guard let format else { return nil }
        guard format.type == "json_schema", let schema = format.schema else {
            throw APIError(
                .badRequest, "output_config.format must be {\"type\": \"json_schema\", \"schema\": {…}}", param: "output_config.format")
        }
        do {
            let config = StructuredOutputConfig.schema(schema)
            _ = try config.grammar()
            return config
        } catch let error as SDKError {
            throw APIError(.badRequest, error.message, param: "output_config.format.schema")
        }
    }
}

/// What `POST /v1/messages` and `POST /v1/messages/count_tokens` share: the model, the
/// conversation, the tools and how to think and answer.
struct AnthropicPrompt: Decodable, Sendable {
    let model: String
    let messages: [AnthropicMessageParam]
    let system: AnthropicSystem?
    var tools: AnthropicToolFields
    let thinking: AnthropicThinking?
    var outputConfig: AnthropicOutputConfig?

    enum CodingKeys: String, CodingKey { case model, messages, system, thinking, outputConfig = "output_config" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        model = try container.decode(String.self, forKey: .model)
        messages = try container.decode([AnthropicMessageParam].self, forKey: .messages)
        system = try container.decodeIfPresent(AnthropicSystem.self, forKey: .system)
        thinking = try container.decodeIfPresent(AnthropicThinking.self, forKey: .thinking)
        outputConfig = try container.decodeIfPresent(AnthropicOutputConfig.self, forKey: .outputConfig)
        tools = try AnthropicToolFields(from: decoder)
    }

    /// Puts back the key order of the tools' and the output format's schemas from the body parsed
    /// as `ordered` (Foundation's decoder loses it, and properties are written in it).
    mutating func keepSchemaOrder(from ordered: JSONValue?) {
        tools.keepSchemaOrder(from: ordered)
        if let schema = ordered?["output_config"]?["format"]?["schema"] { outputConfig?.format?.schema = schema }
    }

    /// Whether the model's reasoning is sent as `thinking` blocks.
    var showsThinking: Bool { thinking?.shown ?? true }

    /// `options` with the tools and the output format.
    func apply(to options: inout LLMGenerationOptions) throws {
        options.structuredOutput = try outputConfig?.structuredOutput()
        try tools.apply(to: &options)
    }

    /// The conversation as the SDK takes it: `system` as its system prompt; a user message's tool
    /// results as ``RunAnywhere/MessageRole/tool`` messages, then its text and images as the user's message; an
    /// assistant message's text with its tool calls. It must end with the user's message (this
    /// server does not continue a prefilled answer).
    func conversation() throws -> Context {
        guard !messages.isEmpty else { throw APIError(.badRequest, "messages is empty: give at least one user message", param: "messages") }
        var history: [Message] = []
        // The calls of the assistant's last message, which a user's tool_result blocks answer.
        var calls: Set<String> = []
        for message in messages {
            switch message.role {
            case "user":
                for result in message.content.toolResults where !calls.contains(result.toolCallId ?? "") {
                    throw APIError(
                        .badRequest,
                        "A tool_result's tool_use_id '\(result.toolCallId ?? "")' answers no tool_use of the assistant's message before it",
                        param: "messages")
                }
                calls = []
                history += message.content.toolResults
                let (text, images) = (message.content.text, message.content.images)
                if !text.isEmpty || !images.isEmpty || message.content.toolResults.isEmpty {
                    history.append(Message(role: .user, content: text, images: images))
                }
            case "assistant":
                calls = Set(message.content.toolUses.map(\.id))
                history.append(Message(role: .assistant, content: message.content.text, toolCalls: message.content.toolUses))
            default:
                throw APIError(
                    .badRequest, "Unsupported message role '\(message.role)': use user or assistant (the system prompt goes in system)",
                    param: "messages")
            }
        }
        guard messages.last?.role == "user" else {
            throw APIError(
                .badRequest, "The last message must be the user's: this server does not continue a prefilled assistant message",
                param: "messages")
        }
        // Every message the client sent is read; only a full context window drops the oldest.
        return Context(systemPrompt: system?.text, messages: history, maxMessages: history.count)
    }
}

/// `POST /v1/messages`: the prompt, and how much and how to sample.
struct AnthropicMessagesRequest: Decodable, Sendable {
    var prompt: AnthropicPrompt
    let maxTokens: Int
    let stopSequences: [String]?
    let temperature: Float?
    let topP: Float?
    let topK: Int?
    let stream: Bool

    enum CodingKeys: String, CodingKey {
        case maxTokens = "max_tokens", stopSequences = "stop_sequences", temperature, topP = "top_p", topK = "top_k", stream
    }

    init(from decoder: any Decoder) throws {
        prompt = try AnthropicPrompt(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let maxTokens = try container.decode(NumberField<Int>.self, forKey: .maxTokens).wrappedValue else {
            throw APIError(.badRequest, "max_tokens is required", param: "max_tokens")
        }
        self.maxTokens = maxTokens
        stopSequences = try container.decodeIfPresent([String].self, forKey: .stopSequences)
        temperature = try container.decode(NumberField<Float>.self, forKey: .temperature).wrappedValue
        topP = try container.decode(NumberField<Float>.self, forKey: .topP).wrappedValue
        topK = try container.decode(NumberField<Int>.self, forKey: .topK).wrappedValue
        stream = try container.decodeIfPresent(Bool.self, forKey: .stream) ?? false
    }

    /// The SDK options this request asks for over the model's `defaults`, on `threads` threads.
    func options(threads: Int?, defaults: ModelDefaults?) throws -> LLMGenerationOptions {
        guard maxTokens >= 1 else { throw APIError(.badRequest, "max_tokens must be at least 1", param: "max_tokens") }
        var options = LLMGenerationOptions(threads: threads)
        defaults?.apply(to: &options)
        options.maxTokens = maxTokens
        if let temperature { options.temperature = temperature }
        if let topP { options.topP = topP }
        if let topK { options.topK = topK }
        if let stopSequences { options.stopSequences = stopSequences }
        try options.check(fields: [
            "maxTokens": "max_tokens", "temperature": "temperature", "topP": "top_p", "topK": "top_k", "stopSequences": "stop_sequences",
        ])
        try prompt.apply(to: &options)
        return options
    }
}
