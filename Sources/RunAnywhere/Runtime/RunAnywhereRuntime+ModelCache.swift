import Foundation
import Logging

extension RunAnywhereRuntime {
    /// The context window, in tokens, of the language model `id` if it is loaded.
    package func contextLength(ofLoaded id: String) -> Int? { cache[id]?.service?.contextLength }

    /// The memory the loaded models (of every modality) may take together, in bytes; 0 for no
    /// limit. Defaults to three quarters of the memory available when the runtime was created.
    package var modelMemoryBudget: Int64 { memoryBudget }

    /// Sets the memory budget for loaded models; idle models over it are unloaded, least
    /// recently used first.
    package func setModelMemoryBudget(_ bytes: Int64) {
        memoryBudget = max(0, bytes)
        try? makeRoom(for: 0, model: nil)
    }

    /// The models loaded (language, vision-language, speech-to-text, voice activity, voices, image
    /// generation, embedding), loading, or whose last load failed.
    public func loadedModels() -> [LoadedModelStatus] {
        let cached = cache.values.map { entry in
            LoadedModelStatus(
                modelId: entry.info.id, state: entry.state, memoryBytes: entry.heldMemory, deviceMemoryBytes: entry.deviceMemory,
                activeRequests: entry.uses,
                queuedRequests: entry.service?.queuedGenerations ?? 0,
                keepAliveSeconds: entry.keepAlive.seconds, expiresAt: entry.expiresAt, error: nil
            )
        }
        let failed = failedLoads.filter { cache[$0.key] == nil }.map {
            LoadedModelStatus(
                modelId: $0.key, state: .failed, memoryBytes: 0, deviceMemoryBytes: 0, activeRequests: 0, queuedRequests: 0,
                keepAliveSeconds: nil, expiresAt: nil, error: $0.value)
        }
        return (cached + failed).sorted { $0.modelId < $1.modelId }
    }

    /// Loads the language model `id` into the cache (as a request for it would, with `options`)
    /// and keeps it for `keepAlive` once idle, so that the next request starts at once; a model
    /// already loaded only gets the new keep-alive. Like ollama's empty generate request.
    public func preloadModel(_ id: String, options: ModelLoadOptions = ModelLoadOptions(), keepAlive: KeepAlive = .default) async throws {
        release(try await acquire(try model(id: id, category: .language), options: options, keepAlive: keepAlive))
    }

    /// Unloads the model `id` once no request uses it; returns once its engine has freed its memory.
    public func unloadModel(id: String) async {
        while let entry = cache[id] {
            if let loading = entry.loading {
                try? settle(id, loading, await loading.result)
                continue
            }
            if entry.uses > 0 {
                await withCheckedContinuation { cache[id]?.idleWaiters.append($0) }
                continue
            }
            unloadNow(id)
        }
        await unloading[id]?.task.value
    }

    /// Unloads every model, each once idle.
    public func unloadAllModels() async {
        current.removeAll()
        for id in cache.keys { await unloadModel(id: id) }
    }

    /// Lends `model` to a request, loading it first if needed (with `options`); requests for a
    /// model being loaded wait for that load. `keepAlive`, when given, replaces the model's.
    func acquire(_ model: ModelInfo, options: ModelLoadOptions, keepAlive: KeepAlive?) async throws -> ModelLease<any LLMService> {
        try await acquire(model, as: .language, options: options, keepAlive: keepAlive, taking: \.language)
    }

    /// `options` for loading the language model `model`, with its draft model (named in them, or
    /// else by ``defaultDraftModels``) a GGUF path: resolved when the model loads, not on every request.
    private func withDraftModel(_ options: ModelLoadOptions, for model: ModelInfo) throws -> ModelLoadOptions {
        var options = options
        if options.speculation.draftModel == nil, let draft = defaultDraftModels.withLock({ $0[model.id] }) {
            options.speculation = .draftModel(
                model: draft, maxDraftTokens: options.speculation == .off ? 8 : options.speculation.draftLimit)
        }
        options.speculation = try options.speculation.resolved(model: catalog.model(id:))
        return options
    }

    /// Lends `model` loaded as `kind`, with the service `take` finds in its engine. The cache
    /// refuses a model loaded as another kind, so `take` always finds one; were it not to, the
    /// request fails with that reason rather than the process.
    func acquire<Service>(
        _ model: ModelInfo, as kind: EngineKind, options: ModelLoadOptions, keepAlive: KeepAlive?, diffusion: DiffusionConfiguration? = nil,
        taking take: (LoadedEngine) -> Service?
    ) async throws -> ModelLease<Service> {
        let lease = try await acquire(model, as: kind, options: options, keepAlive: keepAlive, diffusion: diffusion)
        guard let service = take(lease.engine) else {
            release(lease)
            throw SDKError(
                .modelIncompatible, "Model '\(model.id)' is loaded as \(lease.engine.kind.description), not as \(kind.description)")
        }
        return ModelLease(info: lease.info, framework: lease.framework, engine: service)
    }

