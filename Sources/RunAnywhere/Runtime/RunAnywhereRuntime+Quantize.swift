import Foundation

/// A quantization checked and ready to run (``RunAnywhereRuntime/prepareQuantization(file:as:id:defaults:license:adapters:origin:)``):
/// everything that could refuse it has been asked, so that a caller can answer a refusal before
/// it starts the long work (``RunAnywhereRuntime/quantize(_:threads:progress:)``).
package struct QuantizationJob: Sendable {
    /// The GGUF file quantized.
    package let source: URL
    /// What it becomes.
    package let quantization: ModelQuantization
    /// The new model's id.
    package let id: String
    /// The source's quantization (`F16`…), as its header names it.
    package let sourceQuantization: String?
    let defaults: ModelDefaults?
    let license: String?
    let adapters: [URL]
    let origin: String
}

extension RunAnywhereRuntime {
    /// Checks a quantization of the GGUF file `source` as `quantization` into the new model `id`
    /// (what `ollama create --quantize` does): a quantizer is configured
    /// (``RuntimeConfiguration/quantizer``), the id is free, `defaults` are valid, the file is an
    /// F32, F16 or BF16 language, embedding or reranking model, and the LoRA adapter files
    /// `adapters` fit it.
    package nonisolated func prepareQuantization(
        file source: URL, as quantization: ModelQuantization, id: String, defaults: ModelDefaults?, license: String?,
        adapters: [URL] = [], origin: String? = nil
    ) async throws -> QuantizationJob {
        guard configuration.quantizer != nil else {
            throw SDKError(
                .frameworkNotAvailable,
                "Quantizing needs llama.cpp's quantizer, which this runtime was not given (the runanywhere CLI and server have it)")
        }
        let metadata = try await runBlocking { [catalog] in
            try ModelInfo.validateID(id)
            try catalog.checkFree(id)
            try defaults?.validate()
            let plan = try ModelImportPlan.make(for: source, name: nil)
            guard let metadata = plan.metadata, [.language, .embedding, .reranking].contains(plan.category) else {
                throw SDKError(
                    .modelIncompatible,
                    "\(source.lastPathComponent) is not a GGUF language, embedding or reranking model; only those are quantized here")
            }
            try ModelQuantization.checkSource(metadata, name: source.lastPathComponent)
            if !adapters.isEmpty { _ = try ModelFiles.checkAdapters(adapters, fitting: metadata, model: id) }
            return metadata
        }
        return QuantizationJob(
            source: source, quantization: quantization, id: id, sourceQuantization: metadata.quantization, defaults: defaults,
            license: license, adapters: adapters, origin: origin ?? "Quantized to \(quantization.name) from \(source.lastPathComponent)")
    }

    /// ``prepareQuantization(file:as:id:defaults:license:adapters:origin:)`` of the installed model
    /// `source`'s file: the new model keeps what `source` keeps (its defaults under `defaults`,
    /// its licence unless `license` replaces it, its LoRA adapters unless `adapters` replace
    /// them), as a model made from another does.
    package nonisolated func prepareQuantization(
        of source: String, as quantization: ModelQuantization, id: String, defaults: ModelDefaults? = nil, license: String? = nil,
        adapters: [URL] = []
    ) async throws -> QuantizationJob {
        let model = try catalog.model(id: source)
        guard model.isDownloaded, let file = model.primaryFile else {
            throw SDKError(.modelNotDownloaded, "Model '\(source)' is not downloaded: pull it before quantizing it")
        }
        let own = (ownLoRAAdapters(of: model) ?? []).map { URL(fileURLWithPath: $0.path) }
        var merged = defaults?.over(model.defaults) ?? model.defaults ?? ModelDefaults()
        merged.loraAdapters = nil  // placed again from the files, under their names
        return try await prepareQuantization(
            file: file, as: quantization, id: id, defaults: merged, license: license ?? model.license,
            adapters: adapters.isEmpty ? own : adapters, origin: "Quantized to \(quantization.name) from \(model.id)")
    }

    /// Runs `job`: the quantizer writes the quantized file into the models folder (each tensor
    /// written reported to `progress`), which is then imported as
    /// ``importModel(at:id:name:defaults:license:adapters:origin:)`` imports, with the job's
    /// defaults, licence and adapters. Cancelling the task stops the quantizer; nothing is left
    /// behind when any step fails.
    @discardableResult
    package nonisolated func quantize(
        _ job: QuantizationJob, threads: Int? = nil, progress: @escaping @Sendable (QuantizationProgress) -> Void = { _ in }
    ) async throws -> ModelInfo {
        guard let quantizer = configuration.quantizer else {
            throw SDKError(.frameworkNotAvailable, "Quantizing needs llama.cpp's quantizer, which this runtime was not given")
        }
        let staging = ScratchFile.url(in: catalog.modelsDirectory, prefix: ".quantize.", suffix: ".partial")
        defer { try? FileManager.default.removeItem(at: staging) }
        try await runBlocking { [catalog] in
            ScratchFile.removeAbandoned(in: catalog.modelsDirectory, prefix: ".quantize.")
            do {
                try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
            } catch {
                throw SDKError.writeFailed("Cannot make a folder for the quantized file in \(catalog.modelsDirectory.path)", error)
            }
        }
        let output = staging.appendingPathComponent(
            job.source.deletingPathExtension().lastPathComponent + "-\(job.quantization.name).gguf")
        let started = ContinuousClock.now
        try await quantizer.quantize(job.source, to: output, as: job.quantization, threads: threads, progress: progress)
        configuration.logger.info(
            "Quantized a model",
            metadata: [
                "model": "\(job.id)", "from": "\(job.source.lastPathComponent)", "quantization": "\(job.quantization.name)",
                "seconds": "\(String(format: "%.1f", (ContinuousClock.now - started).inSeconds))",
            ])
        return try await runBlocking {
            try self.importModel(
                at: output, id: job.id, name: nil, defaults: job.defaults, license: job.license, adapters: job.adapters,
                origin: job.origin)
        }
    }
}
