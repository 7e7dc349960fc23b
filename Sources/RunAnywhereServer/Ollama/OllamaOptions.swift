import Foundation
import RunAnywhere

/// ollama's `options`: the runner's parameters by name. Those the SDK has are mapped —
/// `num_predict` (the most tokens to generate; -1 or -2, or none, for as many as the context
/// holds), `temperature`, `top_k`, `top_p`, `min_p`, `repeat_penalty`, `repeat_last_n` (-1: the
/// whole context), `presence_penalty`, `frequency_penalty`, `seed`, `stop`, `num_thread`, and, for
/// the request that loads the model, `num_ctx` (its context window) and `num_gpu` (its layers on a
/// GPU, -1 to let the engine decide); a model already loaded keeps its own. The other names ollama
/// knows (`mirostat`, `num_batch`…) are accepted without effect, as ollama itself accepts names it
/// does not use.
struct OllamaOptions: Decodable, Sendable {
    @NumberField var numPredict: Int?
    @NumberField var temperature: Float?
    @NumberField var topK: Int?
    @NumberField var topP: Float?
    @NumberField var minP: Float?
    @NumberField var repeatPenalty: Float?
    @NumberField var repeatLastN: Int?
    @NumberField var presencePenalty: Float?
    @NumberField var frequencyPenalty: Float?
    @NumberField var seed: Int?
    var stop: StopSequences?
    @NumberField var numCtx: Int?
    @NumberField var numGPU: Int?
    @NumberField var numThread: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case numPredict = "num_predict", temperature, topK = "top_k", topP = "top_p", seed, stop, numCtx = "num_ctx", numGPU = "num_gpu"
        case numThread = "num_thread", minP = "min_p", repeatPenalty = "repeat_penalty", repeatLastN = "repeat_last_n"
        case presencePenalty = "presence_penalty", frequencyPenalty = "frequency_penalty"
    }

    init() {}

    /// `options` with these parameters; `num_predict` -1 or -2 bounds the answer by the context
    /// alone (``RunAnywhere/LLMGenerationOptions/untilContextFull``).
    func apply(to options: inout LLMGenerationOptions) throws {
        if numPredict == -1 || numPredict == -2 {
            options.maxTokens = LLMGenerationOptions.untilContextFull
        } else if let numPredict {
            guard numPredict >= 1 else {
                throw APIError(
                    .badRequest, "options.num_predict must be at least 1, or -1 for as many tokens as the context holds",
                    param: "options.num_predict")
            }
            options.maxTokens = numPredict
        }
        if let temperature { options.temperature = temperature }
        if let topK { options.topK = topK }
        if let topP { options.topP = topP }
        if let minP { options.minP = minP }
        if let repeatPenalty { options.repeatPenalty = repeatPenalty }
        if let presencePenalty { options.presencePenalty = presencePenalty }
        if let frequencyPenalty { options.frequencyPenalty = frequencyPenalty }
        if let repeatLastN { options.penaltyLastN = try penaltyLastN(repeatLastN, field: "options.repeat_last_n") }
        if let seed {
            // ollama reads a negative seed as none (a random one each time).
            if seed >= 0 {
                guard let value = UInt32(exactly: seed) else {
                    throw APIError(.badRequest, "options.seed must be at most \(UInt32.max)", param: "options.seed")
                }
                options.seed = value
            }
        }
        if let stop { options.stopSequences = stop.values }
        if let numThread {
            guard numThread >= 1 else {
                throw APIError(.badRequest, "options.num_thread must be at least 1", param: "options.num_thread")
            }
            options.threads = numThread
        }
    }

    /// These parameters as a model's defaults (a Modelfile's `PARAMETER` lines, `/api/create`'s
    /// `parameters`), checked as a request's are; errors name `field` (where they are).
    /// `num_gpu` is refused: how a model is loaded is the server's, or a request's.
    func modelDefaults(field: String) throws -> ModelDefaults {
        if numGPU != nil {
            throw APIError(.badRequest, "\(field).num_gpu is not kept with a model: send options.num_gpu with a request", param: field)
        }
        if let numCtx, !(16...SDKConstants.Limits.maxContextLength).contains(numCtx) {
            throw APIError(.badRequest, "\(field).num_ctx must be 16 to \(SDKConstants.Limits.maxContextLength)", param: field)
        }
        var options = LLMGenerationOptions()
        do {
            try apply(to: &options)
        } catch let error as APIError {
            throw APIError(.badRequest, error.message.replacingOccurrences(of: "options.", with: "\(field)."), param: field)
        }
        var defaults = ModelDefaults()
        defaults.contextLength = numCtx
        defaults.maxTokens = numPredict == nil ? nil : options.maxTokens
        defaults.temperature = temperature
        defaults.topK = topK
        defaults.topP = topP
        defaults.minP = minP
        defaults.repeatPenalty = repeatPenalty
        defaults.presencePenalty = presencePenalty
        defaults.frequencyPenalty = frequencyPenalty
        defaults.penaltyLastN = repeatLastN == nil ? nil : options.penaltyLastN
        defaults.seed = options.seed
        defaults.stopSequences = stop?.values
        defaults.threads = numThread
        return defaults
    }

    /// `load` with the context window and GPU layers asked for.
    func apply(to load: inout ModelLoadOptions) throws {
        if let numCtx {
            guard (16...SDKConstants.Limits.maxContextLength).contains(numCtx) else {
                throw APIError(
                    .badRequest, "options.num_ctx must be 16 to \(SDKConstants.Limits.maxContextLength)", param: "options.num_ctx")
            }
            load.contextLength = numCtx
        }
        if let numGPU {
            guard numGPU >= -1 else {
                throw APIError(
                    .badRequest, "options.num_gpu must be -1 (the engine decides) or a number of layers", param: "options.num_gpu")
            }
            load.gpuLayers = numGPU == -1 ? nil : numGPU
        }
    }
}