    /// Runs `work` on `model`, and once more if the engine process it ran in died
    /// (``ErrorCode/engineCrashed``: killed while idle, or by this very work), when the model is
    /// loaded again in a new one. Only for work that changes nothing (embeddings, rankings,
    /// speech); a generation is handed over again only if its engine never took it. With
    /// `repeatable`, only while it says the work can run again unseen (a stream that has sent
    /// nothing yet). When the second try fails otherwise (the model cannot be loaded again), its
    /// error names the crash too: that is what went wrong first.
    func againIfItsWorkerDied<T>(
        _ model: ModelInfo, repeatable: () -> Bool = { true }, _ work: () async throws -> T
    ) async throws -> T {
        do {
            return try await work()
        } catch let crash as SDKError where crash.code == .engineCrashed && repeatable() {
            logger.info("Asking a new engine process: the last one died", metadata: ["model": "\(model.id)", "error": "\(crash.message)"])
            do {
                return try await work()
            } catch let failure as SDKError where failure.code != .engineCrashed {
                throw SDKError(
                    failure.code, "\(EngineProcess.reason(of: crash)); asked again in a new engine process: \(failure.message)",
                    category: failure.category)
            }
        }
    }

    /// Lends `model`, loaded as `kind`, to a request, loading it first if needed (with
    /// `options`, and for an image-generation model `diffusion`); requests for a model being
    /// loaded wait for that load. `keepAlive`, when given, replaces the model's. A model loaded
    /// as another kind is refused; an image-generation model loaded from another path or with
    /// another configuration is reloaded once no request uses it.
    func acquire(
        _ model: ModelInfo, as kind: EngineKind, options: ModelLoadOptions, keepAlive: KeepAlive?, diffusion: DiffusionConfiguration? = nil
    ) async throws -> ModelLease<LoadedEngine> {
        if model.category == .loraAdapter { throw LoRAAdapter.notLoadable(model) }
        // An embedding model's GGUF, say, would load into llama.cpp as a language model and write noise.
        if kind == .language, ![.language, .multimodal, .vision].contains(model.category) {
            throw SDKError(
                .modelIncompatible, "Model '\(model.id)' is \(model.category.aModel), not a language model: it does not write text")
        }
        let diffusion = kind == .imageGeneration ? diffusion ?? DiffusionConfiguration(modelId: model.id) : nil
        while true {
            if var entry = cache[model.id] {
                if let loading = entry.loading {
                    try settle(model.id, loading, await loading.result)
                    continue
                }
                guard let engine = entry.engine else { continue }
                if let failure = engine.failure {
                    // Its worker died: once the requests it failed have let go, load it afresh.
                    if entry.uses > 0 {
                        await withCheckedContinuation { cache[model.id]?.idleWaiters.append($0) }
                    } else {
                        logger.info(
                            "Loading a model again after its engine process died",
                            metadata: ["model": "\(model.id)", "error": "\(failure.message)"])
                        unloadNow(model.id)
                    }
                    continue
                }
                guard entry.kind == kind else {
                    throw SDKError(
                        .modelIncompatible, "Model '\(model.id)' is loaded as \(entry.kind.description), not as \(kind.description)")
                }
                if kind == .imageGeneration, entry.info.localPath != model.localPath || entry.diffusionConfiguration != diffusion {
                    await unloadModel(id: model.id)  // loaded otherwise: once idle, reload
                    continue
                }
                entry.uses += 1
                entry.expiresAt = nil
                entry.stopKeepAliveTimer()
                if let keepAlive { entry.keepAlive = keepAlive }
                cache[model.id] = entry
                return ModelLease(info: entry.info, framework: entry.framework, engine: engine)
            }
            if let lease = try await load(model, as: kind, options: options, keepAlive: keepAlive ?? .default, diffusion: diffusion) {
                return lease
            }
        }
    }

    /// Runs `work` with model `id`'s engine to itself, once the requests before it are done with
    /// it. Engines that serve one request at a time (speech-to-text, voice activity, voices,
    /// image generation) take turns per model, in the order requests come: two models of a kind
    /// run at once, and none waits for another kind. The caller holds a lease on the model, so
    /// its entry stays in the cache until the turn is passed on.
    func inTurn<T>(on id: String, _ work: () async throws -> T) async throws -> T {
        if cache[id]?.serving == true {
            await withCheckedContinuation { continuation in
                if cache[id] != nil { cache[id]?.turnWaiters.append(continuation) } else { continuation.resume() }
            }
        } else {
            cache[id]?.serving = true
        }
        defer { passTurn(id) }
        try Task.checkCancellation()  // cancelled while it waited: the turn goes on to the next
        return try await work()
    }

