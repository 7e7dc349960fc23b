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

/// `stop`: one string or several.
struct StopSequences: Decodable, Sendable {
    let values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try container.decodeIfOfType(String.self) {
            values = [one]
        } else {
            values = try container.decode([String].self)
        }
    }
}

/// llama.cpp's `repeat_last_n` (as the OpenAI routes and ollama's options name it) as the SDK's
/// ``RunAnywhere/LLMGenerationOptions/penaltyLastN``: -1 is the whole context; below that a 400 naming `field`.
func penaltyLastN(_ repeatLastN: Int, field: String) throws -> Int {
    guard repeatLastN >= -1 else {
        throw APIError(.badRequest, "\(field) must be 0 or more, or -1 for the whole context", param: field)
    }
    return repeatLastN == -1 ? Int.max : repeatLastN
}

/// `logit_bias`: OpenAI's object of token ids (as strings) and biases from -100 to 100, each
/// added to its token's logit (-100 all but bans it, 100 all but forces it).
struct LogitBiasField: Decodable, Sendable {
    let biases: [Int32: Float]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let object = try container.decodeIfOfType([String: Double].self) else {
            throw APIError(.badRequest, "logit_bias must map token ids to numbers, such as {\"15339\": -100}", param: "logit_bias")
        }
        var biases: [Int32: Float] = [:]
        for (key, bias) in object {
            guard let token = Int32(key), token >= 0 else {
                throw APIError(.badRequest, "logit_bias names '\(key)', which is not a token id", param: "logit_bias")
            }
            guard (-100...100).contains(bias) else {
                throw APIError(.badRequest, "logit_bias for token \(key) must be between -100 and 100 (got \(bias))", param: "logit_bias")
            }
            biases[token] = Float(bias)
        }
        self.biases = biases
    }
}

/// ollama's `keep_alive`: seconds as a number, or a duration such as `"5m"`; negative keeps
/// the model loaded for ever, 0 unloads it once the request ends, and one longer than
/// `KeepAlive.longestSeconds` (about 292 years, e.g. `1e300`) is for ever too. Anything else —
/// a number JSON cannot hold as a Double such as `1e400`, `"nan"`, `"inf"` — is a 400 naming `keep_alive`.
struct KeepAliveField: Decodable, Sendable {
    let value: KeepAlive

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self), let keepAlive = KeepAlive(seconds: seconds) {
            value = keepAlive
        } else if let text = try container.decodeIfOfType(String.self), let parsed = KeepAlive(parsing: text) {
            value = parsed
        } else {
            let field = decoder.codingPath.last?.stringValue ?? "keep_alive"  // as the request spells it
            throw APIError(.badRequest, "\(field) must be a number of seconds or a duration such as \"5m\"", param: field)
        }
    }
}

/// The fields chat completions and completions share: the model, streaming, sampling and
/// ollama's `keep_alive`.
struct GenerationFields: Decodable, Sendable {
    let model: String
    let stream: Bool
    let streamOptions: StreamOptions?
    let maxTokens: Int?
    let maxCompletionTokens: Int?
    let temperature: Float?
    let topP: Float?
    let topK: Int?
    let seed: Int?
    /// llama-server's `min_p`, `repeat_penalty` and `repeat_last_n`, and OpenAI's
    /// `presence_penalty`, `frequency_penalty` and `logit_bias`.
    let minP: Float?
    let repeatPenalty: Float?
    let repeatLastN: Int?
    let presencePenalty: Float?
    let frequencyPenalty: Float?
    let logitBias: LogitBiasField?
    /// `logprobs` and `top_logprobs` (``requestedLogprobs(_:top:)``).
    let logprobs: LogprobsField?
    let topLogprobs: Int?
    let stop: StopSequences?
    let n: Int?
    let keepAlive: KeepAliveField?
    /// OpenAI's `response_format`; its schema is replaced by one parsed with its keys in order.
    var responseFormat: ResponseFormat?
    /// A GBNF grammar, as llama-server takes it.
    let grammar: String?
    /// llama-server's `speculative.n_max`: the most tokens speculative decoding guesses a step
    /// (with the model's draft model, or by prompt lookup), 0 for none; absent, the model's own setting.
    let speculativeMax: Int?
    /// llama-server's `cache_prompt`: false evaluates the whole prompt again and keeps it out of
    /// the prompts saved to disk; absent, true.
    let cachePrompt: Bool?
    /// llama-server's `lora`: the server's adapters this request applies, by index, with their
    /// scales (the others not at all); absent, the server's current ones.
    let lora: [LoRAScale]?
    /// llama-server's other samplers (`typical_p`, `dry_multiplier`, `mirostat`…).
    let samplers: LlamaSamplerFields

