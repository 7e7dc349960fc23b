import Foundation

extension RunAnywhereRuntime {
    /// Every known model: built-in first, then the user's.
    public nonisolated func availableModels() -> [ModelInfo] {
        catalog.all()
    }

    /// The model with `id`; throws for an unknown or unsafe id.
    public nonisolated func model(id: String) throws -> ModelInfo {
        try catalog.model(id: id)
    }

    /// The ``ModelInfo/defaults`` of the model `id`; nil for none, or for an unknown id (the
    /// generation that asks for it says so).
    package nonisolated func defaults(of id: String) -> ModelDefaults? {
        (try? catalog.model(id: id))?.defaults
    }

    /// The model with `id`, which must be a `category` model (``ErrorCode/modelIncompatible``
    /// otherwise), so that a caller can refuse a request before doing any work for it.
    public nonisolated func model(id: String, category: ModelCategory) throws -> ModelInfo {
        let model = try catalog.model(id: id)
        guard model.category == category else {
            let wanted =
                switch category {
                case .speechRecognition: "speech recognition"
                case .speechSynthesis: "a text-to-speech voice"
                case .imageGeneration: "an image-generation model"
                case .embedding: "an embedding model"
                case .reranking: "a reranker"
                default: "a \(category.rawValue) model"
                }
            throw SDKError(.modelIncompatible, "Model '\(id)' is \(model.category.aModel), not \(wanted)")
        }
        return model
    }

    /// The GGUF metadata of a downloaded GGUF model (for a model that is a folder, such as a
    /// vision model beside its projector, of its main file: ``ModelInfo/primaryFile``), or nil
    /// for other formats and models not on this machine.
    package nonisolated func metadata(of model: ModelInfo) throws -> GGUFMetadata? {
        guard model.format == .gguf, let path = model.primaryFile else { return nil }
        return try GGUFReader.read(path)
    }

    /// Registers a model by URL and persists it. An `http(s)` model is placed under the models
    /// folder once downloaded; a `file` URL is used where it is. The id defaults to one derived
    /// from the file name.
    @discardableResult
    public nonisolated func registerModel(
        id: String? = nil, name: String, url: URL, framework: InferenceFramework,
        modality: ModelCategory = .language, memoryRequirement: Int64? = nil, supportsThinking: Bool = false
    ) throws -> ModelInfo {
        let (scheme, fileName, id) = try Self.source(url, id: id)
        let model = ModelInfo(
            id: id, name: name, category: modality, format: ModelFormat.detect(fromPath: fileName), framework: framework,
            downloadURL: scheme == "file" ? nil : url,
            localPath: scheme == "file" ? url : catalog.modelsDirectory.appendingPathComponent(id).appendingPathComponent(fileName),
            downloadSize: memoryRequirement, supportsThinking: supportsThinking, description: "User-added model", source: .local
        )
        try catalog.add(model)
        return try catalog.model(id: id)
    }

    /// Imports a local model file: checks it is whole and valid with its format's metadata reader,
    /// copies it into the models folder (links it, when it is in that folder already) and
    /// registers it with what its metadata says (name, context, licence). A GGUF file is a
    /// language model for llama.cpp, or an image-generation model for stable-diffusion.cpp when
    /// it holds a diffusion model's tensors; a safetensors file must be such a diffusion
    /// checkpoint; an ONNX file must be a Piper voice, copied with the `tokens.txt` (and
    /// `.onnx.json`) beside it. Anything else is refused, and nothing is left behind; so is a
    /// `name` that is empty, over 200 characters or more than one printable line.
    @discardableResult
    public nonisolated func importModel(at source: URL, id: String? = nil, name: String? = nil) throws -> ModelInfo {
        try importModel(at: source, id: id, name: name, defaults: nil, license: nil)
    }