    /// Hands model `id`'s engine to the next request waiting for it, or frees it.
    private func passTurn(_ id: String) {
        guard var entry = cache[id] else { return }
        if entry.turnWaiters.isEmpty {
            entry.serving = false
        } else {
            entry.turnWaiters.removeFirst().resume()  // still serving: the turn goes straight to it
        }
        cache[id] = entry
    }

    /// Gives back a model lent by `acquire`; once idle, its keep-alive starts.
    func release<Engine>(_ lease: ModelLease<Engine>) { release(model: lease.info.id) }

    private func release(model id: String) {
        guard var entry = cache[id] else { return }
        entry.uses -= 1
        entry.lastUsed = .now
        guard entry.uses == 0 else {
            cache[id] = entry
            return
        }
        let waiters = entry.idleWaiters
        entry.idleWaiters = []
        cache[id] = entry
        waiters.forEach { $0.resume() }
        startKeepAlive(id)
    }

    /// Starts loading `model` as `kind` into the cache after making room for it within the
    /// memory budget; the load itself starts once every model unloaded to make room (and every
    /// unload in progress) has freed its memory, as ollama waits for a runner to exit.
    /// ``settle(_:_:_:)`` records the outcome. A failure is remembered for ``loadedModels()``
    /// until a load succeeds.
    ///
    /// The request that loads the model holds it from the start and gets it lent: were the model
    /// idle between its load and its lease, a request for another configuration of it could
    /// unload it first, and two such requests would reload it for each other forever.
    private func load(
        _ model: ModelInfo, as kind: EngineKind, options: ModelLoadOptions, keepAlive: KeepAlive, diffusion: DiffusionConfiguration?
    ) async throws -> ModelLease<LoadedEngine>? {
        let loading: Task<LoadedEngine, any Error>
        do {
            let options = kind == .language ? try withDraftModel(options, for: model) : options
            let (adapter, memory, deviceMemory) = try adapter(for: model, options: options)
            try makeRoom(for: memory, model: model.id)
            let (logger, probe, models) = (logger, configuration.modelProbe, configuration.modelsDirectory)
            let processes = configuration.engineProcesses.flatMap { $0.frameworks.contains(adapter.framework) ? $0 : nil }
            let freeing = unloading.values.map(\.task)
            loading = Task {
                for unload in freeing { await unload.value }
                // A language model only for engines that load it as one (a voice asked to chat is
                // refused below); an image-generation model whole (a file, or a folder of parts).
                let file = kind == .imageGeneration ? model.isDownloaded ? model.localPath : nil : model.primaryFile
                if let probe, kind != .voiceActivity, kind != .language || adapter.supportedModalities.contains(.textToText), let file {
                    try await probe.check(file, framework: adapter.framework, modelID: model.id, modelsDirectory: models)
                }
                let started = ContinuousClock.now
                let engine =
                    if let processes {
                        try await processes.load(
                            model, as: kind, framework: adapter.framework, options: options, diffusion: diffusion, logger: logger)
                    } else {
                        try await adapter.loadEngine(
                            model, as: kind, options: options, diffusion: diffusion ?? DiffusionConfiguration(), logger: logger)
                    }
                var metadata: Logger.Metadata = [
                    "event": "\(SDKConstants.Events.modelLoaded)", "model": "\(model.id)", "framework": "\(adapter.framework.displayName)",
                    "kind": "\(kind.rawValue)", "seconds": "\((ContinuousClock.now - started).inSeconds)",
                ]
                switch engine {
                case .language(let service): metadata["context"] = "\(service.contextLength)"
                case .embedding(let service): metadata["context"] = "\(service.contextLength)"
                case .reranking(let service): metadata["context"] = "\(service.contextLength)"
                default: break
                }
                logger.info("Loaded model", metadata: metadata)
                return engine
            }
            var entry = CachedModel(
                info: model, kind: kind, framework: adapter.framework, memory: memory, deviceMemory: deviceMemory,
                diffusionConfiguration: diffusion, loading: loading, keepAlive: keepAlive
            )
            entry.uses = 1
            cache[model.id] = entry
            events.publish(.modelStateChanged(modelId: model.id, state: .loading))
        } catch {
            recordFailure(model.id, error)
            throw error
        }
        try settle(model.id, loading, await loading.result)
        guard let entry = cache[model.id], let engine = entry.engine else { return nil }
        return ModelLease(info: entry.info, framework: entry.framework, engine: engine)
    }

