/// A language model an engine has loaded, as the runtime drives it. Engine adapters implement
/// this; apps use the ``RunAnywhere`` API instead.
public protocol LLMService: AnyObject, Sendable {
    /// The context window the model was loaded with, in tokens.
    var contextLength: Int { get }

    /// How many tokens `text` becomes (BOS added as the model wants), special tokens parsed
    /// outside its `plainText` ranges (``LLMEngineRequest/plainText``).
    func tokenCount(_ text: String, plainText: [Range<Int>]) throws -> Int

    /// Whether the vocabulary has `text` as one special token (used to pick a fallback template).
    func hasSpecialToken(_ text: String) -> Bool

    /// Formats `messages` with the model's own chat template, or returns nil when the model has
    /// none the engine can apply.
    func applyChatTemplate(_ messages: [Message], addAssistantPrefix: Bool) -> String?

    /// The source of the model's own chat template (a Jinja template), if it has one; the SDK
    /// reads it to write tools in the format the model was trained on (``ToolCallFormat``).
    var chatTemplateSource: String? { get }

    /// Starts generating on an engine thread; the run's events report progress. May be called
    /// from any thread while other runs are going: the engine runs as many at once as it was
    /// loaded for (``ModelLoadOptions/parallel``), queues up to ``ModelLoadOptions/queueLimit``
    /// more, and throws ``ErrorCode/busy`` beyond that. Bad requests (an empty prompt) throw here.
    func startGeneration(_ request: LLMEngineRequest) throws -> LLMEngineRun

    /// How many generations wait in the engine's queue for a free sequence.
    var queuedGenerations: Int { get }

    /// Whether the model reads images (a vision-language model loaded with its projector):
    /// then a request's ``LLMEngineRequest/images`` stand where its prompt has
    /// ``LLMEngineRequest/imageMarker``.
    var readsImages: Bool { get }

    /// How many tokens `image` becomes where a prompt shows it (its embeddings and the tokens
    /// around them), for fitting prompts to the context; only for a model that reads images.
    func imageTokenCount(_ image: LoadedImage) throws -> Int

    /// Where the model runs: `cpu`, or the GPU backend that holds its layers (`cuda`, `vulkan`).
    var backend: String { get }

    /// Host memory, in bytes, the engine holds now for requests beyond the model it loaded: the
    /// LoRA adapters and draft models it keeps loaded. The runtime's memory budget counts it
    /// beside the model's estimate.
    var auxiliaryMemory: Int64 { get }

    /// Frees the model's memory, returning once it is freed (after its running work has ended
    /// as cancelled); the runtime calls it when it unloads the model, and uses the model no
    /// more. The default does nothing: the memory goes with the last reference.
    func unload() async
}

/// An engine that can report a generation to an ``LLMEngineReceiver`` on its own threads as it
/// happens, rather than through the run's stream, so that no task wakes per token to read it: an
/// engine worker writes each token to its pipe there, and the runtime runs its generation
/// pipeline there (``GenerationFollower``).
package protocol LLMServiceWithReceivers: LLMService {
    /// ``LLMService/startGeneration(_:)``, its events and its end going to `receiver`.
    func startGeneration(_ request: LLMEngineRequest, reportingTo receiver: LLMEngineReceiver) throws -> LLMEngineRun
}

extension LLMService {
    /// Does nothing: the model's memory is freed with its last reference.
    public func unload() async {}
}

extension LLMService {
    /// Default: no template source known.
    public var chatTemplateSource: String? { nil }

    /// Default: a text-only model.
    public var readsImages: Bool { false }

    /// Default: a text-only model shows no images.
    public func imageTokenCount(_ image: LoadedImage) throws -> Int { 0 }

    /// Default: the CPU.
    public var backend: String { "cpu" }

    /// Default: nothing beyond the model.
    public var auxiliaryMemory: Int64 { 0 }
}

