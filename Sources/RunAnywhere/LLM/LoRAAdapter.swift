import Foundation

/// A LoRA adapter applied to a language model for one request: a low-rank change to some of the
/// model's weights, read from an adapter GGUF made for that model (llama.cpp's
/// `convert_lora_to_gguf.py` writes them), its effect multiplied by ``scale``.
///
/// The base model stays loaded once: requests with different adapters, or none, share it, and
/// the engine switches adapters between its decode steps. An adapter made for another
/// architecture or shape of model is refused with ``ErrorCode/modelIncompatible``.
public struct LoRAAdapter: Codable, Sendable, Hashable {
    /// The adapter GGUF's path (made absolute when the request starts), or the id of an adapter
    /// imported into the catalog (`runanywhere models import ADAPTER.gguf`, category
    /// ``ModelCategory/loraAdapter``).
    public var path: String
    /// How much of the adapter's change applies: 1 as trained, 0 none, negative the opposite.
    public var scale: Float

    /// An adapter at `path`, applied at `scale`.
    public init(path: String, scale: Float = 1) {
        self.path = path
        self.scale = scale
    }

    /// The error for loading the adapter `model` as a model of its own.
    package static func notLoadable(_ model: ModelInfo) -> SDKError {
        SDKError(
            .modelIncompatible,
            "'\(model.id)' is a LoRA adapter, not a model to load: apply it to a language model (LLMGenerationOptions.loraAdapters, --lora \(model.id))"
        )
    }

    /// The most adapters one request applies.
    package static let maxPerRequest = 8