    enum CodingKeys: String, CodingKey {
        case model, stream, streamOptions = "stream_options"
        case maxTokens = "max_tokens", maxCompletionTokens = "max_completion_tokens", temperature, topP = "top_p", topK = "top_k", seed,
            stop, n
        case minP = "min_p", repeatPenalty = "repeat_penalty", repeatLastN = "repeat_last_n", presencePenalty = "presence_penalty"
        case frequencyPenalty = "frequency_penalty", logitBias = "logit_bias", logprobs, topLogprobs = "top_logprobs"
        case keepAlive = "keep_alive", responseFormat = "response_format", grammar
        case speculativeMax = "speculative.n_max", lora, cachePrompt = "cache_prompt"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        model = try container.decode(String.self, forKey: .model)
        stream = try container.decodeIfPresent(Bool.self, forKey: .stream) ?? false
        streamOptions = try container.decodeIfPresent(StreamOptions.self, forKey: .streamOptions)
        // Numbers through NumberField: one its type cannot hold is a 400 naming the field.
        maxTokens = try container.decode(NumberField<Int>.self, forKey: .maxTokens).wrappedValue
        maxCompletionTokens = try container.decode(NumberField<Int>.self, forKey: .maxCompletionTokens).wrappedValue
        temperature = try container.decode(NumberField<Float>.self, forKey: .temperature).wrappedValue
        topP = try container.decode(NumberField<Float>.self, forKey: .topP).wrappedValue
        topK = try container.decode(NumberField<Int>.self, forKey: .topK).wrappedValue
        seed = try container.decode(NumberField<Int>.self, forKey: .seed).wrappedValue
        minP = try container.decode(NumberField<Float>.self, forKey: .minP).wrappedValue
        repeatPenalty = try container.decode(NumberField<Float>.self, forKey: .repeatPenalty).wrappedValue
        repeatLastN = try container.decode(NumberField<Int>.self, forKey: .repeatLastN).wrappedValue
        presencePenalty = try container.decode(NumberField<Float>.self, forKey: .presencePenalty).wrappedValue
        frequencyPenalty = try container.decode(NumberField<Float>.self, forKey: .frequencyPenalty).wrappedValue
        logitBias = try container.decodeIfPresent(LogitBiasField.self, forKey: .logitBias)
        logprobs = try container.decodeIfPresent(LogprobsField.self, forKey: .logprobs)
        topLogprobs = try container.decode(NumberField<Int>.self, forKey: .topLogprobs).wrappedValue
        stop = try container.decodeIfPresent(StopSequences.self, forKey: .stop)
        n = try container.decode(NumberField<Int>.self, forKey: .n).wrappedValue
        keepAlive = try container.decodeIfPresent(KeepAliveField.self, forKey: .keepAlive)
        responseFormat = try container.decodeIfPresent(ResponseFormat.self, forKey: .responseFormat)
        grammar = try container.decodeIfPresent(String.self, forKey: .grammar)
        speculativeMax = try container.decode(NumberField<Int>.self, forKey: .speculativeMax).wrappedValue
        lora = try container.decodeIfPresent([LoRAScale].self, forKey: .lora)
        cachePrompt = try container.decodeIfPresent(Bool.self, forKey: .cachePrompt)
        samplers = try LlamaSamplerFields(from: decoder)
    }

    /// Puts back the key order of `response_format`'s schema from the body parsed as `ordered`
    /// (Foundation's decoder loses it, and properties are written in it).
    mutating func keepSchemaOrder(from ordered: JSONValue?) {
        if let schema = ordered?["response_format"]?["json_schema"]?["schema"] { responseFormat?.jsonSchema?.schema = schema }
    }

    /// Whether a streamed answer ends with a usage chunk.
    var includeUsage: Bool { streamOptions?.includeUsage ?? false }

    /// The most choices `n` may ask for: each is a generation of its own, run beside the others.
    static let maxChoices = 8

    /// How many choices to generate (`n`, default 1).
    var choices: Int { n ?? 1 }

