import Foundation

/// A reranker whose engine runs in a worker process (``EngineProcesses``), held by the runtime's
/// model cache as an engine in this process is.
final class RemoteRerankingService: RerankingService, RemoteEngine {
    let contextLength: Int
    let worker: EngineProcess

    /// The engine of the model `worker` has loaded, described by `facts`.
    init(worker: EngineProcess, facts: WorkerModelFacts) {
        self.worker = worker
        contextLength = facts.contextLength
    }

    /// Cancelling the calling task (as the runtime does) stops the worker's engine; the flag is
    /// the in-process engines' way to the same.
    func rerank(query: String, documents: [String], options: RerankOptions, cancellation: CancellationFlag) async throws -> EngineRanking {
        let answer = try await worker.call { .rerank(id: $0, query: query, documents: documents, options: options) }
        guard let ranking = answer.engineRanking else { throw worker.wrongAnswer() }
        return ranking
    }

    func unload() async { await worker.stop() }
}
