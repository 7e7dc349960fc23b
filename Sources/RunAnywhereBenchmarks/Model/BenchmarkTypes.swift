import Foundation
import RunAnywhere

/// The model a result measured.
public struct ComponentModelInfo: Codable, Sendable, Equatable {
    public let modelId: String
    public let modelName: String
    /// The framework's display name, e.g. "llama.cpp".
    public let framework: String
    public let category: BenchmarkCategory
    /// The model's format, e.g. "gguf".
    public let formatOrQuantization: String?
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
    public let totalMemoryBytes: Int64
    public let availableMemoryBytes: Int64
    /// Operating system name and version.
    public let osVersion: String
    public let appVersion: String
    public let sdkVersion: String

    /// Creates device info.
    public init(modelName: String, chipName: String, totalMemoryBytes: Int64, availableMemoryBytes: Int64, osVersion: String, appVersion: String, sdkVersion: String) {
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
    public var loadTimeMs: Double?
    public var warmupTimeMs: Double?
    public var timeToFirstTokenMs: Double?
    /// Output tokens per second (LLM, VLM); for embeddings, the tokens embedded per second.
    public var tokensPerSecond: Double?
    public var endToEndLatencyMs: Double
    public var inputTokens: Int?
    public var outputTokens: Int?
    public var peakMemoryDeltaBytes: Int64?
    public var sttTranscriptionTimeMs: Double?
    public var ttsSynthesisTimeMs: Double?
    public var vlmDescriptionTimeMs: Double?
    public var imageGenerationTimeMs: Double?
    public var error: String?

    /// Measured passes behind the medians. Additive.
    public var repetitions: Int?
    public var timeToFirstTokenMinMs: Double?
    public var timeToFirstTokenMaxMs: Double?
    public var tokensPerSecondMin: Double?
    public var tokensPerSecondMax: Double?
    public var endToEndLatencyMinMs: Double?
    public var endToEndLatencyMaxMs: Double?
    /// Prompt tokens evaluated per second (median). Additive.
    public var promptTokensPerSecond: Double?
    /// Generated tokens per second after the first (median). Additive.
    public var decodeTokensPerSecond: Double?
    /// Growth of the process's peak resident memory over load and passes. Additive.
    public var peakRSSDeltaBytes: Int64?
    /// Where the model ran: `cpu`, `cuda` or `vulkan` (language and vision models). Additive.
    public var backend: String?
    /// Texts embedded per second (median), with its range over the passes. Additive.
    public var sentencesPerSecond: Double?
    public var sentencesPerSecondMin: Double?
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
    public let timestamp: Date
    public let category: BenchmarkCategory
    public let scenarioName: String
    public let componentModelInfo: ComponentModelInfo
    public let deviceInfo: BenchmarkDeviceInfo
    public let metrics: BenchmarkMetrics

    /// Creates a result.
    public init(id: String = UUID().uuidString, timestamp: Date = Date(), category: BenchmarkCategory, scenarioName: String,
                componentModelInfo: ComponentModelInfo, deviceInfo: BenchmarkDeviceInfo, metrics: BenchmarkMetrics) {
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
    public let startedAt: Date
    public var completedAt: Date?
    public var results: [BenchmarkResult]
    public let deviceInfo: BenchmarkDeviceInfo
    public var status: BenchmarkRunStatus
    /// The process running it, while it runs: a saved run still `running` whose process is gone
    /// reads as ``BenchmarkRunStatus/interrupted``. Additive to the spec.
    public var processID: Int32?

    /// Creates a run.
    public init(id: String = UUID().uuidString, startedAt: Date = Date(), completedAt: Date? = nil, results: [BenchmarkResult] = [],
                deviceInfo: BenchmarkDeviceInfo, status: BenchmarkRunStatus = .running) {
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
