import Foundation
import Logging

/// Runs each loaded model's engine (language and vision-language models, embedding models,
/// rerankers, speech-to-text, voice activity, voices, image generation) in a worker process of
/// its own instead of in this process (``RuntimeConfiguration/engineProcesses``), as ollama runs
/// a runner per model.
///
/// A fault in native engine code (a signal, an `abort()`, the OOM killer) then ends only its
/// worker: the requests that worker was serving fail with ``ErrorCode/engineCrashed``, naming the
/// model and the signal, and the next request for the model loads it again in a new worker.
/// Other models, and everything else the app does, go on. The model cache works as it does in
/// process (memory budget, keep-alive, least recently used first, loaded-model listing), and the
/// engine inside the worker batches as it does in process.
///
/// `runanywhere serve` runs models this way; apps keep engines in process unless they set it.
package struct EngineProcesses: Sendable {
    /// The worker program: it must run ``EngineWorker/serve(frameworks:logger:)`` (the CLI's
    /// hidden `runanywhere engine-worker` does). It is started as `executable arguments…
    /// --model <id>`, so that `ps` names the model each worker holds.
    package var executable: URL
    /// The arguments before `--model`.
    package var arguments: [String]
    /// How long a worker may take to start and load its model before it counts as hung and is killed.
    package var loadTimeout: Duration
    /// The engines whose models run in workers (those the worker program registers); models of
    /// other engines load in this process.
    package var frameworks: Set<InferenceFramework>

    /// Creates the setting (by default for the engines `runanywhere engine-worker` registers:
    /// llama.cpp, whisper.cpp, sherpa-onnx, eSpeak NG and stable-diffusion.cpp).
    package init(
        executable: URL, arguments: [String], loadTimeout: Duration = .seconds(600),
        frameworks: Set<InferenceFramework> = [.llamaCpp, .whisperCpp, .onnx, .espeakNG, .stableDiffusionCpp]
    ) {
        self.executable = executable
        self.arguments = arguments
        self.loadTimeout = loadTimeout
        self.frameworks = frameworks
    }
}

extension EngineProcesses {
    /// Starts a worker and loads `model` into it as `kind` (an image-generation model with
    /// `diffusion`) with `framework`'s engine; the engine the runtime holds stands for the worker's.
    func load(
        _ model: ModelInfo, as kind: EngineKind, framework: InferenceFramework, options: ModelLoadOptions,
        diffusion: DiffusionConfiguration?,
        logger: Logger
    ) async throws -> LoadedEngine {
        let worker = try EngineProcess(model: model, processes: self, logger: logger)
        do {
            let facts = try await worker.load(
                model, as: kind, framework: framework, options: options, diffusion: diffusion, timeout: loadTimeout)
            logger.debug(
                "Engine process loaded its model", metadata: ["model": "\(model.id)", "kind": "\(kind.rawValue)", "pid": "\(worker.pid)"])
            return switch kind {
            case .language: .language(RemoteLLMService(worker: worker, facts: facts, parallel: options.parallel))
            case .embedding: .embedding(RemoteEmbeddingService(worker: worker, facts: facts))
            case .reranking: .reranking(RemoteRerankingService(worker: worker, facts: facts))
            case .speechRecognition: .speechRecognition(RemoteSTTService(worker: worker))
            case .voiceActivity: .voiceActivity(RemoteVADService(worker: worker))
            case .speechSynthesis: .speechSynthesis(RemoteTTSService(worker: worker, facts: facts))
            case .imageGeneration: .imageGeneration(RemoteDiffusionService(worker: worker))
            }
        } catch {
            await worker.stop(grace: .seconds(1))
            throw error
        }
    }
}

/// An engine the runtime holds that stands for one in a worker process.
protocol RemoteEngine: AnyObject, Sendable {
    /// The worker; its ``EngineProcess/failure`` says why the engine can serve no more.
    var worker: EngineProcess { get }
}
