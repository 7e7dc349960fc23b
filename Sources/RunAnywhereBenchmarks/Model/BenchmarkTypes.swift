import Foundation
import RunAnywhere

/// The model a result measured.
package struct ComponentModelInfo: Codable, Sendable, Equatable {
    /// The model's ID.
    package let modelId: String
    /// The model's name for people.
    package let modelName: String
    /// The framework's display name, e.g. "llama.cpp".
    package let framework: String
    /// The component the model is.
    package let category: BenchmarkCategory
    /// The model's format, e.g. "gguf".
    package let formatOrQuantization: String?
    /// The model's download size, when known.
    package let downloadSizeBytes: Int64?

    /// The info of `model`, benchmarked as `category`.
    package init(from model: ModelInfo, category: BenchmarkCategory) {
        modelId = model.id
        modelName = model.name
        framework = model.framework.displayName
        self.category = category
        formatOrQuantization = model.format.rawValue
        downloadSizeBytes = model.downloadSize
    }
}

/// The device a run measured.
package struct BenchmarkDeviceInfo: Codable, Sendable, Equatable {
    /// The machine model (DMI product name, else the host name).
    package let modelName: String
    /// The CPU model name.
    package let chipName: String
    /// The machine's memory.
    package let totalMemoryBytes: Int64
    /// Memory available when the benchmark ran.
    package let availableMemoryBytes: Int64
    /// Operating system name and version.
    package let osVersion: String
    /// The version of the app that ran the benchmark.
    package let appVersion: String
    /// The SDK's version.
    package let sdkVersion: String

    /// Creates device info.
    package init(
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
package struct BenchmarkMetrics: Codable, Sendable, Equatable {
    /// Milliseconds to load the model.
    package var loadTimeMs: Double?
    /// Milliseconds of the first, warm-up inference.
    package var warmupTimeMs: Double?
    /// The median time to first token, in milliseconds.
    package var timeToFirstTokenMs: Double?
    /// Output tokens per second (LLM, VLM); for embeddings, the tokens embedded per second.
    package var tokensPerSecond: Double?
    /// The median run, in milliseconds.
    package var endToEndLatencyMs: Double
    /// Tokens of the prompt.
    package var inputTokens: Int?
    /// Tokens generated.
    package var outputTokens: Int?
    /// How far the memory available to the machine fell during the scenario.
    package var peakMemoryDeltaBytes: Int64?
    /// Milliseconds to transcribe the audio.
    package var sttTranscriptionTimeMs: Double?
    /// Milliseconds to synthesize the speech.
    package var ttsSynthesisTimeMs: Double?
    /// Milliseconds to describe the image.
    package var vlmDescriptionTimeMs: Double?
    /// Milliseconds to generate the image.
    package var imageGenerationTimeMs: Double?
    /// Why the scenario failed, if it did.
    package var error: String?

    /// Measured passes behind the medians. Additive.
    package var repetitions: Int?
    /// The fastest run's time to first token, in milliseconds.
    package var timeToFirstTokenMinMs: Double?
    /// The slowest run's time to first token, in milliseconds.
    package var timeToFirstTokenMaxMs: Double?
    /// The slowest run's tokens per second.
    package var tokensPerSecondMin: Double?
    /// The fastest run's tokens per second.
    package var tokensPerSecondMax: Double?
    /// The fastest run, in milliseconds.
    package var endToEndLatencyMinMs: Double?
    /// The slowest run, in milliseconds.
    package var endToEndLatencyMaxMs: Double?
    /// Prompt tokens evaluated per second (median). Additive.
    package var promptTokensPerSecond: Double?
    /// Generated tokens per second after the first (median). Additive.
    package var decodeTokensPerSecond: Double?
    /// Growth of the process's peak resident memory over load and passes. Additive.
    package var peakRSSDeltaBytes: Int64?
    /// Where the model ran: `cpu`, `cuda` or `vulkan` (language and vision models). Additive.
    package var backend: String?
    /// The share of speculative decoding's guesses the model kept over all passes, 0 to 1; nil
    /// when nothing was guessed. Additive.
    package var draftAcceptanceRate: Double?
    /// Texts embedded per second (median), with its range over the passes. Additive.
    package var sentencesPerSecond: Double?
    /// The slowest run's sentences per second.
    package var sentencesPerSecondMin: Double?
    /// The fastest run's sentences per second.
    package var sentencesPerSecondMax: Double?
    /// Embeddings: the SDK's own time for a batch, from `EmbeddingResult.latencyMs` (median). Additive.
    package var embeddingTimeMs: Double?

    /// Creates metrics; everything but the latency is optional.
    package init(
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
package struct BenchmarkResult: Codable, Sendable, Identifiable, Equatable {
    package let id: String
    /// When the scenario ended.
    package let timestamp: Date
    /// The component measured.
    package let category: BenchmarkCategory
    /// The scenario that ran.
    package let scenarioName: String
    /// The model measured.
    package let componentModelInfo: ComponentModelInfo
    /// The machine it ran on.
    package let deviceInfo: BenchmarkDeviceInfo
    /// What was measured.
    package let metrics: BenchmarkMetrics

    /// Creates a result.
    package init(
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
package struct BenchmarkRun: Codable, Sendable, Identifiable, Equatable {
    package let id: String
    /// When the run began.
    package let startedAt: Date
    /// When the run ended; nil while it runs.
    package var completedAt: Date?
    /// One result per scenario run so far.
    package var results: [BenchmarkResult]
    /// The machine the run is on.
    package let deviceInfo: BenchmarkDeviceInfo
    /// Where the run stands.
    package var status: BenchmarkRunStatus
    /// The process running it, while it runs: a saved run still `running` whose process is gone
    /// reads as ``BenchmarkRunStatus/interrupted``. Additive to the spec.
    package var processID: Int32?

    /// Creates a run.
    package init(
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
    package var duration: TimeInterval? { completedAt.map { $0.timeIntervalSince(startedAt) } }
}
