import Foundation
import Logging

/// One instance of the SDK: its model catalog, engines and loaded model. The static
/// ``RunAnywhere`` API forwards to a shared runtime; tests and servers can create their own.
///
/// Loading, unloading and generating hold an async mutex for their whole duration, so they never
/// interleave on the engine even though the actor is re-entered at every `await`.
public actor RunAnywhereRuntime {
    struct LoadedModel {
        let info: ModelInfo
        let framework: InferenceFramework
        let service: any LLMService
    }

    /// Where data lives and where diagnostics go.
    public nonisolated let configuration: RuntimeConfiguration
    /// The engines plugged in.
    public nonisolated let frameworks: FrameworkAdapterRegistry
    nonisolated let catalog: ModelCatalog
    nonisolated let downloader: ModelDownloader
    /// Events: model loads, downloads' progress, registrations.
    public nonisolated let events = SDKEventBus()
    let modelLock = AsyncMutex()
    var loaded: LoadedModel?
    /// Speech models have their own lock, so a transcription never waits for a generation.
    let speechLock = AsyncMutex()
    var loadedSTT: (info: ModelInfo, service: any STTService)?
    var loadedVAD: (any VADService)?
    var loadedTTS: (info: ModelInfo, service: any TTSService)?
    var activeGenerations: [UUID: Task<LLMGenerationResult, any Error>] = [:]

    nonisolated var logger: Logger { configuration.logger }

    /// Creates a runtime; nothing is read from disk and nothing is loaded until asked.
    public init(configuration: RuntimeConfiguration, frameworks: FrameworkAdapterRegistry = FrameworkAdapterRegistry()) {
        self.configuration = configuration
        self.frameworks = frameworks
        self.catalog = ModelCatalog(modelsDirectory: configuration.modelsDirectory, logger: configuration.logger)
        self.downloader = ModelDownloader(logger: configuration.logger)
    }

    /// Whether a language model is loaded.
    public var isModelLoaded: Bool { loaded != nil }

    /// The loaded language model.
    public var currentModel: ModelInfo? { loaded?.info }

    /// The context window of the loaded model, in tokens.
    public var loadedContextLength: Int? { loaded?.service.contextLength }

    /// Loads the model `id`, replacing any loaded one. Loading the model that is already loaded
    /// does nothing.
    public func loadModel(_ id: String, options: ModelLoadOptions = ModelLoadOptions()) async throws {
        let model = try catalog.model(id: id)
        try await modelLock.withLock { try await load(model, options: options) }
    }

    /// Loads `model` unless it is the loaded one; the caller holds ``modelLock``.
    func load(_ model: ModelInfo, options: ModelLoadOptions) async throws {
        if loaded?.info.id == model.id { return }
        let adapter = try adapter(for: model)
        loaded = nil  // free the previous model before the next one takes memory
        let started = ContinuousClock.now
        let service = try await adapter.loadLanguageModel(model, options: options, logger: logger)
        loaded = LoadedModel(info: model, framework: adapter.framework, service: service)
        events.publish(.modelLoaded(modelId: model.id))
        logger.info("Loaded model", metadata: [
            "event": "\(SDKConstants.Events.modelLoaded)", "model": "\(model.id)", "framework": "\(adapter.framework.displayName)",
            "seconds": "\((ContinuousClock.now - started).inSeconds)", "context": "\(service.contextLength)",
        ])
    }

    /// Unloads the language model, waiting for a running generation to finish first.
    public func unloadModel() async {
        await modelLock.withLock {
            if let id = loaded?.info.id {
                logger.info("Unloaded model", metadata: ["event": "\(SDKConstants.Events.modelUnloaded)", "model": "\(id)"])
                events.publish(.modelUnloaded(modelId: id))
            }
            loaded = nil
        }
    }

    /// The engine to load `model` with, after checking its file is there and (for GGUF) whole,
    /// and that it fits in memory.
    nonisolated func adapter(for model: ModelInfo) throws -> any FrameworkAdapter {
        guard let path = model.primaryFile else {
            throw SDKError(.modelNotDownloaded, "Model '\(model.id)' is not downloaded (expected at \(model.localPath?.path ?? "no path"))")
        }
        if model.format == .gguf { _ = try GGUFReader.read(path) }
        let available = HardwareProfile.availableMemory()
        guard let adapter = frameworks.bestAdapter(for: model, availableMemory: available) else {
            throw SDKError(.frameworkNotAvailable, "No available engine can run '\(model.id)' (\(model.framework.displayName), \(model.format.rawValue)): \(unavailableReason(for: model))")
        }
        let needed = adapter.estimateMemoryUsage(for: model)
        if available > 0, needed > available {
            throw SDKError(.insufficientMemory, "Model '\(model.id)' needs about \(needed >> 20) MiB but only \(available >> 20) MiB is available")
        }
        return adapter
    }

    private nonisolated func unavailableReason(for model: ModelInfo) -> String {
        let status = frameworks.statuses().first { $0.framework == model.framework }
        if case .unavailable(let reason)? = status?.availability { return reason }
        return "no registered engine handles this model's format and category"
    }
}
