import CLlamaCpp
import Foundation
import Logging
import RunAnywhere

/// Runs GGUF language models, embedding models and rerankers on llama.cpp, opened at run time
/// from the engines cache that scripts/setup fills (or `$RUNANYWHERE_LLAMA_LIB`).
public struct LlamaCppAdapter: FrameworkAdapter {
    /// ``RunAnywhere/InferenceFramework/llamaCpp``.
    public let framework = InferenceFramework.llamaCpp
    /// Text generation, and image-to-text (vision-language models) where llama.cpp's
    /// multimodal library, libmtmd, is installed beside libllama.
    public var supportedModalities: Set<FrameworkModality> {
        let multimodal = EngineLibraryLocator.first(of: libraryCandidates)
        return FileManager.default.fileExists(atPath: MtmdLibrary.path(besides: multimodal)) ? [.textToText, .imageToText] : [.textToText]
    }
    private let libraryPath: String?
    private var libraryCandidates: [String]
    private let logger: Logger
    /// What the machine offers: threads, GPU drivers (which build to open), the devices to use.
    private var hardware: any HardwareDetector = SystemHardwareDetector()

    /// Creates the adapter. `libraryPath` overrides where libllama is looked for; llama.cpp's
    /// own log goes to `logger`.
    public init(
        libraryPath: String? = nil, logger: Logger = Logger(label: "runanywhere.llamacpp", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.libraryPath = libraryPath
        self.libraryCandidates = libraryPath.map { [$0] } ?? LlamaLibrary.candidatePaths()
        self.logger = logger
    }

    /// This adapter with `hardwareDetector`'s threads, GPU drivers and devices: the GPU build of
    /// llama.cpp is chosen from its drivers, and models' layers go to its devices.
    public func using(hardwareDetector: any HardwareDetector) -> any FrameworkAdapter {
        var adapter = self
        adapter.hardware = hardwareDetector
        adapter.libraryCandidates = libraryPath.map { [$0] } ?? LlamaLibrary.candidatePaths(drivers: hardwareDetector.gpuDrivers())
        return adapter
    }

    /// Available when libllama opens and has every function the SDK calls; the detail names the
    /// library and the compute backends its ggml has (CPU, and CUDA or Vulkan in a GPU build).
    public func availability() -> FrameworkAvailability {
        do {
            let library = try LlamaLibrary.load(candidates: libraryCandidates, logger: logger)
            return .available(detail: "\(library.path); backends: \(LlamaDevices.backendNames(library: library).joined(separator: ", "))")
        } catch {
            return .unavailable(reason: (error as? SDKError)?.message ?? "\(error)")
        }
    }

    /// The devices llama.cpp's ggml reports in this build (the CPU, and each GPU its CUDA or
    /// Vulkan backend finds), and the GPU backends it lacks with why, as the hardware detector
    /// passes them on (``RunAnywhere/HardwareDetector/accelerators(from:)``); none when libllama cannot be opened.
    public func accelerators() -> [Accelerator] {
        guard let library = try? LlamaLibrary.load(candidates: libraryCandidates, logger: logger) else { return [] }
        return Self.devices(library: library, hardware: hardware)
    }

    /// llama.cpp's devices through `hardware`.
    private static func devices(library: LlamaLibrary, hardware: any HardwareDetector) -> [Accelerator] {
        hardware.accelerators(from: LlamaDevices.accelerators(library: library, drivers: hardware.gpuDrivers(), variant: .installed()))
    }

    /// The file (and vision projector), plus room for the KV cache and compute buffers.
    public func estimateMemoryUsage(for model: ModelInfo) -> Int64 {
        let size = model.primaryFileSize
        return size + size / 5 + Self.projectorSize(model) + (64 << 20)
    }

    /// The vision projector's size, with room for its compute buffers; 0 without one.
    private static func projectorSize(_ model: ModelInfo) -> Int64 {
        guard let projector = model.projectorFile else { return 0 }
        let size = Int64((try? projector.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0)
        return size + size / 2 + (32 << 20)
    }

    /// The host's part of ``estimateMemorySplit(for:options:)``.
    public func estimateMemoryUsage(for model: ModelInfo, options: ModelLoadOptions) -> Int64 {
        estimateMemorySplit(for: model, options: options).host
    }

    /// The whole model — the file, the KV cache of every sequence at its context length (from
    /// the GGUF's attention shape, 16-bit keys and values) and compute buffers; without readable
    /// metadata, ``estimateMemoryUsage(for:)`` — split by the share of the layers `GPUOffload`
    /// puts on a GPU. The GGUF is read once for both.
    public func estimateMemorySplit(for model: ModelInfo, options: ModelLoadOptions) -> (host: Int64, device: Int64) {
        let metadata = model.primaryFile.flatMap { try? GGUFReader.read($0) }
        var total = estimateMemoryUsage(for: model)
        if let metadata, let perToken = metadata.kvBytesPerToken {
            let kv = Self.kvBytes(perToken: perToken, model: model, metadata: metadata, options: options)
            total = Int64(metadata.fileSize).saturatingAdd(kv).saturatingAdd(Self.projectorSize(model) + (64 << 20))
        }
        // A default draft model: its file and, as for a model without metadata, a fifth more.
        if let draft = options.speculation.draftModel, let size = try? FileManager.default.attributesOfItem(atPath: draft)[.size] as? Int64
        {
            total = total.saturatingAdd(size + size / 5)
        }
        // Layers on RPC workers take their memory, not this machine's (language models only use them).
        if !options.rpcWorkers.isEmpty, ![.embedding, .reranking].contains(model.category), let layerCount = metadata?.layerCount,
            layerCount > 0
        {
            let remote = min(options.gpuLayers ?? layerCount, layerCount)
            return (total / Int64(layerCount) * Int64(layerCount - remote), 0)
        }
        guard model.primaryFile != nil, let library = try? LlamaLibrary.load(candidates: libraryCandidates, logger: logger) else {
            return (total, 0)
        }
        let offload = Self.offload(model, metadata: metadata, options: options, library: library, hardware: hardware)
        guard offload.layers > 0, offload.layerCount > 0 else { return (total, 0) }
        // In whole numbers (a Double of a total near Int64.max would not convert back).
        let device = offload.layers >= offload.layerCount ? total : total / Int64(offload.layerCount) * Int64(offload.layers)
        return (total - device, device)
    }

    /// Bytes of the KV cache of every sequence at its context length, `perToken` each (the GGUF's
    /// numbers, so the product saturates instead of overflowing).
    private static func kvBytes(perToken: Int, model: ModelInfo, metadata: GGUFMetadata?, options: ModelLoadOptions) -> Int64 {
        let context = options.resolvedContextLength(for: model, trainedContext: metadata?.contextLength ?? 0)
        return Int64(perToken).saturatingMultiply(Int64(context)).saturatingMultiply(Int64(max(1, options.parallel)))
    }

    /// Loads a GGUF model and creates its context; a multimodal model with a vision projector
    /// (mmproj) in its folder also gets the projector, so its requests may carry images.
    public func loadLanguageModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any LLMService {
        try options.validate()  // LlamaContext passes them to C as 32-bit numbers
        guard let path = model.primaryFile?.path else {
            throw SDKError(.modelNotDownloaded, "Model '\(model.id)' has no local file")
        }
        let (candidates, engineLogger, hardware) = (libraryCandidates, self.logger, self.hardware)
        let threads = options.threads ?? hardware.profile(accelerators: []).defaultThreads
        // A vision-language model's projector is checked like the model before the engine reads it.
        let projector = model.category == .language ? nil : model.projectorFile.map(\.path)
        if let projector { _ = try GGUFReader.read(URL(fileURLWithPath: projector)) }
        let (llama, backend) = try await runBlocking { () throws -> (LlamaContext, String) in
            let library = try LlamaLibrary.load(candidates: candidates, logger: engineLogger)
            let metadata = try? GGUFReader.read(URL(fileURLWithPath: path))
            if !options.rpcWorkers.isEmpty {
                // Asked for by name: no fallback to the CPU when a worker fails.
                let workers = try LlamaRPC.workers(options.rpcWorkers, library: library)
                let layers = options.gpuLayers ?? Int(Int32.max)
                let placed = options.gpuLayers.flatMap { $0 < metadata?.layerCount ?? Int.max ? "\($0)" : nil } ?? "all"
                logger.info("\(model.id): \(placed) layers on RPC workers \(options.rpcWorkers.joined(separator: ", "))")
                let obstacle = LlamaBatchInvariance.obstacle(options: options, gpuLayers: layers, metadata: metadata)
                let llama = try LlamaContext(
                    library: library, path: path, projector: projector, options: options, modelInfo: model, threads: threads,
                    gpuLayers: layers, workers: workers, invarianceObstacle: obstacle)
                return (llama, "rpc")
            }
            return try Self.load(
                model, path: path, metadata: metadata, options: options, library: library, hardware: hardware, logger: logger
            ) { gpuLayers in
                let obstacle = LlamaBatchInvariance.obstacle(options: options, gpuLayers: gpuLayers, metadata: metadata)
                if options.reproducible, let obstacle {
                    logger.notice(
                        "\(model.id) cannot be batch-invariant (\(obstacle)): its greedy and seeded requests decode one at a time")
                }
                return try LlamaContext(
                    library: library, path: path, projector: projector, options: options, modelInfo: model, threads: threads,
                    gpuLayers: gpuLayers,
                    invarianceObstacle: obstacle
                )
            }
        }
        // What shapes a sequence's saved state besides the model file: the engine build, the
        // context's sizes, attention and its KV types (batch-invariant: Q8_0 keys), the device.
        let shape =
            "\(llama.library.path)|\(llama.contextLength)|\(llama.parallel)|\(llama.batchCapacity)|\(llama.promptChunk)|"
            + "\(options.flashAttention)|\(llama.batchInvariant)|\(backend)"
        let states = options.savedPrompts.map { PromptStateStore(settings: $0, modelPath: path, shape: shape, logger: logger) }
        let service = LlamaCppService(
            llama: llama, defaultThreads: threads, defaultSpeculation: options.speculation, queueLimit: options.queueLimit,
            backend: backend,
            states: states
        )
        if let draft = options.speculation.draftModel {
            do {
                try await runBlocking { try service.loadDraft(draft) }
            } catch {
                await service.unload()
                throw error
            }
        }
        return service
    }

    /// Loads a GGUF text-embedding model (a BERT-style encoder, or a decoder embedding model)
    /// with a context for embedding, pooled as its GGUF says (`embeddingPooling(_:model:)`).
    public func loadEmbeddingModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any EmbeddingService {
        try await loadPooled(model, options: options, logger: logger, pooling: Self.embeddingPooling) {
            try LlamaEmbeddingService(pooled: $0)
        }
    }

    /// Loads a GGUF reranker (a cross-encoder whose GGUF pools by rank and has the classifier
    /// head, `rerankPooling(_:model:)`) with a context for scoring query-document pairs.
    public func loadRerankingModel(_ model: ModelInfo, options: ModelLoadOptions, logger: Logger) async throws -> any RerankingService {
        try await loadPooled(model, options: options, logger: logger, pooling: Self.rerankPooling) { try LlamaRerankingService(pooled: $0) }
    }

    /// Loads `model` with a context for pooled outputs, pooled as `pooling` reads its GGUF, and
    /// makes the service over it with `make`.
    private func loadPooled<Service: Sendable>(
        _ model: ModelInfo, options: ModelLoadOptions, logger: Logger, pooling: (GGUFMetadata, ModelInfo) throws -> llama_pooling_type,
        make: @escaping @Sendable (LlamaPooledContext) throws -> Service
    ) async throws -> Service {
        try options.validate()  // LlamaPooledContext passes them to C as 32-bit numbers
        guard let path = model.primaryFile?.path else {
            throw SDKError(.modelNotDownloaded, "Model '\(model.id)' has no local file")
        }
        let metadata = try GGUFReader.read(URL(fileURLWithPath: path))
        let pooling = try pooling(metadata, model)
        let (candidates, engineLogger, hardware) = (libraryCandidates, self.logger, self.hardware)
        let threads = options.threads ?? hardware.profile(accelerators: []).defaultThreads
        return try await runBlocking {
            let library = try LlamaLibrary.load(candidates: candidates, logger: engineLogger)
            let (llama, _) = try Self.load(
                model, path: path, metadata: metadata, options: options, library: library, hardware: hardware, logger: logger
            ) { gpuLayers in
                try LlamaPooledContext.context(
                    library: library, path: path, model: model, options: options, pooling: pooling, threads: threads, gpuLayers: gpuLayers
                )
            }
            return try make(LlamaPooledContext(llama: llama, defaultThreads: threads))
        }
    }

    /// How an embedding model's vectors are pooled: as its GGUF says (`{arch}.pooling_type`:
    /// mean, CLS or last token). A GGUF that names no pooling (a decoder language model added as
    /// an embedding model) is mean-pooled; a reranker's rank pooling is refused.
    static func embeddingPooling(_ metadata: GGUFMetadata, model: ModelInfo) throws -> llama_pooling_type {
        let value = metadata.architecture.flatMap { metadata.values["\($0).pooling_type"]?.intValue }
        switch value.map({ llama_pooling_type(rawValue: Int32(clamping: $0)) }) {
        case nil, LLAMA_POOLING_TYPE_NONE?: return LLAMA_POOLING_TYPE_MEAN
        case let pooling? where [LLAMA_POOLING_TYPE_MEAN, LLAMA_POOLING_TYPE_CLS, LLAMA_POOLING_TYPE_LAST].contains(pooling): return pooling
        case LLAMA_POOLING_TYPE_RANK?:
            throw SDKError(.modelIncompatible, "Model '\(model.id)' is a reranker (its GGUF pools by rank), not an embedding model")
        default:
            throw SDKError(.invalidModelFormat, "Model '\(model.id)' names pooling type \(value ?? 0), which llama.cpp does not know")
        }
    }

    /// A reranker's pooling: rank, as its GGUF must say (`{arch}.pooling_type` 4), with the
    /// classifier head (`cls` or `cls.output` tensors) that turns the pooled state into a score.
    /// An embedding model, or a GGUF that names no pooling, is ``RunAnywhere/ErrorCode/modelIncompatible``.
    static func rerankPooling(_ metadata: GGUFMetadata, model: ModelInfo) throws -> llama_pooling_type {
        let value = metadata.architecture.flatMap { metadata.values["\($0).pooling_type"]?.intValue }
        guard value == Int(LLAMA_POOLING_TYPE_RANK.rawValue) else {
            let pooling = value.map { "pools by \(Self.poolingNames[$0] ?? "type \($0)") (an embedding model)" } ?? "names no pooling"
            throw SDKError(
                .modelIncompatible, "Model '\(model.id)' is not a reranker: its GGUF \(pooling), where a reranker's pools by rank")
        }
        guard metadata.tensors.contains(where: { $0.name == "cls.weight" || $0.name == "cls.output.weight" }) else {
            throw SDKError(
                .invalidModelFormat,
                "Model '\(model.id)' pools by rank but has no classifier head (cls.weight or cls.output.weight) to score with")
        }
        return LLAMA_POOLING_TYPE_RANK
    }

    /// llama.cpp's names of its pooling types, by `pooling_type` value.
    private static let poolingNames = [0: "none", 1: "mean", 2: "CLS", 3: "last token", 4: "rank"]

    /// Loads `model` (the file at `path`, whose GGUF says `metadata`) through `make` with the layers
    /// ``offload(_:metadata:options:library:hardware:)`` puts on a GPU, or on the CPU when none
    /// takes them or loading there fails; returns the context and the backend it runs on (`cpu`,
    /// `cuda`, `vulkan`).
    private static func load(
        _ model: ModelInfo, path: String, metadata: GGUFMetadata?, options: ModelLoadOptions, library: LlamaLibrary,
        hardware: any HardwareDetector, logger: Logger, make: (_ gpuLayers: Int) throws -> LlamaContext
    ) throws -> (LlamaContext, String) {
        let offload = offload(model, metadata: metadata, options: options, library: library, hardware: hardware)
        guard offload.layers > 0, let device = offload.device else {
            // Asked-for layers that no GPU can take are worth a warning; the CPU by default is not.
            let level: Logger.Level = (options.gpuLayers ?? 0) > 0 ? .warning : .debug
            logger.log(level: level, "\(model.id) runs on the CPU: \(offload.reason)")
            return (try make(0), "cpu")
        }
        do {
            logger.info("\(model.id): \(offload.reason) (\(device.backend))")
            // More layers than the model has puts the output layer on the GPU too (n_gpu_layers
            // is a C int: a layer count from the file near Int.max is capped, not overflowed).
            let layers = offload.layers >= offload.layerCount ? min(offload.layers, Int(Int32.max) - 1) + 1 : offload.layers
            return (try make(layers), device.backend)
        } catch {
            logger.warning("\(model.id) could not be loaded on \(device.name) (\(error)); loading it on the CPU")
            return (try make(0), "cpu")
        }
    }

    /// The layers of `model` to put on a GPU, from llama.cpp's devices as `hardware` passes them
    /// on, the GGUF's layer count and the memory its weights and KV cache take (`GPUOffload`).
    private static func offload(
        _ model: ModelInfo, metadata: GGUFMetadata?, options: ModelLoadOptions, library: LlamaLibrary, hardware: any HardwareDetector
    ) -> (layers: Int, layerCount: Int, device: Accelerator?, reason: String) {
        let accelerators = devices(library: library, hardware: hardware)
        let layerCount = metadata?.layerCount ?? 0
        let kv = kvBytes(perToken: metadata?.kvBytesPerToken ?? 0, model: model, metadata: metadata, options: options)
        let plan = GPUOffload.plan(
            requested: options.gpuLayers, layerCount: layerCount, modelBytes: Int64(metadata?.fileSize ?? 0), contextBytes: kv,
            accelerators: accelerators
        )
        return (plan.layers, layerCount, plan.device, plan.reason)
    }
}
