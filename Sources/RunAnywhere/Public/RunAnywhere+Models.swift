import Foundation

extension RunAnywhere {
    /// Every known model: built-in first, then the user's.
    public static func availableModels() async throws -> [ModelInfo] {
        try runtime().availableModels()
    }

    /// Loads a language model by id, replacing the loaded one.
    public static func loadModel(_ modelId: String, options: ModelLoadOptions = ModelLoadOptions()) async throws {
        try await runtime().loadModel(modelId, options: options)
    }

    /// Unloads the language model.
    public static func unloadModel() async throws {
        try await runtime().unloadModel()
    }

    /// Whether a language model is loaded.
    public static var isModelLoaded: Bool {
        get async { (try? await runtime().isModelLoaded) ?? false }
    }

    /// The loaded language model.
    public static var currentLLMModel: ModelInfo? {
        get async { try? await runtime().currentModel }
    }

    /// The id of the loaded language model.
    public static func getCurrentModelId() async -> String? {
        await currentLLMModel?.id
    }
}
