/// How to generate text. Defaults follow the RunAnywhere SDK.
public struct LLMGenerationOptions: Codable, Sendable, Equatable {
    /// The ``maxTokens`` that bounds an answer by the context alone, as ollama's `num_predict: -1`
    /// does: the prompt keeps as much history as leaves room for one token, and the answer may
    /// take all the room that is left.
    public static let untilContextFull = Int.max
    /// The most alternatives ``logprobs`` may ask for at each token (OpenAI's limit).
    public static let maxTopLogprobs = 20

    /// Most tokens to generate; ``untilContextFull`` generates until the model's context is full.
    public var maxTokens: Int
    /// Sampling temperature; 0 picks the most likely token every time (greedy, deterministic).
    public var temperature: Float
    /// Nucleus sampling: keep the smallest set of tokens whose probabilities add up to `topP`.
    public var topP: Float
    /// Keep only the `topK` most likely tokens; 0 keeps all.
    public var topK: Int
    /// Seed for sampling; nil picks a random one. With a seed, sampled output is repeatable.
    public var seed: UInt32?
    /// Keep only the tokens at least `minP` times as likely as the most likely one (min-p, as
    /// llama.cpp samples); nil keeps all.
    public var minP: Float?
    /// Makes the tokens among the last ``penaltyLastN`` less likely: a positive logit is divided
    /// by it, a negative one multiplied (llama.cpp's repeat penalty; 1.1 is common); nil or 1: none.
    public var repeatPenalty: Float?
    /// Subtracted from a token's logit once for each time it is among the last ``penaltyLastN``
    /// (OpenAI's `frequency_penalty`); nil: none.
    public var frequencyPenalty: Float?
    /// Subtracted from the logit of each token among the last ``penaltyLastN`` (OpenAI's
    /// `presence_penalty`); nil: none.
    public var presencePenalty: Float?
    /// How many of the last tokens, the prompt's and the answer's, the penalties look at; nil:
    /// 64 (llama.cpp's default); 0: the penalties are off.
    public var penaltyLastN: Int?
    /// Added to these tokens' logits before sampling (OpenAI's `logit_bias`): -100 all but bans
    /// a token, 100 all but forces it; greedy decoding honours it too.
    public var logitBias: [Int32: Float]?
    /// llama.cpp's samplers beyond those above (typical, dynamic temperature, XTC, top-nσ, DRY,
    /// Mirostat), each kind at most once, applied in llama.cpp's order (``LLMSampler``); empty: none.
    public var samplers: [LLMSampler]
    /// Report the log-probability of each token of the answer with this many of the likeliest
    /// tokens at its place (0 to ``maxTopLogprobs``), in ``GenerationEvent/logprobs(_:)`` events
    /// and ``LLMGenerationResult/logprobs``; nil: none (OpenAI's `logprobs` and `top_logprobs`).
    public var logprobs: Int?
    /// Report the log-probability of each token of the prompt after its first, given the tokens
    /// before it, with this many of the likeliest tokens at its place (0 to ``maxTopLogprobs``),
    /// in a ``GenerationEvent/promptLogprobs(_:)`` event and ``LLMGenerationResult/promptLogprobs``:
    /// how likely the model finds a text, for scoring and evaluation (OpenAI's `echo` with
    /// `logprobs`, vLLM's `prompt_logprobs`); nil: none. The whole prompt is evaluated again
    /// (nothing cached is reused), and a prompt with images cannot have them.
    public var promptLogprobs: Int?
    /// Generation stops before any of these strings; they are not part of the text.
    public var stopSequences: [String]
    /// Whether the caller streams; informational, the API chosen decides.
    public var streamingEnabled: Bool
    /// Run on this framework when the model can.
    public var preferredFramework: InferenceFramework?
    /// A system prompt; for chat it replaces the context's own.
    public var systemPrompt: String?
    /// CPU threads for this generation; nil uses the loaded model's default.
    public var threads: Int?
    /// Format the prompt with the model's chat template (true) or feed it to the model verbatim.
    public var applyChatTemplate: Bool
    /// Reuse the previous generation's KV cache for a shared prompt prefix (true), or evaluate
    /// the whole prompt again (false: what benchmarks of prompt processing need); false also
    /// keeps the request out of the prompts saved to disk (``ModelLoadOptions/savedPrompts``).
    public var reusePromptCache: Bool
    /// Output the model must keep to: JSON of a schema, any JSON object, or a grammar (the spec's
    /// `structuredOutput`).
    public var structuredOutput: StructuredOutputConfig?
    /// Functions the model may call; its calls come back in ``LLMGenerationResult/toolCalls``.
    public var tools: [Tool]
    /// Whether and which tool the model must call.
    public var toolChoice: ToolChoice
    /// Whether the model may call several tools in one answer (false: at most one call).
    public var parallelToolCalls: Bool
    /// Speculative decoding for this request; nil keeps the model's
    /// (``ModelLoadOptions/speculation``). The output is the same either way.
    public var speculation: LLMSpeculation?
    /// The LoRA adapters applied to the model for this request, with their scales; empty: the
    /// base model alone; nil: the model's own (a Modelfile's `ADAPTER`), else those a server was
    /// started with (`serve --lora`) that fit the model, else none.
    public var loraAdapters: [LoRAAdapter]?
    /// Whether a conversation's oldest messages are dropped to make room when the prompt would
    /// not leave room for the answer (true); false keeps every message and refuses a conversation
    /// the context cannot hold whole with ``ErrorCode/contextTooLong``, as the Responses API's
    /// `truncation: "disabled"` asks.
    public var dropsOldestMessages: Bool

