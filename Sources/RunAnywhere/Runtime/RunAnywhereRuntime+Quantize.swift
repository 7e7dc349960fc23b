import Foundation

extension RunAnywhereRuntime {
    /// Makes the model `id` of the GGUF file `source` quantized as `quantization` (what `ollama
    /// create --quantize` does): the file must be an F32, F16 or BF16 language, embedding or
    /// reranking model; the configured quantizer (``RuntimeConfiguration/quantizer``) writes the
    /// quantized file into the models folder, which is then imported as ``importModel(at:id:name:defaults:license:adapters:origin:)``
    /// imports (with `defaults`, `license` and the LoRA adapter files `adapters`). Nothing is
    /// left behind when any step fails; the id is checked to be free before the work starts.
    @discardableResult
    package nonisolated func quantizeModel(
        file source: URL, as quantization: ModelQuantization, id: String, defaults: ModelDefaults?, license: String?,
        adapters: [URL] = [], threads: Int? = nil, origin: String? = nil
    ) async throws -> ModelInfo {
        guard let quantizer = configuration.quantizer else {
            throw SDKError(
                .frameworkNotAvailable,
                "Quantizing needs llama.cpp's quantizer, which this runtime was not given (the runanywhere CLI and server have it)")
        }
        let staging = ScratchFile.url(in: catalog.modelsDirectory, prefix: ".quantize.", suffix: ".partial")
        defer { try? FileManager.default.removeItem(at: staging) }
        try await runBlocking { [catalog] in
            // Everything that can refuse the model, before the quantizer's long work.
            try ModelInfo.validateID(id)
            try catalog.checkFree(id)
            try defaults?.validate()
            let plan = try ModelImportPlan.make(for: source, name: nil)
            guard plan.format == .gguf, [.language, .embedding, .reranking].contains(plan.category) else {
                throw SDKError(
                    .modelIncompatible,
                    "\(source.lastPathComponent) is not a GGUF language, embedding or reranking model; only those are quantized here")
            }
            try ModelQuantization.checkSource(try GGUFReader.read(source), name: source.lastPathComponent)
            if !adapters.isEmpty { _ = try ModelFiles.checkAdapters(adapters, fitting: source, model: id) }
            ScratchFile.removeAbandoned(in: catalog.modelsDirectory, prefix: ".quantize.")
            do {
                try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            } catch {
                throw SDKError.writeFailed("Cannot make a folder for the quantized file in \(catalog.modelsDirectory.path)", error)
            }
        }
        let output = staging.appendingPathComponent(source.deletingPathExtension().lastPathComponent + "-\(quantization.name).gguf")
        let started = ContinuousClock.now
        try await quantizer.quantize(source, to: output, as: quantization, threads: threads)
        configuration.logger.info(
            "Quantized a model",
            metadata: [
                "model": "\(id)", "from": "\(source.lastPathComponent)", "quantization": "\(quantization.name)",
                "seconds": "\(String(format: "%.1f", (ContinuousClock.now - started).inSeconds))",
            ])
        let origin = origin ?? "Quantized to \(quantization.name) from \(source.lastPathComponent)"
        return try await runBlocking {
            try self.importModel(
                at: output, id: id, name: nil, defaults: defaults, license: license, adapters: adapters, origin: origin)
        }
    }

    /// ``quantizeModel(file:as:id:defaults:license:adapters:threads:origin:)`` of the installed
    /// model `source`'s file: the new model keeps what `source` keeps (its defaults under
    /// `defaults`, its licence unless `license` replaces it, its LoRA adapters unless `adapters`
    /// replace them), as a model made from another does.
    @discardableResult
    package nonisolated func quantizeModel(
        _ source: String, as quantization: ModelQuantization, id: String, defaults: ModelDefaults? = nil, license: String? = nil,
        adapters: [URL] = [], threads: Int? = nil
    ) async throws -> ModelInfo {
        let model = try catalog.model(id: source)
        guard model.isDownloaded, let file = model.primaryFile else {
            throw SDKError(.modelNotDownloaded, "Model '\(source)' is not downloaded: pull it before quantizing it")
        }
        let own = (ownLoRAAdapters(of: model) ?? []).map { URL(fileURLWithPath: $0.path) }
        var merged = defaults?.over(model.defaults) ?? model.defaults ?? ModelDefaults()
        merged.loraAdapters = nil  // placed again from the files, under their names
        return try await quantizeModel(
            file: file, as: quantization, id: id, defaults: merged, license: license ?? model.license,
            adapters: adapters.isEmpty ? own : adapters, threads: threads, origin: "Quantized to \(quantization.name) from \(model.id)")
    }
}
