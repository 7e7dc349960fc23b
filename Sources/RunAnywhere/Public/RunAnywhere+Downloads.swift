import Foundation

extension RunAnywhere {
    /// Downloads a model, streaming its progress (bytes, speed, ETA, state).
    public static func downloadModelWithProgress(_ modelId: String) async throws -> AsyncThrowingStream<DownloadProgress, any Error> {
        try runtime().downloadModelWithProgress(modelId)
    }

    /// Adds a model from a URL after checking that a framework runs its modality and format.
    @discardableResult
    public static func addModel(
        from url: URL, category: ModelCategory, framework: InferenceFramework? = nil, id: String? = nil, name: String? = nil,
        sha256: String? = nil, supportsThinking: Bool = false
    ) throws -> ModelInfo {
        try runtime().addModel(
            from: url, category: category, framework: framework, id: id, name: name, sha256: sha256, supportsThinking: supportsThinking)
    }

    /// Disk use of the models folder.
    public static func getStorageInfo() throws -> StorageInfo {
        try runtime().storageInfo()
    }

    /// Deletes a model's files (and a user-added model's entry).
    public static func deleteStoredModel(_ modelId: String) async throws {
        try await runtime().deleteStoredModel(modelId)
    }

    /// Whether `framework` does `modality`.
    public static func frameworkSupports(_ framework: InferenceFramework, modality: FrameworkModality) throws -> Bool {
        try runtime().frameworks.frameworkSupports(framework, modality: modality)
    }

    /// The SDK's event stream (model loads, downloads' progress, registrations).
    public static func events() throws -> AsyncStream<SDKEvent> {
        try runtime().events.subscribe()
    }
}