/// `format`: `"json"` (any JSON object), a JSON schema the answer keeps to, or `""` (free text).
struct OllamaFormat: Decodable, Sendable {
    var value: JSONValue

    init(from decoder: any Decoder) throws {
        value = try JSONValue(from: decoder)
    }

    /// The output constraint it asks for.
    func structuredOutput() throws -> StructuredOutputConfig? {
        switch value {
        case .null, .string(""): return nil
        case .string("json"): return .jsonObject
        case .object:
            do {
                let config = StructuredOutputConfig.schema(value)
                _ = try config.grammar()
                return config
            } catch let error as SDKError {
                throw APIError(.badRequest, error.message, param: "format")
            }
        default: throw APIError(.badRequest, "format must be \"json\" or a JSON schema object", param: "format")
        }
    }
}

/// `think`: `true` or `false`, or an effort (`"high"`, `"medium"`, `"low"`, taken as `true`: a
/// local model thinks in its one way).
struct OllamaThink: Decodable, Sendable {
    let enabled: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            enabled = flag
        } else if let effort = try container.decodeIfOfType(String.self), ["high", "medium", "low"].contains(effort) {
            enabled = true
        } else {
            throw APIError(.badRequest, "think must be true, false, \"high\", \"medium\" or \"low\"", param: "think")
        }
    }
}

/// What `/api/chat` and `/api/generate` share: the model, streaming (on unless `false`), the
/// options, the output format, thinking and `keep_alive`.
struct OllamaGenerationFields: Decodable, Sendable {
    /// The model's name as the client wrote it, which the answers repeat.
    let name: String
    /// The model's id.
    let model: String
    let stream: Bool
    let options: OllamaOptions
    var format: OllamaFormat?
    let think: OllamaThink?
    let keepAlive: KeepAliveField?
    /// `logprobs` (true or false) and `top_logprobs` (0 to 20).
    let logprobs: LogprobsField?
    let topLogprobs: Int?

    enum CodingKeys: String, CodingKey {
        case model, stream, options, format, think, keepAlive = "keep_alive", logprobs, topLogprobs = "top_logprobs"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .model)
        model = OllamaName.modelID(name)
        stream = try container.decodeIfPresent(Bool.self, forKey: .stream) ?? true
        options = try container.decodeIfPresent(OllamaOptions.self, forKey: .options) ?? OllamaOptions()
        format = try container.decodeIfPresent(OllamaFormat.self, forKey: .format)
        think = try container.decodeIfPresent(OllamaThink.self, forKey: .think)
        keepAlive = try container.decodeIfPresent(KeepAliveField.self, forKey: .keepAlive)
        logprobs = try container.decodeIfPresent(LogprobsField.self, forKey: .logprobs)
        topLogprobs = try container.decode(NumberField<Int>.self, forKey: .topLogprobs).wrappedValue
    }

    /// Puts back the key order of `format`'s schema from the body parsed as `ordered`.
    mutating func keepSchemaOrder(from ordered: JSONValue?) {
        if let schema = ordered?["format"], schema.objectValue != nil { format?.value = schema }
    }

    /// The SDK options these fields ask for over the model's `defaults`, on `threads` threads
    /// unless `num_thread` says; an answer that neither bounds may run until the context is full
    /// (ollama's default, `num_predict` -1).
    func generationOptions(threads: Int?, applyChatTemplate: Bool, defaults: ModelDefaults?) throws -> LLMGenerationOptions {
        var generation = LLMGenerationOptions(
            maxTokens: LLMGenerationOptions.untilContextFull, threads: threads, applyChatTemplate: applyChatTemplate)
        defaults?.apply(to: &generation)
        try options.apply(to: &generation)
        generation.structuredOutput = try format?.structuredOutput()
        generation.logprobs = try requestedLogprobs(logprobs, top: topLogprobs)
        return generation
    }

    /// The server's load options with `num_ctx` and `num_gpu`.
    func loadOptions(_ base: ModelLoadOptions) throws -> ModelLoadOptions {
        var load = base
        try options.apply(to: &load)
        return load
    }

    /// Whether the model's reasoning is sent (apart, in `thinking`): unless `think` is `false`.
    /// `think: true` for a model that does not think is refused, as ollama refuses it.
    func showsThinking(_ model: ModelInfo) throws -> Bool {
        guard let think else { return true }
        if think.enabled, !model.supportsThinking {
            throw APIError(.badRequest, "\"\(model.id)\" does not support thinking", param: "think")
        }
        return think.enabled
    }
}

/// Model names as ollama writes them, `name:tag`. An installed model is listed as
/// `<id>:latest` (an id that has a `:` already as it is), and a name is read back as the id
/// without `:latest`, so that clients may send either.
enum OllamaName {
    /// The model id `name` refers to.
    static func modelID(_ name: String) -> String {
        name.hasSuffix(":latest") ? String(name.dropLast(":latest".count)) : name
    }

    /// The name ollama's clients see for the model `id`.
    static func name(_ id: String) -> String {
        id.contains(":") ? id : id + ":latest"
    }
}
