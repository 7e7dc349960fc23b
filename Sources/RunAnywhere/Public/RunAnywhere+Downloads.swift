import Foundation

extension RunAnywhere {
    /// Downloads a model, streaming its progress (bytes, speed, ETA, state).
    public static func downloadModelWithProgress(_ modelId: String) async throws -> AsyncThrowingStream<DownloadProgress, any Error> {
        try runtime().downloadModelWithProgress(modelId)
    }

    /// Whether `framework` does `modality`.
    public static func frameworkSupports(_ framework: InferenceFramework, modality: FrameworkModality) throws -> Bool {
        try runtime().frameworks.frameworkSupports(framework, modality: modality)
    }
}