/// Sampling settings passed to an engine.
public struct LLMSampling: Sendable, Equatable, Codable {
    /// 0 means greedy.
    public var temperature: Float
    /// Nucleus threshold; 1 disables it.
    public var topP: Float
    /// Top-k cut; 0 disables it.
    public var topK: Int
    /// Seed; nil picks a random one.
    public var seed: UInt32?
    /// Min-p threshold (``LLMGenerationOptions/minP``); nil disables it.
    public var minP: Float?
    /// ``LLMGenerationOptions/repeatPenalty``; nil: none.
    public var repeatPenalty: Float?
    /// ``LLMGenerationOptions/frequencyPenalty``; nil: none.
    public var frequencyPenalty: Float?
    /// ``LLMGenerationOptions/presencePenalty``; nil: none.
    public var presencePenalty: Float?
    /// ``LLMGenerationOptions/penaltyLastN``; nil: 64.
    public var penaltyLastN: Int?
    /// ``LLMGenerationOptions/logitBias``, for greedy decoding too; nil: none.
    public var logitBias: [Int32: Float]?
    /// ``LLMGenerationOptions/samplers``: llama.cpp's other samplers, each kind at most once.
    public var samplers: [LLMSampler]

    /// Whether the tokens drawn depend only on the logits: greedy, or sampled with a seed. A
    /// seeded request promises reproducible output; a greedy one where the model was loaded
    /// ``ModelLoadOptions/reproducible``.
    public var isReproducible: Bool { temperature <= 0 || seed != nil }

    /// Creates sampling settings.
    public init(
        temperature: Float, topP: Float, topK: Int, seed: UInt32?, minP: Float? = nil, repeatPenalty: Float? = nil,
        frequencyPenalty: Float? = nil, presencePenalty: Float? = nil, penaltyLastN: Int? = nil, logitBias: [Int32: Float]? = nil,
        samplers: [LLMSampler] = []
    ) {
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
    }

    /// The window the penalties look at: 0 when no penalty applies.
    package var penaltyWindow: Int {
        let penalizes = (repeatPenalty ?? 1) != 1 || (frequencyPenalty ?? 0) != 0 || (presencePenalty ?? 0) != 0
        return penalizes ? penaltyLastN ?? 64 : 0
    }

    /// Throws a clear error for settings no sampler can honour (the token ids of `logitBias` are
    /// the engine's to check against its vocabulary).
    package func validate() throws {
        if let invalid = firstInvalidSetting() { throw invalid.error }
    }

    /// The first setting no sampler can honour: its name (the property's) and the error saying why.
    package func firstInvalidSetting() -> (name: String, error: SDKError)? {
        func bad(_ name: String, _ why: String) -> (name: String, error: SDKError) {
            (name, SDKError.llm(.invalidInput, "Invalid generation options: \(why)"))
        }
        if let minP, !(minP.isFinite && (0...1).contains(minP)) { return bad("minP", "minP must be between 0 and 1 (got \(minP))") }
        if let repeatPenalty, !(repeatPenalty.isFinite && repeatPenalty > 0) {
            return bad("repeatPenalty", "repeatPenalty must be more than 0 (got \(repeatPenalty)); 1 is none")
        }
        for (name, value) in [("frequencyPenalty", frequencyPenalty), ("presencePenalty", presencePenalty)] {
            if let value, !value.isFinite { return bad(name, "\(name) must be a finite number (got \(value))") }
        }
        if let penaltyLastN, penaltyLastN < 0 { return bad("penaltyLastN", "penaltyLastN must be 0 or more (got \(penaltyLastN))") }
        if let (token, bias) = logitBias?.first(where: { $0.key < 0 || !$0.value.isFinite }) {
            return bad(
                "logitBias",
                token < 0
                    ? "logitBias names token \(token); token ids start at 0" : "logitBias for token \(token) must be finite (got \(bias))")
        }
        if let why = samplers.invalidity { return bad("samplers", why) }
        return nil
    }
}

