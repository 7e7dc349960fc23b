import Foundation
import Logging
import Synchronization

/// The SDK's runtime: its model catalog, engines and loaded models, with calls that name the
/// model they use (``RunAnywhere/runtime()`` returns it once ``RunAnywhere/initialize(apiKey:baseURL:environment:configuration:)``
/// has made it). The static ``RunAnywhere`` API is the spec's: one current model per role,
/// loaded first and used by the calls that name none.
///
/// Models of every modality live in one cache: a request names its model, which is loaded on
/// demand and lent to the request for its whole duration, so two requests for different models
/// never pull a model out from under each other, and a model in use is never unloaded. Idle
/// models stay loaded for their keep-alive (default 5 minutes), and the least recently used ones
/// are unloaded when a load would not fit the memory budget. The facade's current models
/// (``RunAnywhere/loadModel(_:options:)``, ``RunAnywhere/loadSTTModel(_:)``,
/// ``RunAnywhere/loadDiffusionModel(_:configuration:)``…) are such models, kept for ever until
/// another replaces them.
public actor RunAnywhereRuntime {
    /// Where data lives and where diagnostics go.
    public nonisolated let configuration: RuntimeConfiguration
    /// The engines plugged in.
    package nonisolated let frameworks: FrameworkAdapterRegistry
    /// The readers of model files' metadata: GGUF, safetensors, ONNX, and those an app adds.
    package nonisolated let metadataExtractors = ModelMetadataExtractorRegistry()
    nonisolated let catalog: ModelCatalog
    nonisolated let downloader: ModelDownloader
    /// Where models named by reference (`hf.co/OWNER/REPO:QUANT`) come from, and whose tokens
    /// authenticate downloads from their hosts.
    package nonisolated let providers: ModelProviderRegistry
    /// Events: model states, loads, downloads' progress, registrations, completed work.
    public nonisolated let events = SDKEventBus()
    /// The language models loading or loaded, by id.
    var cache: [String: CachedModel] = [:]
    /// Models dropped from the cache whose engines are still freeing their memory; a load waits for them.
    var unloading: [String: (token: UUID, task: Task<Void, Never>)] = [:]
    /// The last load failure of models not in the cache, by id.
    var failedLoads: [String: String] = [:]
    var memoryBudget: Int64
    /// The facade's current model of each role, and how it was loaded.
    var current: [CurrentModel.Role: CurrentModel] = [:]
    /// The running image generations' flags, which ``cancelImageGeneration()`` raises.
    var imageGenerationCancellations: [UUID: CancellationFlag] = [:]
    var activeGenerations: [UUID: Task<LLMGenerationResult, any Error>] = [:]
    /// The LoRA adapters a request that chooses none (``LLMGenerationOptions/loraAdapters`` nil)
    /// applies, where they fit its model (``LoRAAdapter/fitting(_:_:)``) and the model keeps none
    /// of its own (``ModelDefaults/loraAdapters``): a server's `--lora` list, with the scales it
    /// was last given.
    package nonisolated let defaultLoRAAdapters = Mutex<[LoRAAdapter]>([])
    /// The draft model (an id or a GGUF path) each language model, by id, speculates with when
    /// it is loaded with no draft model of its own: a server's `--draft-model MODEL=DRAFT`.
    package nonisolated let defaultDraftModels = Mutex<[String: String]>([:])

    nonisolated var logger: Logger { configuration.logger }

    /// Creates a runtime; nothing is read from disk and nothing is loaded until asked. The
    /// configuration's hardware detector, when it has one, becomes `frameworks`' detector.
    package init(configuration: RuntimeConfiguration, frameworks: FrameworkAdapterRegistry = FrameworkAdapterRegistry()) {
        self.configuration = configuration
        if let detector = configuration.hardwareDetector { frameworks.register(hardwareDetector: detector) }
        self.frameworks = frameworks
        self.catalog = ModelCatalog(modelsDirectory: configuration.modelsDirectory, logger: configuration.logger)
        self.providers = ModelProviderRegistry()
        self.downloader = ModelDownloader(logger: configuration.logger, providers: providers)
        self.memoryBudget = configuration.modelMemoryBudget ?? frameworks.hardwareDetector.availableMemory() / 4 * 3
    }

    /// Whether the current language model is loaded.
    package var isModelLoaded: Bool { current[.language].map { cache[$0.info.id]?.service != nil } ?? false }

    /// The current language model.
    package var currentModel: ModelInfo? { current[.language]?.info }

    /// The context window of the current language model, in tokens.
    package var loadedContextLength: Int? { currentService?.contextLength }

    /// The current model's loaded service, if it is loaded.
    var currentService: (any LLMService)? { current[.language].flatMap { cache[$0.info.id]?.service } }

    /// Loads the model `id` and makes it the current one, replacing (and unloading) the previous
    /// current model once no request uses it. Loading the current model again does nothing.
    package func loadModel(_ id: String, options: ModelLoadOptions = ModelLoadOptions()) async throws {
        let model = try catalog.model(id: id)
        await dropCurrent(.language, keeping: id)  // free its memory before the next model takes some
        let lease = try await acquire(model, options: options, keepAlive: .forever)
        release(lease)
        current[.language] = CurrentModel(info: model, options: options)
    }

    /// Unloads the current language model, waiting for a running generation to finish first.
    package func unloadModel() async {
        await dropCurrent(.language)
    }

    /// The engine to load `model` with (`options`) and the memory it will take, after checking
    /// the options, that the file is there and (for GGUF) whole, and that it fits in the memory available.
    nonisolated func adapter(
        for model: ModelInfo, options: ModelLoadOptions = ModelLoadOptions()
    ) throws -> (adapter: any FrameworkAdapter, memory: Int64, deviceMemory: Int64) {
        try options.validate()
        guard let path = model.primaryFile else {
            let installedBySetup = [
                SDKConstants.Models.defaultModelID, SDKConstants.Models.defaultVoiceID, SDKConstants.Models.voiceActivityModelID,
            ]
            let remedy = installedBySetup.contains(model.id) ? "; \(EngineInstallation.command) installs it with the engines" : ""
            throw SDKError(
                .modelNotDownloaded, "Model '\(model.id)' is not downloaded (expected at \(model.localPath?.path ?? "no path"))\(remedy)")
        }
        if model.format == .gguf { _ = try GGUFReader.read(path) }
        let available = frameworks.hardwareDetector.availableMemory()
        guard let adapter = frameworks.bestAdapter(for: model, availableMemory: available) else {
            throw SDKError(
                .frameworkNotAvailable,
                "No available engine can run '\(model.id)' (\(model.framework.displayName), \(model.format.rawValue)): \(unavailableReason(for: model))"
            )
        }
        let (needed, device) = adapter.estimateMemorySplit(for: model, options: options)
        if available > 0, needed > available {
            throw SDKError(
                .insufficientMemory, "Model '\(model.id)' needs about \(needed >> 20) MiB but only \(available >> 20) MiB is available")
        }
        return (adapter, needed, device)
    }

    private nonisolated func unavailableReason(for model: ModelInfo) -> String {
        let status = frameworks.statuses().first { $0.framework == model.framework }
        if case .unavailable(let reason)? = status?.availability { return reason }
        return "no registered engine handles this model's format and category"
    }
}
