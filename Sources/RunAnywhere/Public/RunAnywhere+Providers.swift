import Foundation

extension RunAnywhere {
    /// Plugs in a model provider (ahead of the others, replacing one of the same name).
    public static func registerModelProvider(_ provider: any ModelProvider) throws {
        try runtime().providers.register(provider)
    }

    /// The models a reference offers, e.g. each GGUF model of `hf.co/OWNER/REPO`.
    public static func searchModels(_ query: String) async throws -> [ProviderModel] {
        try await runtime().searchModels(query)
    }

    /// Registers the model a reference names (`hf.co/OWNER/REPO:QUANT`), or returns its entry when
    /// it is registered already; ``downloadModelWithProgress(_:)`` downloads it.
    @discardableResult
    public static func addModel(reference: String) async throws -> ModelInfo {
        try await runtime().addModel(reference: reference)
    }
}
