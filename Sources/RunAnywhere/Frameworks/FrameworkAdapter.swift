import Logging

/// Whether a framework can run here now.
public enum FrameworkAvailability: Sendable, Equatable, Codable {
    /// Ready; `detail` says which build or library, when known.
    case available(detail: String?)
    /// Not usable here, and why.
    case unavailable(reason: String)

    /// Whether the framework can run.
    public var isAvailable: Bool {
        if case .available = self { return true }
        return false
    }
}

/// How to load a model into an engine.
public struct ModelLoadOptions: Sendable, Equatable, Codable {
    /// Flash attention setting for engines that have one.
    public enum FlashAttention: String, Sendable, CaseIterable, Codable {
        /// Let the engine decide (llama.cpp: on for CPU).
        case auto
        /// Always use flash attention.
        case enabled
        /// Never use flash attention.
        case disabled
    }

    /// Context window in tokens; nil uses the model's training context, at most 4096.
    public var contextLength: Int?
    /// Default CPU threads for this model; nil uses `min(4, cores)`.
    public var threads: Int?
    /// Flash attention.
    public var flashAttention: FlashAttention
    /// Tokens evaluated per decode call while reading a prompt. A request that decodes on its own
    /// to stay reproducible (see ``reproducible``) has its prompt cut into chunks of this length
    /// from its first token and reuses a cached prefix only in whole chunks, so that it gets the
    /// same numbers whatever the cache holds.
    public var batchSize: Int
    /// Generations that run at once, each in a sequence of its own with its own `contextLength`;
    /// an engine that batches (llama.cpp) decodes them together.
    public var parallel: Int
    /// Generations that may wait for a free sequence; beyond them a request fails with
    /// ``ErrorCode/busy``.
    public var queueLimit: Int
    /// Layers to place on the GPU; nil lets the engine decide (`GPUOffload`: all when the
    /// model fits in the GPU's free memory, as many as fit otherwise, none without a GPU); 0
    /// keeps the model on the CPU.
    public var gpuLayers: Int?
    /// Whether greedy requests promise reproducible output, as seeded ones always do: the same
    /// tokens for the same request alone or among others, cached or not, in any process.
    ///
    /// llama.cpp (on the CPU, with flash attention and weights it computes the same way at every
    /// batch size) then runs in its batch-invariant configuration, and every request shares the
    /// batch; it reads one long prompt alone more slowly (the "Generating text" article says why, under "Reproducible output"). Where that
    /// configuration is not available, greedy and seeded requests decode one at a time instead.
    /// Off, greedy requests are batched and reuse cached prefixes as randomly sampled ones are,
    /// as llama.cpp's server and ollama do, and only seeded requests promise reproducibility.
    public var reproducible: Bool
    /// Speculative decoding for requests that do not choose their own
    /// (``LLMGenerationOptions/speculation``).
    public var speculation: LLMSpeculation
    /// Where long prompts' state is saved across restarts; nil saves none.
    public var savedPrompts: SavedPrompts?
    /// llama.cpp RPC workers (`HOST:PORT`, each `runanywhere rpc-worker` or llama.cpp's
    /// `rpc-server`) that take a language model's layers (not an embedding model's or a
    /// reranker's), for a model larger than this machine:
    /// ``gpuLayers`` of them (nil: all), split between the workers and any local GPU by their
    /// free memory, the rest on this CPU. The protocol has no authentication: keep workers on
    /// loopback or a trusted network. A worker serves one process at a time.
    public var rpcWorkers: [String]

    /// Creates load options.
    public init(
        contextLength: Int? = nil, threads: Int? = nil, flashAttention: FlashAttention = .auto, batchSize: Int = 64,
        parallel: Int = 1, queueLimit: Int = 64, gpuLayers: Int? = nil, reproducible: Bool = false, speculation: LLMSpeculation = .off,
        savedPrompts: SavedPrompts? = nil, rpcWorkers: [String] = []
    ) {
        self.reproducible = reproducible
        self.rpcWorkers = rpcWorkers
        self.speculation = speculation
        self.savedPrompts = savedPrompts
        self.contextLength = contextLength
        self.threads = threads
        self.flashAttention = flashAttention
        self.batchSize = batchSize
        self.parallel = parallel
        self.queueLimit = queueLimit
        self.gpuLayers = gpuLayers
    }

