import Foundation
import RunAnywhere

/// The model a result measured.
public struct ComponentModelInfo: Codable, Sendable, Equatable {
    /// The model's ID.
    public let modelId: String
    /// The model's name for people.
    public let modelName: String
    /// The framework's display name, e.g. "llama.cpp".
    public let framework: String
    /// The component the model is.
    public let category: BenchmarkCategory
    /// The model's format, e.g. "gguf".
    public let formatOrQuantization: String?
    /// The model's download size, when known.
    public let downloadSizeBytes: Int64?

    /// The info of `model`, benchmarked as `category`.
    public init(from model: ModelInfo, category: BenchmarkCategory) {
        modelId = model.id
        modelName = model.name
        framework = model.framework.displayName
        self.category = category
        formatOrQuantization = model.format.rawValue
        downloadSizeBytes = model.downloadSize
    }
}

/// The device a run measured.
public struct BenchmarkDeviceInfo: Codable, Sendable, Equatable {
    /// The machine model (DMI product name, else the host name).
    public let modelName: String
    /// The CPU model name.
    public let chipName: String
    /// The machine's memory.
    public let totalMemoryBytes: Int64
    /// Memory available when the benchmark ran.
    public let availableMemoryBytes: Int64
    /// Operating system name and version.
    public let osVersion: String
    /// The version of the app that ran the benchmark.
    public let appVersion: String
    /// The SDK's version.
    public let sdkVersion: String

    /// Creates device info.
    public init(
        modelName: String, chipName: String, totalMemoryBytes: Int64, availableMemoryBytes: Int64, osVersion: String, appVersion: String,
        sdkVersion: String
    ) {
        self.modelName = modelName
        self.chipName = chipName
        self.totalMemoryBytes = totalMemoryBytes
        self.availableMemoryBytes = availableMemoryBytes
        self.osVersion = osVersion
        self.appVersion = appVersion
        self.sdkVersion = sdkVersion
    }
}

/// What one scenario measured. Spec fields first; the rest are additive: with several measured
/// passes, the spec fields hold the median and the `…Min`/`…Max` fields the range.
public struct BenchmarkMetrics: Codable, Sendable, Equatable {
    /// Milliseconds to load the model.
    public var loadTimeMs: Double?
    /// Milliseconds of the first, warm-up inference.
    public var warmupTimeMs: Double?
    /// The median time to first token, in milliseconds.
    public var timeToFirstTokenMs: Double?
    /// Output tokens per second (LLM, VLM); for embeddings, the tokens embedded per second.
    public var tokensPerSecond: Double?
    /// The median run, in milliseconds.
    public var endToEndLatencyMs: Double
    /// Tokens of the prompt.
    public var inputTokens: Int?
    /// Tokens generated.
    public var outputTokens: Int?
    /// How far the memory available to the machine fell during the scenario.
    public var peakMemoryDeltaBytes: Int64?
    /// Milliseconds to transcribe the audio.
    public var sttTranscriptionTimeMs: Double?
    /// Milliseconds to synthesize the speech.
    public var ttsSynthesisTimeMs: Double?
    /// Milliseconds to describe the image.
    public var vlmDescriptionTimeMs: Double?
    /// Milliseconds to generate the image.
    public var imageGenerationTimeMs: Double?
    /// Why the scenario failed, if it did.
    public var error: String?

    /// Measured passes behind the medians. Additive.
    public var repetitions: Int?
    /// The fastest run's time to first token, in milliseconds.
    public var timeToFirstTokenMinMs: Double?
    /// The slowest run's time to first token, in milliseconds.
    public var timeToFirstTokenMaxMs: Double?
    /// The slowest run's tokens per second.
    public var tokensPerSecondMin: Double?
    /// The fastest run's tokens per second.
    public var tokensPerSecondMax: Double?
    /// The fastest run, in milliseconds.
    public var endToEndLatencyMinMs: Double?
    /// The slowest run, in milliseconds.
    public var endToEndLatencyMaxMs: Double?
    /// Prompt tokens evaluated per second (median). Additive.
    public var promptTokensPerSecond: Double?
    /// Generated tokens per second after the first (median). Additive.
    public var decodeTokensPerSecond: Double?
    /// Growth of the process's peak resident memory over load and passes. Additive.
    public var peakRSSDeltaBytes: Int64?
    /// Where the model ran: `cpu`, `cuda` or `vulkan` (language and vision models). Additive.
    public var backend: String?
    /// The share of speculative decoding's guesses the model kept over all passes, 0 to 1; nil
    /// when nothing was guessed. Additive.
    public var draftAcceptanceRate: Double?
    /// Texts embedded per second (median), with its range over the passes. Additive.
    public var sentencesPerSecond: Double?
    /// The slowest run's sentences per second.
    public var sentencesPerSecondMin: Double?
    /// The fastest run's sentences per second.
    public var sentencesPerSecondMax: Double?
    /// Embeddings: the SDK's own time for a batch, from `EmbeddingResult.latencyMs` (median). Additive.
    public var embeddingTimeMs: Double?

