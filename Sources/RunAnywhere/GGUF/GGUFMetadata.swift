import Foundation

/// What a GGUF file says about itself, read without loading its weights.
package struct GGUFMetadata: Sendable, Equatable {
    /// GGUF format version (2 or 3).
    package let version: Int
    /// Number of tensors.
    package let tensorCount: Int
    /// Every metadata key and value; long arrays keep only their first elements.
    package let values: [String: GGUFValue]
    /// Total number of weights, summed over all tensors.
    package let parameterCount: Int64
    /// Bytes the file must have to hold all its tensor data.
    package let expectedFileSize: UInt64
    /// The file's actual size in bytes.
    package let fileSize: UInt64
    /// Whether it holds a diffusion model's denoiser under the checkpoint names stable-diffusion.cpp
    /// reads (`model.diffusion_model.…`): an image-generation model, not a language model.
    package internal(set) var hasDiffusionModelTensors = false
    /// Whether the vocabulary has fill-in-the-middle's prefix, suffix and middle tokens, named in
    /// the metadata or found by their text as llama.cpp finds them: a code model that fills a gap.
    package internal(set) var fillsInTheMiddle = false
    /// Weights by ggml tensor type (`Q4_1`, `F32`; `type <id>` for one this reader has no name for).
    package internal(set) var tensorTypes: [String: Int64] = [:]
    /// The text of the vocabulary's beginning-of-text token (`tokenizer.ggml.bos_token_id`), if
    /// the file names one.
    package internal(set) var bosToken: String?
    /// The text of the vocabulary's end-of-text token (`tokenizer.ggml.eos_token_id`), if the
    /// file names one.
    package internal(set) var eosToken: String?
    /// The tensor table, in the file's order.
    package internal(set) var tensors: [GGUFTensorInfo] = []
    /// Where the tensor data section starts in the file (the tensors' offsets count from there).
    package internal(set) var dataOffset: UInt64 = 0

    /// `general.architecture`, e.g. "llama".
    package var architecture: String? { values["general.architecture"]?.stringValue }
    /// `general.name`.
    package var name: String? { values["general.name"]?.stringValue }
    /// `general.license`.
    package var license: String? { values["general.license"]?.stringValue }
    /// `general.file_type`, llama.cpp's `llama_ftype`.
    package var fileType: Int? { values["general.file_type"]?.intValue }
    /// The quantization name, e.g. "Q4_K_M", from `general.file_type`.
    package var quantization: String? { fileType.flatMap(GGMLType.fileTypeName) }
    /// The number of repeating layers (transformer blocks), `<arch>.block_count`.
    package var layerCount: Int? { architecture.flatMap { values["\($0).block_count"]?.intValue } }
    /// The context length the model was trained with, `<arch>.context_length`.
    package var contextLength: Int? { architecture.flatMap { values["\($0).context_length"]?.intValue } }
    /// The length of one attention head's keys: `<arch>.attention.key_length`, else
    /// `embedding_length / head_count`; nil when the metadata says neither.
    package var keyLength: Int? {
        guard let arch = architecture else { return nil }
        if let length = values["\(arch).attention.key_length"]?.intValue { return length }
        guard let embedding = values["\(arch).embedding_length"]?.intValue,
            let heads = values["\(arch).attention.head_count"]?.intValue, heads > 0
        else { return nil }
        return embedding / heads
    }
    /// Bytes of keys and values one token takes in the KV cache at 16 bits, from the layer
    /// count and attention shape (`<arch>.block_count`, `.attention.head_count_kv`,
    /// `.attention.key_length` / `.value_length`, else `embedding_length / head_count`); nil
    /// when the metadata does not say, or says something negative or too large to multiply out.
    package var kvBytesPerToken: Int? {
        guard let arch = architecture, let layers = values["\(arch).block_count"]?.intValue,
            let embedding = values["\(arch).embedding_length"]?.intValue,
            let heads = values["\(arch).attention.head_count"]?.intValue, heads > 0
        else { return nil }
        let kvHeads = values["\(arch).attention.head_count_kv"]?.intValue ?? heads
        let keyLength = self.keyLength ?? embedding / heads
        let valueLength = values["\(arch).attention.value_length"]?.intValue ?? embedding / heads
        // The file's numbers are anyone's: summed and multiplied with overflow checks, never trapping.
        guard [layers, kvHeads, keyLength, valueLength].allSatisfy({ $0 >= 0 }) else { return nil }
        var bytes = keyLength.addingReportingOverflow(valueLength)
        for factor in [layers, kvHeads, 2] where !bytes.overflow { bytes = bytes.partialValue.multipliedReportingOverflow(by: factor) }
        return bytes.overflow ? nil : bytes.partialValue
    }
    /// The Jinja chat template, `tokenizer.chat_template`.
    package var chatTemplate: String? { values["tokenizer.chat_template"]?.stringValue }
    /// Number of tokens in the vocabulary.
    package var vocabularySize: Int? {
        if case .array(let count, _) = values["tokenizer.ggml.tokens"] { return count }
        return nil
    }

    /// The parameter count for people: "135M", "1.2B".
    package var parameterCountLabel: String {
        let p = Double(parameterCount)
        if p >= 1e9 { return String(format: "%.1fB", p / 1e9) }
        if p >= 1e6 { return String(format: "%.0fM", p / 1e6) }
        return String(format: "%.0fK", p / 1e3)
    }
}

extension GGUFMetadata: Encodable {
    private enum CodingKeys: String, CodingKey {
        case version, tensorCount, architecture, name, parameterCount, parameterCountLabel, quantization
        case fileType, contextLength, vocabularySize, license, chatTemplate, fileSize, expectedFileSize
    }

    /// Encodes the summary (not every raw value: the vocabulary alone can hold 150 000 strings).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(tensorCount, forKey: .tensorCount)
        try container.encodeIfPresent(architecture, forKey: .architecture)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(parameterCount, forKey: .parameterCount)
        try container.encode(parameterCountLabel, forKey: .parameterCountLabel)
        try container.encodeIfPresent(quantization, forKey: .quantization)
        try container.encodeIfPresent(fileType, forKey: .fileType)
        try container.encodeIfPresent(contextLength, forKey: .contextLength)
        try container.encodeIfPresent(vocabularySize, forKey: .vocabularySize)
        try container.encodeIfPresent(license, forKey: .license)
        try container.encodeIfPresent(chatTemplate, forKey: .chatTemplate)
        try container.encode(fileSize, forKey: .fileSize)
        try container.encode(expectedFileSize, forKey: .expectedFileSize)
    }
}