    /// The SDK options these fields ask for over the model's `defaults`, on `threads` threads,
    /// with the server's `adapters`.
    func options(
        threads: Int?, applyChatTemplate: Bool, adapters: ServedLoRAAdapters, defaults: ModelDefaults?
    ) throws -> LLMGenerationOptions {
        if let n, !(1...Self.maxChoices).contains(n) {
            throw APIError(.badRequest, "n must be between 1 and \(Self.maxChoices)", param: "n")
        }
        var options = LLMGenerationOptions(threads: threads, applyChatTemplate: applyChatTemplate)
        defaults?.apply(to: &options)
        let maxTokensField = maxCompletionTokens == nil ? "max_tokens" : "max_completion_tokens"
        if let tokens = maxCompletionTokens ?? maxTokens {
            guard tokens >= 1 else { throw APIError(.badRequest, "\(maxTokensField) must be at least 1", param: maxTokensField) }
            options.maxTokens = tokens
        }
        if let temperature { options.temperature = temperature }
        if let topP { options.topP = topP }
        if let topK { options.topK = topK }
        if let seed {
            guard let value = UInt32(exactly: seed) else {
                throw APIError(.badRequest, "seed must be between 0 and \(UInt32.max)", param: "seed")
            }
            options.seed = value
        }
        if let minP { options.minP = minP }
        if let repeatPenalty { options.repeatPenalty = repeatPenalty }
        if let presencePenalty { options.presencePenalty = presencePenalty }
        if let frequencyPenalty { options.frequencyPenalty = frequencyPenalty }
        if let repeatLastN { options.penaltyLastN = try penaltyLastN(repeatLastN, field: "repeat_last_n") }
        options.logitBias = logitBias?.biases
        options.samplers = samplers.samplers
        options.logprobs = try requestedLogprobs(logprobs, top: topLogprobs)
        if let stop { options.stopSequences = stop.values }
        options.structuredOutput = try structuredOutput()
        if let speculativeMax {
            guard (0...LLMSpeculation.maxDraftTokens).contains(speculativeMax) else {
                throw APIError(
                    .badRequest, "speculative.n_max must be 0 to \(LLMSpeculation.maxDraftTokens)", param: "speculative.n_max")
            }
            // As llama-server does: with a draft model for the model (`serve --draft-model`), it guesses.
            let draft = adapters.runtime.defaultDraftModels.withLock { $0[model] }
            options.speculation = LLMSpeculation(draftTokens: speculativeMax, draftModel: draft)
        }
        options.loraAdapters = try adapters.applied(lora)
        options.reusePromptCache = cachePrompt ?? true
        try options.check(fields: [
            "maxTokens": maxTokensField, "temperature": "temperature", "topP": "top_p", "topK": "top_k", "minP": "min_p",
            "repeatPenalty": "repeat_penalty", "frequencyPenalty": "frequency_penalty", "presencePenalty": "presence_penalty",
            "penaltyLastN": "repeat_last_n", "logitBias": "logit_bias", "logprobs": topLogprobs == nil ? "logprobs" : "top_logprobs",
            "stopSequences": "stop",
        ])
        return options
    }

    /// The output constraint `response_format` or `grammar` asks for; an empty `grammar` is
    /// none, as llama-server takes it.
    func structuredOutput() throws -> StructuredOutputConfig? {
        if let grammar, !grammar.isEmpty {
            guard responseFormat == nil || responseFormat?.type == "text" else {
                throw APIError(.badRequest, "grammar and response_format exclude each other", param: "grammar")
            }
            return .grammar(grammar)
        }
        return try responseFormat?.structuredOutput(field: "response_format", schemaField: "response_format.json_schema.schema")
    }
}

/// `response_format`: `text`, `json_object`, or `json_schema` with `json_schema.schema` (its
/// `name` and `strict` are accepted; the output always keeps to the schema).
struct ResponseFormat: Decodable, Sendable {
    struct JSONSchemaFormat: Decodable, Sendable {
        let name: String?
        var schema: JSONValue?
        let strict: Bool?
    }

    let type: String
    var jsonSchema: JSONSchemaFormat?

    enum CodingKeys: String, CodingKey { case type, jsonSchema = "json_schema" }

    /// The output constraint this format asks for; errors name `field` (the format, as the
    /// request spells it) and `schemaField` (where its schema is).
    func structuredOutput(field: String, schemaField: String) throws -> StructuredOutputConfig? {
        switch type {
        case "text": return nil
        case "json_object": return .jsonObject
        case "json_schema":
            guard let schema = jsonSchema?.schema else {
                throw APIError(.badRequest, "\(field) json_schema needs a schema", param: schemaField)
            }
            do {
                let config = StructuredOutputConfig.schema(schema)
                _ = try config.grammar()
                return config
            } catch let error as SDKError {
                throw APIError(.badRequest, error.message, param: schemaField, code: "unsupported_schema")
            }
        default:
            throw APIError(
                .badRequest, "\(field) type '\(type)' is not supported; use text, json_object or json_schema", param: "\(field).type")
        }
    }
}

/// `stream_options`.
struct StreamOptions: Decodable, Sendable {
    let includeUsage: Bool?
    enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
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
