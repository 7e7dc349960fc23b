import Foundation
import RunAnywhere

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
