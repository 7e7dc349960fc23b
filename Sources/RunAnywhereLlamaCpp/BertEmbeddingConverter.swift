import Foundation
import RunAnywhere

/// Converts a Hugging Face BERT embedding model folder, as sentence-transformers saves one
/// (`config.json`, `model.safetensors`, `vocab.txt`, the tokenizer's JSON files, `modules.json`
/// with its pooling module), into the GGUF file llama.cpp's BERT runs: the `bert` architecture
/// with its hyperparameters and pooling, the WordPiece vocabulary as llama.cpp's `bert` tokenizer
/// reads it, and the tensors under llama.cpp's names, matrices as BF16 and the rest F32 (as
/// llama.cpp's own converter writes a bf16 file: BF16 keeps F32's range, and CPUs with BF16
/// instructions multiply it faster than F16). The same folder always gives the same bytes.
package enum BertEmbeddingConverter {
    /// What a conversion produced.
    package struct Report: Sendable, Equatable {
        /// Tensors written.
        package let tensorCount: Int
        /// Tokens in the vocabulary.
        package let vocabularySize: Int
        /// Dimensions of an embedding.
        package let embeddingLength: Int
        /// The pooling llama.cpp applies (`mean`, `cls`, `last`), nil when the folder has no pooling module.
        package let pooling: String?
        /// Size of the GGUF file in bytes.
        package let bytes: Int64
    }

    /// Converts `directory` into `output`, written atomically (a failed conversion leaves no file,
    /// or the previous one); `name` becomes `general.name`. A missing file of the folder is
    /// ``RunAnywhere/ErrorCode/fileNotFound``, a damaged or foreign one ``RunAnywhere/ErrorCode/invalidModelFormat``.
    @discardableResult
    package static func convert(sourceDirectory directory: URL, output: URL, name: String? = nil) throws -> Report {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SDKError.fileManagement(.fileNotFound, "No such model folder: \(directory.path)")
        }
        let config = try BertSourceConfiguration(directory: directory)
        let vocabulary = try BertVocabulary(
            contentsOf: directory.appendingPathComponent("vocab.txt"), size: config.vocabularySize, special: config.specialTokens
        )
        let tensors = try convertTensors(SafetensorsFile(contentsOf: directory.appendingPathComponent("model.safetensors")), config: config)
        let writer = GGUFWriter(metadata: metadata(config, vocabulary, name: name), tensors: tensors)
        let data = writer.data()
        do {
            try AtomicFile.write(data, to: output)
        } catch let error as SDKError {
            throw error
        } catch {
            throw SDKError.writeFailed("Cannot write \(output.path)", error)
        }
        return Report(
            tensorCount: tensors.count, vocabularySize: vocabulary.tokens.count, embeddingLength: config.hiddenSize,
            pooling: config.pooling.map { "\($0)" }, bytes: Int64(data.count)
        )
    }

    /// The metadata llama.cpp's BERT and its `bert` tokenizer read.
    private static func metadata(_ config: BertSourceConfiguration, _ vocabulary: BertVocabulary, name: String?) -> [(
        String, GGUFWriter.Value
    )] {
        var values: [(String, GGUFWriter.Value)] = [("general.architecture", .string("bert")), ("general.type", .string("model"))]
        if let name { values.append(("general.name", .string(name))) }
        if let license = config.license { values.append(("general.license", .string(license))) }
        values += [
            ("general.file_type", .u32(32)),  // llama.cpp's LLAMA_FTYPE_MOSTLY_BF16
            ("bert.context_length", .u32(UInt32(config.positionCount))),
            ("bert.embedding_length", .u32(UInt32(config.hiddenSize))),
            ("bert.feed_forward_length", .u32(UInt32(config.intermediateSize))),
            ("bert.block_count", .u32(UInt32(config.layerCount))),
            ("bert.attention.head_count", .u32(UInt32(config.headCount))),
            ("bert.attention.layer_norm_epsilon", .f32(config.layerNormEpsilon)),
            ("bert.attention.causal", .bool(false)),
        ]
        if let pooling = config.pooling { values.append(("bert.pooling_type", .u32(pooling.rawValue))) }
        values += [
            ("tokenizer.ggml.model", .string("bert")),
            ("tokenizer.ggml.tokens", .strings(vocabulary.tokens)),
            ("tokenizer.ggml.token_type", .i32s(vocabulary.types)),
            ("tokenizer.ggml.token_type_count", .u32(UInt32(config.tokenTypeCount))),
            // BERT's input is [CLS] text [SEP]: llama.cpp's BOS is the classifier token, its EOS the separator.
            ("tokenizer.ggml.bos_token_id", .u32(vocabulary.classifier)),
            ("tokenizer.ggml.eos_token_id", .u32(vocabulary.separator)),
            ("tokenizer.ggml.unknown_token_id", .u32(vocabulary.unknown)),
            ("tokenizer.ggml.seperator_token_id", .u32(vocabulary.separator)),
            ("tokenizer.ggml.padding_token_id", .u32(vocabulary.padding)),
            ("tokenizer.ggml.mask_token_id", .u32(vocabulary.mask)),
            ("tokenizer.ggml.cls_token_id", .u32(vocabulary.classifier)),
            ("tokenizer.ggml.add_bos_token", .bool(true)),
            ("tokenizer.ggml.add_eos_token", .bool(true)),
            ("tokenizer.ggml.add_sep_token", .bool(false)),
            ("tokenizer.ggml.normalizer.lowercase", .bool(config.lowercase)),
        ]
        if let strip = config.stripAccents { values.append(("tokenizer.ggml.normalizer.strip_accents", .bool(strip))) }
        return values
    }

    /// The checkpoint's tensors under llama.cpp's names, checked against the shapes `config` gives.
    private static func convertTensors(_ file: SafetensorsFile, config: BertSourceConfiguration) throws -> [GGUFWriter.Tensor] {
        let targets = BertTensorMapping.targets(for: config)
        let wanted = Set(targets.map(\.name))
        var sources: [String: SafetensorsFile.TensorInfo] = [:]
        for tensor in file.tensors {
            guard let name = try BertTensorMapping.llamaName(of: tensor.name) else { continue }
            guard wanted.contains(name) else {
                throw SDKError.fileManagement(
                    .invalidModelFormat,
                    "model.safetensors has the tensor \(tensor.name), which a BERT of config.json's shape (\(config.layerCount) layers) does not have"
                )
            }
            if let other = sources.updateValue(tensor, forKey: name) {
                throw SDKError.fileManagement(
                    .invalidModelFormat, "model.safetensors has both \(other.name) and \(tensor.name), which are the same tensor")
            }
        }
        return try targets.map { target in
            guard let source = sources[target.name] else {
                throw SDKError.fileManagement(
                    .invalidModelFormat,
                    "model.safetensors has no tensor for llama.cpp's \(target.name) (truncated or not a BERT checkpoint?)")
            }
            guard source.shape == target.shape else {
                throw SDKError.fileManagement(
                    .invalidModelFormat,
                    "model.safetensors' \(source.name) has the shape \(source.shape); config.json makes it \(target.shape)")
            }
            let data: Data
            if target.storedAsBFloat16 {
                data = try file.floats(of: source.name).map(BFloat16.bits).withUnsafeBytes { Data($0) }
            } else if source.dtype == "F32", let bytes = file.bytes(of: source.name) {
                data = bytes
            } else {
                data = try file.floats(of: source.name).withUnsafeBytes { Data($0) }
            }
            return GGUFWriter.Tensor(
                name: target.name, shape: target.shape.reversed().map(UInt64.init), type: target.storedAsBFloat16 ? BFloat16.ggmlType : 0,
                data: data)
        }
    }
}