    /// ``importModel(at:id:name:)`` with what the model adds to its file (`defaults`), a licence
    /// in place of the file's, LoRA adapter files it keeps and applies (`adapters`: each checked
    /// to fit the file, then kept in the model's folder), and where it came from (`origin`, for
    /// its description; by default the file's path).
    @discardableResult
    package nonisolated func importModel(
        at source: URL, id: String?, name: String?, defaults: ModelDefaults?, license: String?, adapters: [URL] = [],
        origin: String? = nil
    ) throws -> ModelInfo {
        try defaults?.validate()
        let plan = try ModelImportPlan.make(for: source, name: name)
        let id = try id ?? Self.derivedID(from: source.lastPathComponent)
        try ModelInfo.validateID(id)
        let folder = catalog.modelsDirectory.appendingPathComponent(id)
        var model = ModelInfo(
            id: id, name: plan.name, category: plan.category, format: plan.format, framework: plan.framework,
            localPath: plan.isFolder ? folder : folder.appendingPathComponent(source.lastPathComponent),
            downloadSize: plan.size, contextLength: plan.contextLength,
            supportsThinking: plan.supportsThinking,
            description: [plan.description, origin ?? "Imported from \(source.path)"].compactMap { $0 }.joined(separator: ". "),
            source: .local,
            license: license ?? plan.license
        )
        var defaults = defaults ?? ModelDefaults()
        if !adapters.isEmpty {
            guard plan.category == .language else {
                throw SDKError.llm(.modelIncompatible, "LoRA adapters apply to language models; \(id) is \(plan.category.aModel)")
            }
            defaults.loraAdapters = try ModelFiles.checkAdapters(adapters, fitting: plan.metadata, model: id)
        }
        model.defaults = defaults.isEmpty ? nil : defaults
        try? FileManager.default.createDirectory(at: catalog.modelsDirectory, withIntermediateDirectories: true)
        ScratchFile.removeAbandoned(in: catalog.modelsDirectory, prefix: ".import.")
        let staging = ScratchFile.url(in: catalog.modelsDirectory, prefix: ".import.", suffix: ".partial")
        defer { try? FileManager.default.removeItem(at: staging) }
        // A file already in the models folder (an upload, another model's) is linked, not copied:
        // nothing there is rewritten in place. One from elsewhere is copied, as its owner may.
        let models = catalog.modelsDirectory.resolvingSymlinksInPath().standardizedFileURL.path + "/"
        let linking = source.resolvingSymlinksInPath().standardizedFileURL.path.hasPrefix(models)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
            for file in plan.files {
                try ModelFiles.place(file, at: staging.appendingPathComponent(file.lastPathComponent), linking: linking)
            }
        } catch {
            throw SDKError.writeFailed("Cannot copy \(source.path) into \(catalog.modelsDirectory.path)", error)
        }
        if !adapters.isEmpty {
            try ModelFiles.placeAdapters(
                adapters, in: staging.appendingPathComponent(ModelDefaults.loraFolder), modelsDirectory: catalog.modelsDirectory)
        }
        try catalog.add(model) {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                var moved = plan.files.map(\.lastPathComponent)
                if !adapters.isEmpty { moved.append(ModelDefaults.loraFolder) }
                for name in moved {
                    let destination = folder.appendingPathComponent(name)
                    try? FileManager.default.removeItem(at: destination)
                    try FileManager.default.moveItem(at: staging.appendingPathComponent(name), to: destination)
                }
            } catch {
                throw SDKError.writeFailed("Cannot move the model into \(folder.path)", error)
            }
        }
        return try catalog.model(id: id)
    }

    /// The scheme, file name and model id of a model's URL, after checking the scheme is http,
    /// https or file, that the URL names a file, and that the id (given, or derived from the
    /// file name) is valid.
    static func source(_ url: URL, id: String?) throws -> (scheme: String, fileName: String, id: String) {
        let (scheme, fileName) = try sourceFile(url)
        return (scheme, fileName, try sourceID(id, fileName: fileName))
    }

    /// The scheme and file name of a model's URL: http, https or file, naming a file.
    static func sourceFile(_ url: URL) throws -> (scheme: String, fileName: String) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https", "file"].contains(scheme) else {
            throw SDKError(.invalidInput, "Unsupported URL '\(url.absoluteString)': use http, https or file")
        }
        let fileName = url.lastPathComponent
        guard !fileName.isEmpty, fileName != "/" else { throw SDKError(.invalidInput, "The URL '\(url.absoluteString)' names no file") }
        return (scheme, fileName)
    }

    /// The model id `id`, or one derived from `fileName`, checked.
    static func sourceID(_ id: String?, fileName: String) throws -> String {
        let id = try id ?? derivedID(from: fileName)
        try ModelInfo.validateID(id)
        return id
    }

    /// A safe model id from a file name: lowercased, without the model extension, with every
    /// character outside `[a-z0-9._-]` replaced by `-`.
    static func derivedID(from fileName: String) throws -> String {
        var stem = fileName.lowercased()
        for ext in [".gguf", ".safetensors", ".onnx", ".ort", ".bin", ".zip", ".gz", ".bz2", ".tar"] where stem.hasSuffix(ext) {
            stem.removeLast(ext.count)
        }
        var id = String(stem.map { "abcdefghijklmnopqrstuvwxyz0123456789._-".contains($0) ? $0 : "-" })
        while id.contains("..") { id = id.replacingOccurrences(of: "..", with: ".") }
        id = String(id.drop { $0 == "." || $0 == "-" }.prefix(SDKConstants.Limits.modelIDLength))
        guard !id.isEmpty else { throw SDKError(.invalidInput, "Cannot derive a model id from '\(fileName)'; pass one explicitly") }
        return id
    }
}
