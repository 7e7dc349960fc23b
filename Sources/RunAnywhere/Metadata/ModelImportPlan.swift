import Foundation

/// What importing a model file registers, decided from what the file says about itself: a GGUF
/// language or diffusion model or LoRA adapter, a safetensors diffusion checkpoint, or an ONNX Piper voice with the
/// files its engine reads beside it. Anything else is refused before a byte is copied.
struct ModelImportPlan {
    var name: String
    var category: ModelCategory
    var format: ModelFormat
    var framework: InferenceFramework
    var contextLength: Int?
    var supportsThinking = false
    /// What the model is, when the file says more than where it came from.
    var description: String?
    var license: String?
    /// The files copied into the model's folder, the model file first.
    var files: [URL]
    /// Whether the model is its folder (a voice beside its tokens) rather than its one file.
    var isFolder = false
    /// A GGUF file's header, as it was read to make the plan (nil for other formats), so that
    /// what checks the file further need not read it again.
    var metadata: GGUFMetadata?

    /// The files' total size in bytes.
    var size: Int64 {
        files.reduce(Int64(0)) { total, file in
            total.saturatingAdd(((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// The plan for importing `source`, whose format is the one its first bytes show, else its
    /// extension's; `name` replaces the name the file gives (``checkedName(_:what:limit:)``).
    static func make(for source: URL, name: String?) throws -> ModelImportPlan {
        let name = try name.map { try checkedName($0, what: "A model's name", limit: 200) }
        let fileName = source.lastPathComponent
        let stem = source.deletingPathExtension().lastPathComponent
        var format = ModelFormat.sniff(fileAt: source)
        if format == .unknown { format = ModelFormat.detect(fromPath: fileName) }
        switch format {
        case .safetensors: return try safetensors(source, name: name, stem: stem)
        case .onnx: return try onnx(source, name: name, stem: stem)
        default: return try gguf(source, name: name, stem: stem)
        }
    }

    /// A GGUF file: a language, embedding or reranking model for llama.cpp, or an image-generation
    /// model for stable-diffusion.cpp when it holds a diffusion model's tensors; not a vision projector.
    private static func gguf(_ source: URL, name: String?, stem: String) throws -> ModelImportPlan {
        let metadata = try GGUFReader.read(source)
        let fileName = source.lastPathComponent
        let diffusion = metadata.hasDiffusionModelTensors
        guard let architecture = metadata.architecture ?? (diffusion ? "diffusion" : nil) else {
            throw SDKError.fileManagement(
                .invalidModelFormat, "\(fileName) has no general.architecture; it is not a model llama.cpp can load")
        }
        guard architecture != "clip" else {
            throw SDKError.fileManagement(.modelIncompatible, "\(fileName) is a vision projector (mmproj), not a language model")
        }
        if metadata.values["general.type"]?.stringValue == "adapter" {
            guard metadata.values["adapter.type"]?.stringValue == "lora" else {
                throw SDKError.fileManagement(
                    .modelIncompatible,
                    "\(fileName) is a \(metadata.values["adapter.type"]?.stringValue ?? "unnamed") adapter; only LoRA adapters are applied here"
                )
            }
            // Applied to a language model of its architecture (checked then); never loaded alone.
            let base = metadata.values["general.base_model.0.name"]?.stringValue.map { ", made for \($0)" } ?? ""
            return ModelImportPlan(
                name: name ?? metadata.name ?? stem, category: .loraAdapter, format: .gguf, framework: .llamaCpp,
                description: "A LoRA adapter for \(architecture) language models\(base)", license: metadata.license, files: [source],
                metadata: metadata)
        }
        // A model converted for embeddings or ranking says how its outputs are pooled (4: rank,
        // a cross-encoder's); a language model says nothing of it.
        if let pooling = metadata.values["\(architecture).pooling_type"]?.intValue, pooling > 0 {
            return ModelImportPlan(
                name: name ?? metadata.name ?? stem, category: pooling == 4 ? .reranking : .embedding, format: .gguf,
                framework: .llamaCpp, contextLength: metadata.contextLength, license: metadata.license, files: [source], metadata: metadata)
        }
        return ModelImportPlan(
            name: name ?? metadata.name ?? stem, category: diffusion ? .imageGeneration : .language, format: .gguf,
            framework: diffusion ? .stableDiffusionCpp : .llamaCpp, contextLength: diffusion ? nil : metadata.contextLength,
            supportsThinking: !diffusion && metadata.chatTemplate?.contains("<think>") ?? false, license: metadata.license, files: [source],
            metadata: metadata
        )
    }

    /// A safetensors file: a diffusion checkpoint (its denoiser under `model.diffusion_model.`, the
    /// names stable-diffusion.cpp reads), as GGUF's rule; no engine here runs other safetensors.
    private static func safetensors(_ source: URL, name: String?, stem: String) throws -> ModelImportPlan {
        let (header, metadata) = try SafetensorsMetadataExtractor.read(source)
        guard header.tensors.contains(where: { $0.name.hasPrefix("model.diffusion_model.") }) else {
            throw SDKError.fileManagement(
                .modelIncompatible,
                "\(source.lastPathComponent) is a safetensors file of \(metadata.tensorCount) tensors (\(metadata.parameterCountLabel) parameters) without a diffusion model's (model.diffusion_model.…): no engine here runs it; llama.cpp reads GGUF (convert a Hugging Face model with llama.cpp's convert_hf_to_gguf.py)"
            )
        }
        return ModelImportPlan(
            name: name ?? metadata.name ?? stem, category: .imageGeneration, format: .safetensors, framework: .stableDiffusionCpp,
            license: metadata.values["modelspec.license"] ?? metadata.values["license"], files: [source]
        )
    }

    /// An ONNX file: a Piper voice (its `comment` property `piper`, or a `vits` model), imported
    /// with the `tokens.txt` sherpa-onnx reads beside it and its `.onnx.json` settings when present.
    private static func onnx(_ source: URL, name: String?, stem: String) throws -> ModelImportPlan {
        let metadata = try ONNXMetadataExtractor().extract(from: source)
        let fileName = source.lastPathComponent
        guard metadata.values["comment"] == "piper" || metadata.architecture == "vits" else {
            let producer = metadata.producer.map { " from \($0)" } ?? ""
            throw SDKError.fileManagement(
                .modelIncompatible,
                "\(fileName) is an ONNX model\(producer) (\(metadata.parameterCountLabel) parameters) but not a Piper voice: the ONNX models this SDK runs are Piper text-to-speech voices"
            )
        }
        let folder = source.deletingLastPathComponent()
        let tokens = folder.appendingPathComponent("tokens.txt")
        guard FileManager.default.fileExists(atPath: tokens.path) else {
            throw SDKError.fileManagement(
                .fileNotFound, "\(fileName) is a Piper voice, but the tokens.txt its engine reads is not beside it in \(folder.path)")
        }
        let settings = source.appendingPathExtension("json")
        return ModelImportPlan(
            name: name ?? metadata.name ?? stem, category: .speechSynthesis, format: .onnx, framework: .onnx,
            license: metadata.values["license"],
            files: [source, tokens] + (FileManager.default.fileExists(atPath: settings.path) ? [settings] : []), isFolder: true
        )
    }
}