/// What an engine is asked to generate.
public struct LLMEngineRequest: Sendable, Equatable, Codable {
    /// The prompt, already formatted.
    public var prompt: String
    /// The UTF-8 byte ranges of `prompt` that are messages' own text, in order and apart: an
    /// engine reads special-token text in them as text (a message that writes `<|im_end|>`
    /// does not end its turn), and the rest with special tokens parsed. None: `prompt` is read
    /// whole with special tokens parsed.
    public var plainText: [Range<Int>]
    /// The prompt as the model's token ids, read as they are (no token added, no text parsed)
    /// instead of `prompt`; nil: `prompt`. An engine that cannot take token ids refuses them.
    public var promptTokens: [Int32]?
    /// Most tokens to generate.
    public var maxNewTokens: Int
    /// How to pick tokens.
    public var sampling: LLMSampling
    /// CPU threads; nil keeps the model's default.
    public var threads: Int?
    /// Whether a prompt prefix already in the KV cache may be reused.
    public var reuseCache: Bool
    /// The images the prompt shows, in order: each stands where the prompt has ``imageMarker``.
    public var images: [LoadedImage]
    /// A GBNF grammar (root rule `root`) every generated token must keep the output inside; the
    /// output ends when the grammar is complete. An engine without grammars refuses the request.
    public var grammar: String?
    /// Speculative decoding; nil keeps the model's (``ModelLoadOptions/speculation``).
    public var speculation: LLMSpeculation?
    /// The LoRA adapters to apply to the model for this request, with absolute paths; none: the
    /// base model. The runtime has checked each is a LoRA adapter GGUF for the model's architecture.
    public var loraAdapters: [LoRAAdapter]
    /// Report each generated token's log-probability with this many of the likeliest tokens at
    /// its place (``LLMEngineEvent/tokenLogprob(_:)``, before the token); nil: none.
    public var logprobs: Int?
    /// Report the log-probability of each token of the prompt after its first, with this many of
    /// the likeliest tokens at its place (``LLMEngineEvent/promptLogprobs(_:)``, while the prompt
    /// is read); nil: none. Such a prompt is evaluated whole, none of it taken from a cache.
    public var promptLogprobs: Int?

    /// The text that marks an image's place in a prompt (the one llama.cpp's libmtmd uses).
    public static let imageMarker = "<__media__>"

    /// Creates a request.
    public init(
        prompt: String, plainText: [Range<Int>] = [], maxNewTokens: Int, sampling: LLMSampling, threads: Int?, reuseCache: Bool = true,
        images: [LoadedImage] = [],
        grammar: String? = nil, speculation: LLMSpeculation? = nil, loraAdapters: [LoRAAdapter] = [], logprobs: Int? = nil,
        promptLogprobs: Int? = nil, promptTokens: [Int32]? = nil
    ) {
        self.prompt = prompt
        self.plainText = plainText
        self.promptTokens = promptTokens
        self.maxNewTokens = maxNewTokens
        self.sampling = sampling
        self.threads = threads
        self.reuseCache = reuseCache
        self.images = images
        self.grammar = grammar
        self.speculation = speculation
        self.loraAdapters = loraAdapters
        self.logprobs = logprobs
        self.promptLogprobs = promptLogprobs
    }
}

/// Why an engine stopped.
public enum LLMEngineStop: Sendable, Equatable {
    /// The model produced an end-of-generation token.
    case endOfGeneration
    /// `maxNewTokens` were generated, or the context window is full.
    case length
    /// The run was cancelled.
    case cancelled
}

/// What an engine reports while it generates.
public enum LLMEngineEvent: Sendable, Equatable {
    /// The prompt was read: `evaluated` tokens in `seconds`, `cached` more reused from the last run.
    case promptProcessed(evaluated: Int, cached: Int, seconds: Double)
    /// The prompt's images were encoded into `tokens` embeddings in `seconds` (part of reading the prompt).
    case imagesEncoded(count: Int, tokens: Int, seconds: Double)
    /// One generated token, as the bytes of its text (may end inside a UTF-8 character), and
    /// when the engine produced it (timings are taken here, not when the consumer wakes up).
    case token(bytes: [UInt8], at: ContinuousClock.Instant)
    /// The log-probability of the token reported next, with the likeliest tokens at its place:
    /// sent just before each `token` when the request asked (``LLMEngineRequest/logprobs``).
    case tokenLogprob(TokenLogprob)
    /// The log-probabilities of prompt tokens, in order, each given the tokens before it, when the
    /// request asked (``LLMEngineRequest/promptLogprobs``): every token but the prompt's first, in
    /// one or more of these events before `promptProcessed`.
    case promptLogprobs([TokenLogprob])
    /// Speculative decoding guessed `drafted` tokens in all, of which the model kept `accepted`;
    /// sent once, before `finished`, by a run that speculated.
    case speculated(drafted: Int, accepted: Int)
    /// The engine stopped.
    case finished(LLMEngineStop)
}
