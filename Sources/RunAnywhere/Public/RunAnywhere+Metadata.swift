import Foundation

extension RunAnywhere {
    /// Adds a reader of model files' metadata, for a format the SDK does not read or to replace
    /// its reader of one; ``modelMetadata(of:)`` and `runanywhere models info` use it.
    public static func registerMetadataExtractor(_ extractor: any ModelMetadataExtractor) throws {
        try runtime().metadataExtractors.register(extractor)
    }

    /// What the downloaded model `modelId`'s file says about itself (format, architecture,
    /// parameters, element types, inputs and outputs, key/value metadata); nil when it is not on
    /// this machine or no extractor reads its format.
    public static func modelMetadata(of modelId: String) throws -> ModelMetadata? {
        let runtime = try runtime()
        return try runtime.modelMetadata(of: runtime.model(id: modelId))
    }
}