    /// Records the outcome of the load `loading` of model `id`, once, whichever of the requests
    /// waiting for it resumes first; rethrows its error.
    private func settle(_ id: String, _ loading: Task<LoadedEngine, any Error>, _ result: Result<LoadedEngine, any Error>) throws {
        guard cache[id]?.loading == loading else {
            _ = try result.get()
            return
        }
        switch result {
        case .success(let engine):
            cache[id]?.engine = engine
            cache[id]?.loading = nil
            cache[id]?.lastUsed = .now
            failedLoads[id] = nil
            events.publish(.modelStateChanged(modelId: id, state: .loaded))
            events.publish(.modelLoaded(modelId: id))
        case .failure(let error):
            cache[id] = nil
            recordFailure(id, error)
            throw error
        }
    }

    private func recordFailure(_ id: String, _ error: any Error) {
        failedLoads[id] = (error as? SDKError)?.message ?? "\(error)"
        events.publish(.modelStateChanged(modelId: id, state: .failed))
    }

    /// Unloads idle models, least recently used first, until `memory` more bytes fit in the
    /// budget; throws when they cannot, because the models in use hold the rest.
    private func makeRoom(for memory: Int64, model: String?) throws {
        guard memoryBudget > 0 else { return }
        // Estimates come from model files' headers: summed saturating, so a damaged one cannot overflow.
        let holding = cache.mapValues(\.heldMemory)
        var held = holding.values.reduce(Int64(0)) { $0.saturatingAdd($1) }
        let idle = cache.values.filter { $0.uses == 0 && $0.loading == nil }.sorted { $0.lastUsed < $1.lastUsed }
        for entry in idle where held.saturatingAdd(memory) > memoryBudget {
            logger.info("Unloading an idle model to make room", metadata: ["model": "\(entry.info.id)", "for": "\(model ?? "the budget")"])
            unloadNow(entry.info.id)
            held = held.saturatingSubtract(holding[entry.info.id] ?? entry.memory)
        }
        if let model, held.saturatingAdd(memory) > memoryBudget {
            throw SDKError(
                .insufficientMemory,
                "Model '\(model)' needs about \(memory >> 20) MiB; the model memory budget is \(memoryBudget >> 20) MiB and models in use hold \(held >> 20) MiB"
            )
        }
    }

    /// Starts the idle model's keep-alive: unloads it now, later, or never.
    private func startKeepAlive(_ id: String) {
        guard var entry = cache[id] else { return }
        entry.stopKeepAliveTimer()
        guard case .duration(let duration) = entry.keepAlive else {
            cache[id] = entry
            return
        }
        guard duration > .zero else {
            cache[id] = entry
            return unloadNow(id)
        }
        entry.expiresAt = Date().addingTimeInterval(entry.keepAlive.seconds ?? 0)
        let epoch = entry.timerEpoch
        entry.keepAliveTimer = Task { [weak self] in
            guard (try? await Task.sleep(for: duration)) != nil else { return }  // cancelled: superseded
            await self?.expire(id, epoch: epoch)
        }
        cache[id] = entry
    }

    private func expire(_ id: String, epoch: UInt64) {
        guard let entry = cache[id], entry.timerEpoch == epoch, entry.uses == 0, entry.loading == nil else { return }
        logger.info("Unloading an idle model whose keep-alive ran out", metadata: ["model": "\(id)"])
        unloadNow(id)
    }

    /// Drops an idle model and starts freeing its engine's memory; until that has finished the
    /// model is `unloading`, and no load starts (``unloading``).
    func unloadNow(_ id: String) {
        guard let entry = cache[id] else { return }
        events.publish(.modelStateChanged(modelId: id, state: .unloading))
        cache[id]?.stopKeepAliveTimer()
        cache[id] = nil
        let engine = entry.engine
        let previous = unloading[id]?.task
        let token = UUID()
        unloading[id] = (
            token,
            Task { [weak self] in
                await previous?.value
                await engine?.unload()
                await self?.unloaded(id, token: token)
            }
        )
    }

    /// Records that the engine of model `id` has freed its memory (the unload `token` started).
    private func unloaded(_ id: String, token: UUID) {
        if unloading[id]?.token == token { unloading[id] = nil }
        logger.info("Unloaded model", metadata: ["event": "\(SDKConstants.Events.modelUnloaded)", "model": "\(id)"])
        events.publish(.modelUnloaded(modelId: id))
        events.publish(.modelStateChanged(modelId: id, state: .notLoaded))
    }
}