    /// Creates metrics; everything but the latency is optional.
    public init(
        loadTimeMs: Double? = nil, warmupTimeMs: Double? = nil, timeToFirstTokenMs: Double? = nil, tokensPerSecond: Double? = nil,
        endToEndLatencyMs: Double, inputTokens: Int? = nil, outputTokens: Int? = nil, peakMemoryDeltaBytes: Int64? = nil,
        sttTranscriptionTimeMs: Double? = nil, ttsSynthesisTimeMs: Double? = nil, vlmDescriptionTimeMs: Double? = nil,
        imageGenerationTimeMs: Double? = nil, error: String? = nil
    ) {
        self.loadTimeMs = loadTimeMs
        self.warmupTimeMs = warmupTimeMs
        self.timeToFirstTokenMs = timeToFirstTokenMs
        self.tokensPerSecond = tokensPerSecond
        self.endToEndLatencyMs = endToEndLatencyMs
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.peakMemoryDeltaBytes = peakMemoryDeltaBytes
        self.sttTranscriptionTimeMs = sttTranscriptionTimeMs
        self.ttsSynthesisTimeMs = ttsSynthesisTimeMs
        self.vlmDescriptionTimeMs = vlmDescriptionTimeMs
        self.imageGenerationTimeMs = imageGenerationTimeMs
        self.error = error
    }
}

/// One scenario on one model.
public struct BenchmarkResult: Codable, Sendable, Identifiable, Equatable {
    public let id: String
    /// When the scenario ended.
    public let timestamp: Date
    /// The component measured.
    public let category: BenchmarkCategory
    /// The scenario that ran.
    public let scenarioName: String
    /// The model measured.
    public let componentModelInfo: ComponentModelInfo
    /// The machine it ran on.
    public let deviceInfo: BenchmarkDeviceInfo
    /// What was measured.
    public let metrics: BenchmarkMetrics

    /// Creates a result.
    public init(
        id: String = UUID().uuidString, timestamp: Date = Date(), category: BenchmarkCategory, scenarioName: String,
        componentModelInfo: ComponentModelInfo, deviceInfo: BenchmarkDeviceInfo, metrics: BenchmarkMetrics
    ) {
        self.id = id
        self.timestamp = timestamp
        self.category = category
        self.scenarioName = scenarioName
        self.componentModelInfo = componentModelInfo
        self.deviceInfo = deviceInfo
        self.metrics = metrics
    }
}

/// One run of the suite.
public struct BenchmarkRun: Codable, Sendable, Identifiable, Equatable {
    public let id: String
    /// When the run began.
    public let startedAt: Date
    /// When the run ended; nil while it runs.
    public var completedAt: Date?
    /// One result per scenario run so far.
    public var results: [BenchmarkResult]
    /// The machine the run is on.
    public let deviceInfo: BenchmarkDeviceInfo
    /// Where the run stands.
    public var status: BenchmarkRunStatus
    /// The process running it, while it runs: a saved run still `running` whose process is gone
    /// reads as ``BenchmarkRunStatus/interrupted``. Additive to the spec.
    public var processID: Int32?

    /// Creates a run.
    public init(
        id: String = UUID().uuidString, startedAt: Date = Date(), completedAt: Date? = nil, results: [BenchmarkResult] = [],
        deviceInfo: BenchmarkDeviceInfo, status: BenchmarkRunStatus = .running
    ) {
        self.id = id
        self.startedAt = startedAt
        self.completedAt = completedAt
        self.results = results
        self.deviceInfo = deviceInfo
        self.status = status
    }

    /// Seconds from start to end, once ended.
    public var duration: TimeInterval? { completedAt.map { $0.timeIntervalSince(startedAt) } }
}
