import Foundation

extension RunAnywhereRuntime {
    /// Whether `text` is a reference a registered model provider handles (`hf.co/OWNER/REPO:QUANT`),
    /// rather than a model id or a URL.
    package nonisolated func isModelReference(_ text: String) -> Bool {
        providers.provider(for: text) != nil
    }

    /// The models `query` offers at the provider that handles it: for `hf.co/OWNER/REPO`, each of
    /// the repository's GGUF models with the reference that registers it.
    public nonisolated func searchModels(_ query: String) async throws -> [ProviderModel] {
        try await provider(for: query).search(query)
    }

    /// The model `reference` names at its provider (files, size, download URL, sha256), placed in
    /// the models folder; nothing is registered or downloaded.
    public nonisolated func resolveModel(reference: String) async throws -> ModelInfo {
        try await provider(for: reference).resolve(reference, modelsDirectory: catalog.modelsDirectory)
    }

    /// Checks adding the model `reference` names (as `checkModelSource(_:category:framework:id:name:sha256:supportsThinking:)`
    /// checks a URL): a reference that cannot be resolved is a problem of the `url` field, a model
    /// registered already one of the `id` field, and a `category` its provider's models are not
    /// one of the `framework` field.
    package nonisolated func checkModelReference(_ reference: String, category: ModelCategory = .language) async -> ModelSourceCheck {
        let model: ModelInfo
        do {
            model = try await resolveModel(reference: reference)
        } catch {
            return ModelSourceCheck(problem: ModelSourceProblem(.url, error), detectedFormat: .unknown)
        }
        var problems: [ModelSourceProblem] = []
        if model.category != category {
            problems.append(
                ModelSourceProblem(.framework, .modelIncompatible, "\(reference) is \(model.category.aModel), not \(category.aModel)"))
        }
        if catalog.contains(id: model.id) {
            problems.append(ModelSourceProblem(.id, .modelAlreadyExists, "A model with id '\(model.id)' already exists"))
        }
        return ModelSourceCheck(
            detectedFormat: model.format, framework: model.framework, problems: problems, model: problems.isEmpty ? model : nil)
    }

    /// The model `reference` names, registered (not downloaded): the catalog's entry when its id
    /// is registered already (as ollama's pull does), else the model resolved at its provider
    /// and added. ``downloadModelWithProgress(_:)`` then downloads it with its sha256 checked.
    @discardableResult
    public nonisolated func addModel(reference: String) async throws -> ModelInfo {
        if let known = try? catalog.model(id: reference.trimmingCharacters(in: .whitespaces)) { return known }
        let model = try await resolveModel(reference: reference)
        if let known = try? catalog.model(id: model.id) { return known }
        try catalog.add(model)
        events.publish(.modelRegistered(modelId: model.id))
        return try catalog.model(id: model.id)
    }

    /// The provider that handles `reference`; ``ErrorCode/invalidInput`` naming the forms known.
    private nonisolated func provider(for reference: String) throws -> any ModelProvider {
        guard let provider = providers.provider(for: reference) else {
            let names = providers.all.map(\.name).joined(separator: ", ")
            throw SDKError(
                .invalidInput, "'\(reference)' is not a reference any model provider handles (\(names)); use e.g. hf.co/OWNER/REPO:QUANT")
        }
        return provider
    }
}
