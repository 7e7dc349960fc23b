import Foundation

extension RunAnywhereRuntime {
    /// The folder of `id`'s own LoRA adapters (``ModelDefaults/loraFolder`` in its folder).
    nonisolated func loraFolder(of id: String) -> URL {
        catalog.modelsDirectory.appendingPathComponent(id).appendingPathComponent(ModelDefaults.loraFolder)
    }

    /// The LoRA adapters `model` keeps (``ModelDefaults/loraAdapters``), with their files' whole
    /// paths: what a request to it that chooses none applies. Nil when it keeps none.
    package nonisolated func ownLoRAAdapters(of model: ModelInfo) -> [LoRAAdapter]? {
        guard let adapters = model.defaults?.loraAdapters, !adapters.isEmpty else { return nil }
        let folder = loraFolder(of: model.id)
        return adapters.map { LoRAAdapter(path: folder.appendingPathComponent($0.path).path, scale: $0.scale) }
    }
}

extension ModelFiles {
    /// Checks the LoRA adapter files `adapters` for a model whose GGUF header is `base` (the
    /// model `model`; nil: it is no GGUF language model): at most ``LoRAAdapter/maxPerRequest``,
    /// each a file of its own name, an adapter GGUF made for the model's architecture and tensor
    /// shapes; returns them as the model keeps them (by name, scale 1).
    static func checkAdapters(_ adapters: [URL], fitting base: GGUFMetadata?, model: String) throws -> [LoRAAdapter] {
        guard !adapters.isEmpty else { return [] }
        guard adapters.count <= LoRAAdapter.maxPerRequest else {
            throw SDKError(.invalidInput, "A model keeps at most \(LoRAAdapter.maxPerRequest) LoRA adapters (got \(adapters.count))")
        }
        for adapter in adapters {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: adapter.path, isDirectory: &isFolder), !isFolder.boolValue else {
                throw SDKError.fileManagement(.fileNotFound, "No LoRA adapter file at \(adapter.path)")
            }
        }
        let names = adapters.map(\.lastPathComponent)
        if let twice = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw SDKError(.invalidInput, "Two LoRA adapters are named \(twice): a model keeps each by its file name")
        }
        guard let base else {
            throw SDKError.llm(.modelIncompatible, "LoRA adapters apply to GGUF language models; \(model) is not one")
        }
        for (adapter, name) in zip(adapters, names) {
            try LoRAAdapter.check(adapter, named: name, fits: base, model: model)
        }
        return names.map { LoRAAdapter(path: $0) }
    }

    /// Places the LoRA adapter files `adapters` (checked by ``checkAdapters(_:fitting:model:)``)
    /// in `folder` (a new model's ``ModelDefaults/loraFolder``) under their own names: linked
    /// when they are in the models folder, copied otherwise.
    static func placeAdapters(_ adapters: [URL], in folder: URL, modelsDirectory: URL) throws {
        let models = modelsDirectory.resolvingSymlinksInPath().standardizedFileURL.path + "/"
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for adapter in adapters {
                let linking = adapter.resolvingSymlinksInPath().standardizedFileURL.path.hasPrefix(models)
                try place(adapter, at: folder.appendingPathComponent(adapter.lastPathComponent), linking: linking)
            }
        } catch {
            throw SDKError.writeFailed("Cannot copy the LoRA adapters into \(folder.path)", error)
        }
    }
}
