import Foundation

/// A model that the facade's single-model calls use until it is replaced or unloaded (the spec's
/// `loadModel` then `generate`, `loadSTTModel` then `transcribe`, …): one per role, held in the
/// model cache like every model, and kept alive there.
struct CurrentModel: Sendable {
    /// What the model is current for.
    enum Role: Hashable, Sendable {
        case language, vision, speechRecognition, speechSynthesis, imageGeneration
    }

    let info: ModelInfo
    /// The options the model cache holds it under; an image-generation model, which takes its
    /// settings from `diffusion`, is held under the default ones.
    let options: ModelLoadOptions
    /// How an image-generation model was loaded; nil for the other roles.
    var diffusion: DiffusionConfiguration? = nil
}

extension RunAnywhereRuntime {
    /// Forgets the current model of `role` and unloads it (once no request uses it), unless it
    /// is `keeping` or another role's current model: a vision-language model may also be the
    /// current language model.
    func dropCurrent(_ role: CurrentModel.Role, keeping: String? = nil) async {
        guard let id = current[role]?.info.id, id != keeping else { return }
        current[role] = nil
        if !isCurrent(id) { await unloadModel(id: id) }
    }

    /// Whether `id` is the current model of any role.
    func isCurrent(_ id: String) -> Bool { current.values.contains { $0.info.id == id } }
}
