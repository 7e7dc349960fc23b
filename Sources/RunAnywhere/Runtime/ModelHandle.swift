import Foundation
import Synchronization

/// A model an app holds loaded, of any modality (mlx-swift-lm's `ModelContainer`, ollama's
/// runner reference): while held it stays in the runtime's model cache, counted in the memory
/// budget, never evicted and with no keep-alive running; calls through it use it directly.
/// ``release()`` gives it back (then its keep-alive decides when it unloads); a handle dropped
/// without it is released too.
public final class ModelHandle: Sendable {
    /// The model held.
    public let model: ModelInfo
    /// The options it was loaded with.
    public let loadOptions: ModelLoadOptions
    private let runtime: RunAnywhereRuntime
    private let lease: ModelLease<LoadedEngine>
    private let released = Mutex(false)

    init(runtime: RunAnywhereRuntime, lease: ModelLease<LoadedEngine>, loadOptions: ModelLoadOptions) {
        self.runtime = runtime
        self.lease = lease
        self.model = lease.info
        self.loadOptions = loadOptions
    }

    deinit {
        guard released.withLock({ $0 }) == false else { return }
        let (runtime, lease) = (runtime, lease)
        Task { await runtime.release(lease) }
    }

    /// Gives the model back to the runtime; calls through the handle then fail.
    public func release() async {
        guard
            released.withLock({ released in
                defer { released = true }
                return !released
            })
        else { return }
        await runtime.release(lease)
    }

    /// Starts generating the next assistant message (`prompt`, after `context`) with the held
    /// language or vision-language model: its events, ending with `.completed`.
    public func generateEvents(_ prompt: String, images: [VLMImage] = [], context: Context? = nil, options: LLMGenerationOptions? = nil)
        async throws -> GenerationEvents
    {
        try check(.language)
        return try await runtime.generateEvents(
            prompt, images: images, context: context, options: options, model: model.id, loadOptions: loadOptions)
    }

    /// Generates the next assistant message with the held model and returns it when complete.
    public func generate(_ prompt: String, context: Context? = nil, options: LLMGenerationOptions? = nil) async throws
        -> LLMGenerationResult
    {
        try await generateEvents(prompt, context: context, options: options).result()
    }

    /// Transcribes `audio` with the held speech-to-text model.
    public func transcribe(_ audio: AudioSamples, options: STTOptions = STTOptions()) async throws -> STTOutput {
        try check(.speechRecognition)
        return try await runtime.transcribe(audio, model: model.id, options: options, loadOptions: loadOptions)
    }

    /// Generates an image of `prompt` with the held image-generation model, streaming its
    /// progress as ``RunAnywhere/generateImageStream(prompt:options:)`` does.
    public func generateImageStream(prompt: String, options: DiffusionGenerationOptions? = nil) async throws -> AsyncThrowingStream<
        DiffusionProgress, any Error
    > {
        try check(.imageGeneration)
        return try await runtime.generateImageStream(
            prompt: prompt, options: options, model: model, configuration: Self.diffusionConfiguration(model, loadOptions))
    }

    /// How ``RunAnywhereRuntime/hold(_:options:)`` loads an image-generation model: its defaults, with the threads of `options`.
    static func diffusionConfiguration(_ model: ModelInfo, _ options: ModelLoadOptions) -> DiffusionConfiguration {
        DiffusionConfiguration(modelId: model.id, threads: options.threads)
    }

    /// Embeds `texts` with the held embedding model: one vector per text, in order.
    public func embed(_ texts: [String], options: EmbeddingOptions = EmbeddingOptions()) async throws -> EmbeddingResult {
        try check(.embedding)
        return try await runtime.embed(texts, model: model.id, options: options, loadOptions: loadOptions)
    }

    /// Ranks `documents` against `query` with the held reranker.
    public func rerank(query: String, documents: [String], options: RerankOptions = RerankOptions()) async throws -> RerankResult {
        try check(.reranking)
        return try await runtime.rerank(query: query, documents: documents, model: model.id, options: options, loadOptions: loadOptions)
    }

    /// Speaks `text` with the held voice.
    public func synthesize(_ text: String, options: TTSOptions = TTSOptions()) async throws -> TTSOutput {
        try check(.speechSynthesis)
        return try await runtime.synthesize(text, voiceModel: model.id, options: options, loadOptions: loadOptions)
    }

    private func check(_ kind: EngineKind) throws {
        guard !released.withLock({ $0 }) else { throw SDKError(.notInitialized, "The handle to model '\(model.id)' was released") }
        guard lease.engine.kind == kind else {
            throw SDKError(.modelIncompatible, "Model '\(model.id)' is \(lease.engine.kind.description), not \(kind.description)")
        }
    }
}

extension RunAnywhereRuntime {
    /// Loads the model `id` (of any modality: language, vision-language, speech-to-text, voice
    /// activity, voice, image generation, embedding, reranker) into the model cache if needed and holds it
    /// for the caller until the handle is released.
    public func hold(_ id: String, options: ModelLoadOptions = ModelLoadOptions()) async throws -> ModelHandle {
        let model = try catalog.model(id: id)
        let kind: EngineKind =
            switch model.category {
            case .loraAdapter: throw LoRAAdapter.notLoadable(model)
            case .speechRecognition: .speechRecognition
            case .speechSynthesis: .speechSynthesis
            case .audio: .voiceActivity
            case .language, .multimodal, .vision: .language
            case .imageGeneration: .imageGeneration
            case .embedding: .embedding
            case .reranking: .reranking
            }
        let diffusion = kind == .imageGeneration ? ModelHandle.diffusionConfiguration(model, options) : nil
        let lease = try await acquire(model, as: kind, options: options, keepAlive: nil, diffusion: diffusion)
        return ModelHandle(runtime: self, lease: lease, loadOptions: options)
    }
}
