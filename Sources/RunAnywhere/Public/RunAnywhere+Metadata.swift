import Foundation

extension RunAnywhere {
    /// Adds a reader of model files' metadata, for a format the SDK does not read or to replace
    /// its reader of one; ``RunAnywhereRuntime/modelMetadata(of:)`` and `runanywhere models info` use it.
    public static func registerMetadataExtractor(_ extractor: any ModelMetadataExtractor) throws {
        try runtime().metadataExtractors.register(extractor)
    }
}
