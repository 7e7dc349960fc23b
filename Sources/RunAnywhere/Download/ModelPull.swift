import Foundation

/// A download of a model named by its id or by a provider's reference (`hf.co/OWNER/REPO:QUANT`),
/// as a server's pull route runs it: ``RunAnywhereRuntime/pull(_:)`` checks the name at once (an
/// unknown id throws there, before any answer is sent), and ``start()`` registers a reference not
/// registered yet, then downloads, so that the provider's errors come from where the progress does.
package struct ModelPull: Sendable {
    /// The name as it was asked for.
    package let requested: String
    let runtime: RunAnywhereRuntime
    /// The download of an id registered already, started by ``RunAnywhereRuntime/pull(_:)``.
    let started: AsyncThrowingStream<DownloadProgress, any Error>?

    /// Registers the reference when it needs to be, then downloads: the model's id and the
    /// download's progress (``RunAnywhereRuntime/downloadModelWithProgress(_:)``).
    package func start() async throws -> (modelId: String, progress: AsyncThrowingStream<DownloadProgress, any Error>) {
        if let started { return (requested, started) }
        let id = try await runtime.addModel(reference: requested).id
        return (id, try runtime.downloadModelWithProgress(id))
    }
}

extension RunAnywhereRuntime {
    /// A pull of `name`, a model id or a provider's reference (`ModelPull`): a registered id
    /// starts downloading now, and one that is neither registered nor a reference throws
    /// ``ErrorCode/modelNotFound`` here.
    package nonisolated func pull(_ name: String) throws -> ModelPull {
        let register = (try? model(id: name)) == nil && isModelReference(name)
        return ModelPull(requested: name, runtime: self, started: register ? nil : try downloadModelWithProgress(name))
    }
}
