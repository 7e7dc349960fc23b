import Foundation
import RunAnywhere

/// The body of llama-server's own `POST /completion` and `POST /infill`, in its names and with
/// its defaults (`n_predict` -1: until the model ends or the context is full; temperature 0.8,
/// `top_k` 40, `top_p` 0.95, `min_p` 0.05) under a model's own (``RunAnywhere/ModelDefaults``), as its clients send it: llama.vim and llama.vscode
/// ask `/infill` for the code at the cursor. `logit_bias` is OpenAI's object form; the other
/// samplers are ``LlamaSamplerFields``; `json_schema` constrains the output as `grammar` does. What only
/// tunes llama-server's own scheduling and sampler chain (`samplers`, `n_indent`,
/// `t_max_prompt_ms`, `t_max_predict_ms`, `id_slot`…) is accepted without effect.
struct LlamaCompletionRequest: Decodable, Sendable {
    /// The model; absent or empty, the default model (llama-server serves one).
    let model: String?
    /// `/completion`'s prompts (``LlamaPrompt``); `/infill`'s code before the cursor, the one text.
    let prompts: [LlamaPrompt]
    /// `/infill`'s code before and after the cursor, and other files as context.
    let inputPrefix: String?
    let inputSuffix: String?
    let inputExtra: [Infill.File]
    let stream: Bool
    /// The output's fields to keep (`timings/prompt_n` reaches into `timings`), each under its
    /// path; absent, all.
    let responseFields: [String]?
    /// llama-server's defaults and what only a request sets (log-probabilities, grammar, biases).
    private let base: LLMGenerationOptions
    /// The settings a model may have defaults for, as far as the request sets them.
    private let requested: ModelDefaults
    let keepAlive: KeepAlive?
    /// `json_schema`: the output keeps to it (over `grammar`, as on llama-server); `{}` is any object.
    private(set) var jsonSchema: JSONValue?

    enum CodingKeys: String, CodingKey {
        case model, prompt, stream, stop, seed, temperature, grammar
        case inputPrefix = "input_prefix", inputSuffix = "input_suffix", inputExtra = "input_extra"
        case responseFields = "response_fields", nPredict = "n_predict", topK = "top_k", topP = "top_p", minP = "min_p"
        case repeatPenalty = "repeat_penalty", repeatLastN = "repeat_last_n", presencePenalty = "presence_penalty"
        case frequencyPenalty = "frequency_penalty", nProbs = "n_probs", cachePrompt = "cache_prompt", keepAlive = "keep_alive"
        case logitBias = "logit_bias", jsonSchema = "json_schema"
    }

    /// One of `input_extra`: `text`, and an optional `filename` (llama-server's "tmp" when absent).
    private struct ExtraFile: Decodable {
        let filename: String?
        let text: String
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        model = try container.decodeIfPresent(String.self, forKey: .model).flatMap { $0.isEmpty ? nil : $0 }
        let prompt = try container.decodeIfPresent(JSONValue.self, forKey: .prompt)
        prompts = try prompt.map { $0 == .null ? [] : try LlamaPrompt.prompts($0) } ?? []
        inputPrefix = try container.decodeIfPresent(String.self, forKey: .inputPrefix)
        inputSuffix = try container.decodeIfPresent(String.self, forKey: .inputSuffix)
        do {
            inputExtra = (try container.decodeIfPresent([ExtraFile].self, forKey: .inputExtra) ?? []).map {
                Infill.File(path: $0.filename ?? "tmp", text: $0.text)
            }
        } catch is DecodingError {
            throw APIError(
                .badRequest, "input_extra must be an array of {\"filename\": string, \"text\": string}, text required", param: "input_extra"
            )
        }
        stream = try container.decodeIfPresent(Bool.self, forKey: .stream) ?? false
        responseFields = try container.decodeIfPresent([String].self, forKey: .responseFields)
        keepAlive = try container.decodeIfPresent(KeepAliveField.self, forKey: .keepAlive)?.value

