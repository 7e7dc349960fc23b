import Foundation

/// An embedding model whose engine runs in a worker process (``EngineProcesses``), held by the
/// runtime's model cache as an engine in this process is; its vectors come back as raw Floats.
final class RemoteEmbeddingService: EmbeddingService, RemoteEngine {
    let dimensions: Int
    let contextLength: Int
    let worker: EngineProcess

    /// The engine of the model `worker` has loaded, described by `facts`.
    init(worker: EngineProcess, facts: WorkerModelFacts) {
        self.worker = worker
        dimensions = facts.dimensions
        contextLength = facts.contextLength
    }

    /// Cancelling the calling task (as the runtime does) stops the worker's engine; the flag is
    /// the in-process engines' way to the same.
    func embed(_ texts: [String], options: EmbeddingOptions, cancellation: CancellationFlag) async throws -> EngineEmbeddings {
        let answer = try await worker.call { .embed(id: $0, texts: texts, options: options) }
        guard let embeddings = answer.engineEmbeddings else { throw worker.wrongAnswer() }
        return embeddings
    }

    func unload() async { await worker.stop() }
}
