import Foundation

/// GGUF's metadata (llama.cpp and stable-diffusion.cpp models) through RunAnywhere's GGUF reader, which
/// checks the whole header and that the file holds all its tensors' data.
package struct GGUFMetadataExtractor: ModelMetadataExtractor {
    /// ``ModelFormat/gguf``.
    package let format = ModelFormat.gguf

    /// Creates the extractor.
    package init() {}

    /// Reads the file with RunAnywhere's GGUF reader: architecture, name, quantization, trained
    /// context, tensors by type, and every key with its value as text.
    package func extract(from url: URL) throws -> ModelMetadata {
        let gguf = try GGUFReader.read(url)
        return ModelMetadata(
            format: .gguf, formatVersion: gguf.version, architecture: gguf.architecture, name: gguf.name,
            parameterCount: gguf.parameterCount,
            quantization: gguf.quantization, tensorTypes: gguf.tensorTypes, contextLength: gguf.contextLength,
            tensorCount: gguf.tensorCount,
            fileSize: gguf.fileSize, values: gguf.values.mapValues(\.description)
        )
    }
}
