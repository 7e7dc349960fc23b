import Foundation

extension RunAnywhere {
    /// The staging or production backend's state: the device's registration and the analytics
    /// waiting to be sent; nil in development, which has no backend. Makes no network call.
    public static func backendStatus() async throws -> BackendStatus? {
        try await initializedState().backend?.status()
    }

    /// Sends the analytics recorded so far now, registering the device first if it has not
    /// (an API call: it starts the backend's work). Throws why the backend could not take them
    /// (``ErrorCode/networkError`` when it cannot be reached, ``ErrorCode/unauthorized`` for a
    /// refused key, ``ErrorCode/invalidConfiguration`` for an answer that is not the API's); they
    /// stay queued and are retried.
    /// Does nothing in development.
    public static func flushAnalytics() async throws {
        try await initializedState().backend?.flush()
    }

    /// Shuts the SDK down before the app exits: every loaded model is unloaded (once its
    /// requests end), the analytics recorded so far are written to the outbox and, when any are
    /// queued, sent for at most `limit`; what is not sent goes with the next run. The SDK is then
    /// reset (``reset()``); initialize it again to use it.
    ///
    /// Engines are freed here, not when the process ends: by then a GPU runtime (CUDA's) may
    /// have been torn down by its own exit handler, and freeing a context on it aborts.
    public static func shutdown(sendingFor limit: Duration = .seconds(3)) async {
        await current?.runtime.unloadAllModels()
        await replaceState(with: nil)?.close(sendingFor: limit)
    }
}
