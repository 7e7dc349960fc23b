import Foundation

/// An image-generation model whose engine runs in a worker process (``EngineProcesses``); the
/// runtime draws on an engine thread, which waits for the worker's image and passes its steps on.
final class RemoteDiffusionService: DiffusionService, RemoteEngine {
    let worker: EngineProcess

    /// The engine of the model `worker` has loaded.
    init(worker: EngineProcess) { self.worker = worker }

    func workingMemory(width: Int, height: Int) -> Int64 {
        guard case .count(let bytes)? = try? worker.ask(.workingMemory(width: width, height: height)) else { return 0 }
        return Int64(bytes)
    }

    func check(_ options: DiffusionGenerationOptions) throws {
        _ = try worker.ask(.checkImage(options: options))
    }

    func generate(_ request: DiffusionRequest, cancellation: CancellationFlag, onStep: @escaping @Sendable (Int, Int) -> Void) throws
        -> DiffusionImage
    {
        let answer = try worker.callBlocking(
            { .draw(id: $0, prompt: request.prompt, options: request.options) }, cancellation: cancellation,
            onProgress: { if case .step(let done, let total) = $0 { onStep(done, total) } }
        )
        guard case .image(let png, let width, let height) = answer else { throw worker.wrongAnswer() }
        return DiffusionImage(png: png, width: width, height: height)
    }

    func unload() async { await worker.stop() }
}