    /// The context to load `model` with: the requested one, else the one its ``ModelInfo/defaults``
    /// name, else the model's own, at most 4096 (a length of 0 or less, as a damaged file or
    /// registry may say, is no length).
    package func resolvedContextLength(for model: ModelInfo, trainedContext: Int) -> Int {
        contextLength ?? model.defaults?.contextLength
            ?? min(
                [trainedContext, model.contextLength ?? 0].first { $0 > 0 } ?? SDKConstants.Limits.defaultContextLength,
                SDKConstants.Limits.maxDefaultContextLength
            )
    }

    /// Throws ``ErrorCode/invalidConfiguration`` naming the first value out of range: a context
    /// of 16 to ``SDKConstants/Limits/maxContextLength`` tokens, 1 to
    /// ``SDKConstants/Limits/maxThreads`` threads, a batch of at least 1, 1 to
    /// ``SDKConstants/Limits/maxParallel`` generations at once, no negative queue or GPU layers,
    /// RPC workers as `HOST:PORT`.
    /// Engines pass these to C as 32-bit numbers; within these ranges they always fit.
    package func validate() throws {
        func bad(_ why: String) -> SDKError { SDKError(.invalidConfiguration, "Invalid load options: \(why)") }
        let limits = SDKConstants.Limits.self
        if let contextLength, !(16...limits.maxContextLength).contains(contextLength) {
            throw bad("contextLength must be 16 to \(limits.maxContextLength) tokens (got \(contextLength))")
        }
        try Self.checkThreads(threads)
        guard batchSize >= 1 else { throw bad("batchSize must be at least 1 (got \(batchSize))") }
        guard (1...limits.maxParallel).contains(parallel) else {
            throw bad("parallel must be 1 to \(limits.maxParallel) (got \(parallel))")
        }
        guard queueLimit >= 0 else { throw bad("queueLimit cannot be negative (got \(queueLimit))") }
        if let gpuLayers, gpuLayers < 0 { throw bad("gpuLayers cannot be negative (got \(gpuLayers))") }
        do { try speculation.validate() } catch let error as SDKError { throw bad(error.message) }
        if let savedPrompts, savedPrompts.maxBytes < 1 || savedPrompts.minTokens < 1 {
            throw bad("savedPrompts needs a maxBytes and a minTokens of at least 1")
        }
        for worker in rpcWorkers {
            do { _ = try RPCEndpoint.parse(worker) } catch let error as SDKError { throw bad(error.message) }
        }
        if Set(rpcWorkers).count < rpcWorkers.count { throw bad("rpcWorkers names a worker twice") }
    }

    /// Throws ``ErrorCode/invalidConfiguration`` unless `threads` is nil or 1 to ``SDKConstants/Limits/maxThreads``.
    package static func checkThreads(_ threads: Int?) throws {
        if let threads, !(1...SDKConstants.Limits.maxThreads).contains(threads) {
            throw SDKError(.invalidConfiguration, "threads must be 1 to \(SDKConstants.Limits.maxThreads) (got \(threads))")
        }
    }
}

