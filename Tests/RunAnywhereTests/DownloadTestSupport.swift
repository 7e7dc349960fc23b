import Foundation
import RunAnywhere

/// A runtime whose models go to `folder/models` and whose app data goes to `folder`.
func runtime(_ folder: URL) -> RunAnywhereRuntime {
    RunAnywhereRuntime(configuration: RuntimeConfiguration(modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder))
}

/// Every progress update of a download, and the error it ended with (nil when it completed).
func collect(_ stream: AsyncThrowingStream<DownloadProgress, any Error>) async -> ([DownloadProgress], (any Error)?) {
    var updates: [DownloadProgress] = []
    do {
        for try await update in stream { updates.append(update) }
        return (updates, nil)
    } catch {
        return (updates, error)
    }
}

/// Downloads model `id` to its end; the error it failed with, whether starting or during the
/// transfer, or nil when it completed.
func download(_ rt: RunAnywhereRuntime, _ id: String) async -> (any Error)? {
    do {
        return await collect(try rt.downloadModelWithProgress(id)).1
    } catch {
        return error
    }
}