        var options = Self.serverDefaults
        var requested = ModelDefaults()
        if let predict = try container.decode(NumberField<Int>.self, forKey: .nPredict).wrappedValue {
            guard predict == -1 || predict >= 1 else {
                throw APIError(.badRequest, "n_predict must be -1 (until the model ends) or at least 1", param: "n_predict")
            }
            requested.maxTokens = predict == -1 ? LLMGenerationOptions.untilContextFull : predict
        }
        if let temperature = try container.decode(NumberField<Float>.self, forKey: .temperature).wrappedValue {
            requested.temperature = max(temperature, 0)  // llama-server: 0 or below is greedy
        }
        requested.topK = try container.decode(NumberField<Int>.self, forKey: .topK).wrappedValue.map { max($0, 0) }
        requested.topP = try container.decode(NumberField<Float>.self, forKey: .topP).wrappedValue
        requested.minP = try container.decode(NumberField<Float>.self, forKey: .minP).wrappedValue
        if let seed = try container.decode(NumberField<Int>.self, forKey: .seed).wrappedValue, seed != -1 {
            guard let value = UInt32(exactly: seed) else {
                throw APIError(.badRequest, "seed must be -1 (random) or from 0 to \(UInt32.max)", param: "seed")
            }
            requested.seed = value
        }
        requested.repeatPenalty = try container.decode(NumberField<Float>.self, forKey: .repeatPenalty).wrappedValue
        if let last = try container.decode(NumberField<Int>.self, forKey: .repeatLastN).wrappedValue {
            requested.penaltyLastN = try penaltyLastN(last, field: "repeat_last_n")
        }
        requested.presencePenalty = try container.decode(NumberField<Float>.self, forKey: .presencePenalty).wrappedValue
        requested.frequencyPenalty = try container.decode(NumberField<Float>.self, forKey: .frequencyPenalty).wrappedValue
        if let probs = try container.decode(NumberField<Int>.self, forKey: .nProbs).wrappedValue, probs > 0 {
            guard probs <= LLMGenerationOptions.maxTopLogprobs else {
                throw APIError(.badRequest, "n_probs must be from 0 to \(LLMGenerationOptions.maxTopLogprobs)", param: "n_probs")
            }
            options.logprobs = probs
        }
        options.logitBias = try container.decodeIfPresent(LogitBiasField.self, forKey: .logitBias)?.biases
        options.samplers = try LlamaSamplerFields(from: decoder).samplers
        requested.stopSequences = try container.decodeIfPresent(StopSequences.self, forKey: .stop)?.values
        jsonSchema = try container.decodeIfPresent(JSONValue.self, forKey: .jsonSchema).flatMap(Self.checked)
        if jsonSchema == nil, let grammar = try container.decodeIfPresent(String.self, forKey: .grammar), !grammar.isEmpty {
            options.structuredOutput = .grammar(grammar)
        }
        options.reusePromptCache = try container.decodeIfPresent(Bool.self, forKey: .cachePrompt) ?? true
        base = options
        self.requested = requested
    }

    /// `schema` as the output's constraint: nil for null; `{}` is any object, as on llama-server.
    private static func checked(_ schema: JSONValue) throws -> JSONValue? {
        guard case .object(let object) = schema else {
            guard schema == .null else { throw APIError(.badRequest, "json_schema must be a JSON Schema object", param: "json_schema") }
            return nil
        }
        let schema = object.keys.isEmpty ? JSONValue.object(JSONObject([("type", .string("object"))])) : schema
        do {
            _ = try StructuredOutputConfig.schema(schema).grammar()
        } catch let error as SDKError {
            throw APIError(.badRequest, error.message, param: "json_schema", code: "unsupported_schema")
        }
        return schema
    }

    /// Puts back the key order of `json_schema` from the body parsed as `ordered` (Foundation's
    /// decoder loses it, and properties are written in it).
    mutating func keepSchemaOrder(from ordered: JSONValue?) {
        guard jsonSchema != nil, let schema = ordered?["json_schema"], case .object(let object) = schema, !object.keys.isEmpty else {
            return
        }
        jsonSchema = schema
    }

    /// llama-server's defaults, for a request that sets nothing: `n_predict` -1 (until the model
    /// ends or the context is full), temperature 0.8, top_k 40, top_p 0.95, min_p 0.05, the prompt
    /// read verbatim.
    static var serverDefaults: LLMGenerationOptions {
        var options = LLMGenerationOptions(maxTokens: LLMGenerationOptions.untilContextFull, temperature: 0.8, applyChatTemplate: false)
        options.topK = 40
        options.topP = 0.95
        options.minP = 0.05
        return options
    }

    /// The options of this request on `threads` threads: llama-server's defaults, the model's
    /// `defaults` over them, and the request's own settings over both.
    func options(threads: Int?, defaults: ModelDefaults?) -> LLMGenerationOptions {
        var options = base
        options.threads = threads
        // Read verbatim as the prompt is: the schema constrains, it is not written into the prompt.
        if let jsonSchema { options.structuredOutput = StructuredOutputConfig.schema(jsonSchema, includeSchemaInPrompt: false) }
        defaults?.apply(to: &options)
        requested.apply(to: &options)
        return options
    }

    /// `/infill`'s gap: llama-server reads `prompt` as the code just before the cursor, after the prefix.
    func infill() throws -> Infill {
        guard let inputPrefix else { throw APIError(.badRequest, "input_prefix is required", param: "input_prefix") }
        guard let inputSuffix else { throw APIError(.badRequest, "input_suffix is required", param: "input_suffix") }
        let cursorLine: String
        switch prompts.first {
        case .text(let text) where prompts.count == 1: cursorLine = text
        case .none: cursorLine = ""
        default: throw APIError(.badRequest, "prompt must be a string here: the code before the cursor", param: "prompt")
        }
        return Infill(prefix: inputPrefix + cursorLine, suffix: inputSuffix, files: inputExtra)
    }
}
