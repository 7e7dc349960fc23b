import Foundation
import Logging

/// An embedding model whose engine runs in a worker process (``EngineProcesses``), held by the
/// runtime's model cache as an engine in this process is; its vectors come back as raw Floats.
final class RemoteEmbeddingService: EmbeddingService {
    let dimensions: Int
    let contextLength: Int
    private let worker: EngineProcess

    private init(worker: EngineProcess, facts: WorkerModelFacts) {
        self.worker = worker
        dimensions = facts.dimensions
        contextLength = facts.contextLength
    }

    /// Starts a worker and loads `model` into it as an embedding model with `framework`'s engine.
    static func load(
        _ model: ModelInfo, framework: InferenceFramework, options: ModelLoadOptions, processes: EngineProcesses, logger: Logger
    ) async throws -> RemoteEmbeddingService {
        let worker = try EngineProcess(model: model, processes: processes, logger: logger)
        do {
            let facts = try await worker.load(model, as: .embedding, framework: framework, options: options, timeout: processes.loadTimeout)
            return RemoteEmbeddingService(worker: worker, facts: facts)
        } catch {
            await worker.stop(grace: .seconds(1))
            throw error
        }
    }

    /// Why the worker died, once it has: the model must be loaded again.
    var failure: SDKError? { worker.failure }

    /// The worker checks `cancellation` no more than the engine does; cancelling the calling task
    /// (as the runtime does) reaches it at once.
    func embed(_ texts: [String], options: EmbeddingOptions, cancellation: CancellationFlag) async throws -> EngineEmbeddings {
        try await worker.embed(texts, options: options)
    }

    func unload() async { await worker.stop() }
}