    /// Creates options.
    public init(
        maxTokens: Int = 100,
        temperature: Float = 0.8,
        topP: Float = 1.0,
        topK: Int = 40,
        seed: UInt32? = nil,
        minP: Float? = nil,
        repeatPenalty: Float? = nil,
        frequencyPenalty: Float? = nil,
        presencePenalty: Float? = nil,
        penaltyLastN: Int? = nil,
        logitBias: [Int32: Float]? = nil,
        samplers: [LLMSampler] = [],
        logprobs: Int? = nil,
        promptLogprobs: Int? = nil,
        stopSequences: [String] = [],
        streamingEnabled: Bool = false,
        preferredFramework: InferenceFramework? = nil,
        systemPrompt: String? = nil,
        threads: Int? = nil,
        applyChatTemplate: Bool = true,
        reusePromptCache: Bool = true,
        structuredOutput: StructuredOutputConfig? = nil,
        tools: [Tool] = [],
        toolChoice: ToolChoice = .auto,
        parallelToolCalls: Bool = false,
        speculation: LLMSpeculation? = nil,
        loraAdapters: [LoRAAdapter]? = nil,
        dropsOldestMessages: Bool = true
    ) {
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.topP = topP
        self.topK = topK
        self.seed = seed
        self.minP = minP
        self.repeatPenalty = repeatPenalty
        self.frequencyPenalty = frequencyPenalty
        self.presencePenalty = presencePenalty
        self.penaltyLastN = penaltyLastN
        self.logitBias = logitBias
        self.samplers = samplers
        self.logprobs = logprobs
        self.promptLogprobs = promptLogprobs
        self.stopSequences = stopSequences
        self.streamingEnabled = streamingEnabled
        self.preferredFramework = preferredFramework
        self.systemPrompt = systemPrompt
        self.threads = threads
        self.applyChatTemplate = applyChatTemplate
        self.reusePromptCache = reusePromptCache
        self.structuredOutput = structuredOutput
        self.tools = tools
        self.toolChoice = toolChoice
        self.parallelToolCalls = parallelToolCalls
        self.speculation = speculation
        self.loraAdapters = loraAdapters
        self.dropsOldestMessages = dropsOldestMessages
    }

    /// The sampling settings an engine is given.
    package var sampling: LLMSampling {
        LLMSampling(
            temperature: temperature, topP: topP, topK: topK, seed: seed, minP: minP, repeatPenalty: repeatPenalty,
            frequencyPenalty: frequencyPenalty, presencePenalty: presencePenalty, penaltyLastN: penaltyLastN, logitBias: logitBias,
            samplers: samplers)
    }

    /// Whether the model is offered tools to call (there are some, and the choice is not `none`).
    package var offersTools: Bool { !tools.isEmpty && toolChoice != .none }

    /// Throws a clear error for values no engine can honour.
    package func validate() throws {
        if let invalid = firstInvalidOption() { throw invalid.error }
        try speculation?.validate()
        try validateTools()
    }

    /// The first of the generation's own values (not its tools, speculation or output format) that
    /// no engine can honour: the option's name (the property's) and the error saying why, for a
    /// server to name the field of its request that carried it.
    package func firstInvalidOption() -> (name: String, error: SDKError)? {
        func bad(_ name: String, _ why: String) -> (name: String, error: SDKError) {
            (name, SDKError.llm(.invalidInput, "Invalid generation options: \(why)"))
        }
        guard maxTokens >= 1 else { return bad("maxTokens", "maxTokens must be at least 1 (got \(maxTokens))") }
        let range = SDKConstants.Generation.temperatureRange
        guard temperature.isFinite, range.contains(temperature) else {
            return bad(
                "temperature", "temperature must be between \(Int(range.lowerBound)) and \(Int(range.upperBound)) (got \(temperature))")
        }
        guard topP.isFinite, topP > 0, topP <= 1 else { return bad("topP", "topP must be in (0, 1] (got \(topP))") }
        guard topK >= 0 else { return bad("topK", "topK must be 0 or more (got \(topK))") }
        if let invalid = sampling.firstInvalidSetting() { return invalid }
        if let logprobs, !(0...Self.maxTopLogprobs).contains(logprobs) {
            return bad("logprobs", "logprobs must be between 0 and \(Self.maxTopLogprobs) (got \(logprobs))")
        }
        if let promptLogprobs, !(0...Self.maxTopLogprobs).contains(promptLogprobs) {
            return bad("promptLogprobs", "promptLogprobs must be between 0 and \(Self.maxTopLogprobs) (got \(promptLogprobs))")
        }
        if let threads, !(1...SDKConstants.Limits.maxThreads).contains(threads) {
            return bad("threads", "threads must be between 1 and \(SDKConstants.Limits.maxThreads) (got \(threads))")
        }
        guard !stopSequences.contains("") else { return bad("stopSequences", "stop sequences must not be empty") }
        return nil
    }

    private func validateTools() throws {
        func bad(_ why: String) -> SDKError { SDKError.llm(.invalidInput, "Invalid tools: \(why)") }
        for tool in tools { try tool.validate() }
        if let repeated = Dictionary(grouping: tools, by: \.name).first(where: { $0.value.count > 1 })?.key {
            throw bad("two tools are named '\(repeated)'")
        }
        switch toolChoice {
        case .required where tools.isEmpty: throw bad("toolChoice is required, but there are no tools")
        case .tool(let name) where !tools.contains { $0.name == name }:
            throw bad("toolChoice names '\(name)', which is not one of the tools")
        default: break
        }
        if offersTools, structuredOutput != nil {
            throw bad("structuredOutput and tools exclude each other; set toolChoice to none to constrain the answer instead")
        }
        if offersTools, !applyChatTemplate { throw bad("tools need the chat template (applyChatTemplate)") }
    }
}