    /// Checks `adapters` for a request to `model`: at most ``maxPerRequest``, finite scales, each
    /// file once, each a LoRA adapter GGUF for the model's architecture; returns them with
    /// absolute paths. A path that names no file is looked up as an imported adapter's id with
    /// `imported`.
    package static func resolve(_ adapters: [LoRAAdapter], for model: ModelInfo, imported: (String) -> URL?) throws -> [LoRAAdapter] {
        guard !adapters.isEmpty else { return [] }
        func bad(_ why: String) -> SDKError { SDKError.llm(.invalidInput, "Invalid LoRA adapters: \(why)") }
        guard adapters.count <= maxPerRequest else { throw bad("at most \(maxPerRequest) per request (got \(adapters.count))") }
        let resolved = try adapters.map { adapter in
            guard !adapter.path.isEmpty else { throw bad("an adapter has no path") }
            guard adapter.scale.isFinite else { throw bad("the scale of \(adapter.path) is not a finite number") }
            var url = URL(fileURLWithPath: adapter.path).standardizedFileURL
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), let file = imported(adapter.path) {
                url = file
            } else if isDirectory.boolValue || !FileManager.default.fileExists(atPath: url.path) {
                throw SDKError(.fileNotFound, "No LoRA adapter file at \(adapter.path), and no imported adapter has that id")
            }
            return LoRAAdapter(path: url.path, scale: adapter.scale)
        }
        guard model.format == .gguf else {
            throw SDKError.llm(.modelIncompatible, "LoRA adapters apply to GGUF language models; \(model.id) is \(model.format.rawValue)")
        }
        guard let base = model.primaryFile else {
            throw SDKError(.modelNotDownloaded, "Model '\(model.id)' is not downloaded, so no LoRA adapter can apply to it yet")
        }
        let baseMetadata = try GGUFReader.read(base)
        if let twice = Dictionary(grouping: resolved, by: \.path).first(where: { $0.value.count > 1 })?.key {
            throw bad("\(twice) is given twice")
        }
        for adapter in resolved {
            try check(URL(fileURLWithPath: adapter.path), named: adapter.path, fits: baseMetadata, model: model.id)
        }
        return resolved
    }

    /// Throws ``ErrorCode/modelIncompatible`` unless the file at `url` (`name` in the message) is
    /// a LoRA adapter GGUF made for the architecture and tensor shapes of the model whose GGUF
    /// metadata is `base` (`model` in the message).
    package static func check(_ url: URL, named name: String, fits base: GGUFMetadata, model: String) throws {
        let metadata = try adapterMetadata(at: url, named: name)
        guard metadata.architecture == base.architecture else {
            throw SDKError.llm(
                .modelIncompatible,
                "The LoRA adapter \(name) was made for \(metadata.architecture ?? "an unnamed architecture"), and \(model) is \(base.architecture ?? "of an unnamed architecture")"
            )
        }
        if let mismatch = mismatch(of: metadata, with: base) {
            throw SDKError.llm(.modelIncompatible, "The LoRA adapter \(name) does not fit \(model): \(mismatch)")
        }
    }

    /// The adapters of `defaults` (a server's, applied to requests that choose none) that apply
    /// to `model`: those not at scale 0 made for its architecture and the shapes of its tensors
    /// (a model of the same architecture but another size is left alone, not failed).
    package static func fitting(_ defaults: [LoRAAdapter], _ model: ModelInfo) -> [LoRAAdapter] {
        let applied = defaults.filter { $0.scale != 0 }
        guard !applied.isEmpty, model.format == .gguf, let base = model.primaryFile, let metadata = try? GGUFReader.read(base) else {
            return []
        }
        return applied.filter { adapter in
            guard let made = try? Self.adapterMetadata(at: URL(fileURLWithPath: adapter.path)) else { return false }
            return made.architecture == metadata.architecture && Self.mismatch(of: made, with: metadata) == nil
        }
    }

    /// Why the adapter `adapter` cannot apply to the model `base`, as llama.cpp would refuse it
    /// (a pair `NAME.lora_a` [in, rank] and `NAME.lora_b` [rank, out] for a model tensor `NAME`
    /// [in, out]); nil when it fits.
    package static func mismatch(of adapter: GGUFMetadata, with base: GGUFMetadata) -> String? {
        let model = Dictionary(base.tensors.map { ($0.name, $0.shape) }, uniquingKeysWith: { first, _ in first })
        let tensors = Dictionary(adapter.tensors.map { ($0.name, $0.shape) }, uniquingKeysWith: { first, _ in first })
        for (name, a) in tensors.sorted(by: { $0.key < $1.key }) where name.hasSuffix(".lora_a") {
            let target = String(name.dropLast(".lora_a".count))
            guard let b = tensors[target + ".lora_b"] else { return "\(name) has no lora_b beside it" }
            guard let weight = model[target] else { return "the model has no tensor \(target)" }
            guard a.count >= 2, b.count >= 2, weight.count >= 2, a[1] == b[0] else { return "\(target)'s lora_a and lora_b do not pair" }
            guard a[0] == weight[0], b[1] == weight[1] else {
                return "\(target) is \(weight[0])×\(weight[1]) in the model, \(a[0])×\(b[1]) in the adapter"
            }
        }
        return nil
    }

    /// The architecture the LoRA adapter GGUF at `url` was made for; an error names a file that
    /// is not one.
    package static func architecture(ofAdapterAt url: URL) throws -> String? {
        try adapterMetadata(at: url).architecture
    }

    /// The metadata and tensor table of the LoRA adapter GGUF at `url`; an error names a file
    /// that is not one (as `name`, its path by default).
    package static func adapterMetadata(at url: URL, named name: String? = nil) throws -> GGUFMetadata {
        let name = name ?? url.path
        let metadata: GGUFMetadata
        do {
            metadata = try GGUFReader.read(url)
        } catch let error as SDKError {
            throw SDKError.llm(.modelIncompatible, "\(name) is not a LoRA adapter GGUF: \(error.message)")
        }
        guard metadata.values["general.type"]?.stringValue == "adapter", metadata.values["adapter.type"]?.stringValue == "lora" else {
            throw SDKError.llm(
                .modelIncompatible,
                "\(name) is a GGUF file but not a LoRA adapter (general.type is not adapter, or adapter.type not lora)")
        }
        return metadata
    }
}
