import Foundation
import Logging

/// What a model is loaded as: one kind of engine per modality the scheduler holds.
enum EngineKind: String, Codable, Sendable {
    case language, speechRecognition, voiceActivity, speechSynthesis, imageGeneration, embedding, reranking

    var description: String {
        switch self {
        case .language: "a language model"
        case .speechRecognition: "a speech-to-text model"
        case .voiceActivity: "a voice activity detector"
        case .speechSynthesis: "a voice"
        case .imageGeneration: "an image-generation model"
        case .embedding: "an embedding model"
        case .reranking: "a reranker"
        }
    }
}

/// A loaded model's engine, of whichever modality.
enum LoadedEngine: Sendable {
    case language(any LLMService)
    case speechRecognition(any STTService)
    case voiceActivity(any VADService)
    case speechSynthesis(any TTSService)
    case imageGeneration(any DiffusionService)
    case embedding(any EmbeddingService)
    case reranking(any RerankingService)

    /// The engine as a language model's service, when it is one; and so for each kind below.
    var language: (any LLMService)? { if case .language(let service) = self { service } else { nil } }
    var speechRecognition: (any STTService)? { if case .speechRecognition(let service) = self { service } else { nil } }
    var voiceActivity: (any VADService)? { if case .voiceActivity(let service) = self { service } else { nil } }
    var speechSynthesis: (any TTSService)? { if case .speechSynthesis(let service) = self { service } else { nil } }
    var imageGeneration: (any DiffusionService)? { if case .imageGeneration(let service) = self { service } else { nil } }
    var embedding: (any EmbeddingService)? { if case .embedding(let service) = self { service } else { nil } }
    var reranking: (any RerankingService)? { if case .reranking(let service) = self { service } else { nil } }

    var kind: EngineKind {
        switch self {
        case .language: .language
        case .speechRecognition: .speechRecognition
        case .voiceActivity: .voiceActivity
        case .speechSynthesis: .speechSynthesis
        case .imageGeneration: .imageGeneration
        case .embedding: .embedding
        case .reranking: .reranking
        }
    }

    /// Why the engine can serve no more, for one whose worker process died (``EngineProcesses``).
    var failure: SDKError? {
        let service: AnyObject =
            switch self {
            case .language(let service): service
            case .speechRecognition(let service): service
            case .voiceActivity(let service): service
            case .speechSynthesis(let service): service
            case .imageGeneration(let service): service
            case .embedding(let service): service
            case .reranking(let service): service
            }
        return (service as? any RemoteEngine)?.worker.failure
    }

    /// Frees the engine's memory; returns once it is freed.
    func unload() async {
        switch self {
        case .language(let service): await service.unload()
        case .speechRecognition(let service): await service.unload()
        case .voiceActivity(let service): await service.unload()
        case .speechSynthesis(let service): await service.unload()
        case .imageGeneration(let service): await service.unload()
        case .embedding(let service): await service.unload()
        case .reranking(let service): await service.unload()
        }
    }
}

extension FrameworkAdapter {
    /// Loads `model` as `kind` with this engine, in this process (an image-generation model
    /// with `diffusion`).
    func loadEngine(
        _ model: ModelInfo, as kind: EngineKind, options: ModelLoadOptions, diffusion: DiffusionConfiguration, logger: Logger
    ) async throws -> LoadedEngine {
        switch kind {
        case .language: .language(try await loadLanguageModel(model, options: options, logger: logger))
        case .speechRecognition: .speechRecognition(try await loadSpeechRecognitionModel(model, options: options, logger: logger))
        case .voiceActivity: .voiceActivity(try await loadVoiceActivityModel(model, options: options, logger: logger))
        case .speechSynthesis: .speechSynthesis(try await loadSpeechSynthesisModel(model, options: options, logger: logger))
        case .imageGeneration: .imageGeneration(try await loadDiffusionModel(model, configuration: diffusion, logger: logger))
        case .embedding: .embedding(try await loadEmbeddingModel(model, options: options, logger: logger))
        case .reranking: .reranking(try await loadRerankingModel(model, options: options, logger: logger))
        }
    }
}
