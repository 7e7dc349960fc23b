import Foundation

extension RunAnywhereRuntime {
    /// What a downloaded model's main file (``ModelInfo/primaryFile``) says about itself, read by
    /// the extractor registered for the model's format; nil for a model not on this machine or in
    /// a format no extractor reads. A damaged file throws ``ErrorCode/invalidModelFormat``.
    public nonisolated func modelMetadata(of model: ModelInfo) throws -> ModelMetadata? {
        guard metadataExtractors.formats.contains(model.format), let file = model.primaryFile else { return nil }
        return try metadataExtractors.metadata(ofFileAt: file)
    }

    /// What the model file at `url` says about itself, read by the extractor that recognizes it;
    /// nil when none does.
    public nonisolated func modelMetadata(ofFileAt url: URL) throws -> ModelMetadata? {
        try metadataExtractors.metadata(ofFileAt: url)
    }
}