/// An inference engine plugged into the SDK. Each engine target provides one; the registry
/// picks the best available adapter for a model.
public protocol FrameworkAdapter: Sendable {
    /// The framework this adapter runs.
    var framework: InferenceFramework { get }
    /// The kinds of work it does.
    var supportedModalities: Set<FrameworkModality> { get }
    /// The model formats it reads.
    var supportedFormats: [ModelFormat] { get }
    /// Whether the engine can run here now (its library found and loadable), and why not.
    func availability() -> FrameworkAvailability
    /// The devices the engine can run models on here, as the engine reports them (passed
    /// through its hardware detector's ``HardwareDetector/accelerators(from:)``), and the
    /// backends it knows but cannot use here with the reason.
    func accelerators() -> [Accelerator]
    /// Whether this adapter can run `model` at all.
    func canHandle(model: ModelInfo) -> Bool
    /// Bytes of memory the model needs once loaded, estimated.
    func estimateMemoryUsage(for model: ModelInfo) -> Int64
    /// Bytes of host memory the model needs once loaded with `options` (context, parallel
    /// sequences, GPU layers), estimated; by default the same as without options.
    func estimateMemoryUsage(for model: ModelInfo, options: ModelLoadOptions) -> Int64
    /// Bytes of host and of GPU memory the model takes once loaded with `options`, estimated
    /// together (where its layers go is worked out once); the GPU's part is 0 on the CPU.
    func estimateMemorySplit(for model: ModelInfo, options: ModelLoadOptions) -> (host: Int64, device: Int64)
    /// This adapter reading the machine through `hardwareDetector` (default threads, GPU drivers,
    /// the devices its models' layers may go to); the registry hands every adapter its detector.
    func using(hardwareDetector: any HardwareDetector) -> any FrameworkAdapter
    /// Loads a language model.
    func loadLanguageModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any LLMService
    /// Loads a speech-to-text model.
    func loadSpeechRecognitionModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any STTService
    /// Loads a voice activity detector.
    func loadVoiceActivityModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any VADService
    /// Loads a text-to-speech voice.
    func loadSpeechSynthesisModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any TTSService
    /// Loads an image-generation (diffusion) model.
    func loadDiffusionModel(_ model: ModelInfo, configuration: DiffusionConfiguration, logger: Logger) async throws -> any DiffusionService
    /// Loads a text-embedding model.
    func loadEmbeddingModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any EmbeddingService
    /// Loads a reranker (a cross-encoder, ``ModelCategory/reranking``).
    func loadRerankingModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any RerankingService
}

extension FrameworkAdapter {
    /// Default: what ``estimateMemoryUsage(for:)`` says, whatever the options.
    public func estimateMemoryUsage(for model: ModelInfo, options: ModelLoadOptions) -> Int64 {
        estimateMemoryUsage(for: model)
    }

    /// Default: all of ``estimateMemoryUsage(for:options:)`` on the host, none on a GPU.
    public func estimateMemorySplit(for model: ModelInfo, options: ModelLoadOptions) -> (host: Int64, device: Int64) {
        (estimateMemoryUsage(for: model, options: options), 0)
    }

    /// Default: the engine reports no devices of its own.
    public func accelerators() -> [Accelerator] { [] }

    /// Default: the adapter itself, for an engine that reads nothing of the machine.
    public func using(hardwareDetector: any HardwareDetector) -> any FrameworkAdapter { self }

    /// Default: the formats its framework reads.
    public var supportedFormats: [ModelFormat] { framework.formats }

    /// Default: this adapter runs no language models.
    public func loadLanguageModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any LLMService {
        throw SDKError(.modelIncompatible, "\(framework.displayName) does not run language models")
    }

    /// Default: this adapter runs no speech-to-text models.
    public func loadSpeechRecognitionModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any STTService {
        throw SDKError(.modelIncompatible, "\(framework.displayName) does not run speech-to-text models")
    }

    /// Default: this adapter has no text-to-speech voices.
    public func loadSpeechSynthesisModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any TTSService {
        throw SDKError(.modelIncompatible, "\(framework.displayName) does not synthesize speech")
    }

    /// Default: this adapter generates no images.
    public func loadDiffusionModel(_ model: ModelInfo, configuration: DiffusionConfiguration, logger: Logger) async throws
        -> any DiffusionService
    {
        throw SDKError(.modelIncompatible, "\(framework.displayName) does not generate images")
    }

    /// Default: this adapter computes no text embeddings.
    public func loadEmbeddingModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any EmbeddingService {
        throw SDKError(.modelIncompatible, "\(framework.displayName) does not compute text embeddings")
    }

    /// Default: this adapter runs no rerankers.
    public func loadRerankingModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any RerankingService {
        throw SDKError(.modelIncompatible, "\(framework.displayName) does not run rerankers")
    }

    /// Default: this adapter runs no voice activity detectors.
    public func loadVoiceActivityModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any VADService {
        throw SDKError(.modelIncompatible, "\(framework.displayName) does not detect voice activity")
    }

    /// Default: the format is supported and the model's category needs a modality this adapter has.
    public func canHandle(model: ModelInfo) -> Bool {
        supportedFormats.contains(model.format) && supportedModalities.contains(FrameworkModality(category: model.category))
    }
}
