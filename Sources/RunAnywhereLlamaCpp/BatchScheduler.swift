import CLlamaCpp
import Foundation
import RunAnywhere

/// Runs every generation of one loaded model on one engine thread, continuously batched: each
/// step advances every request by a prompt chunk or a token, so a new request starts within a
/// step instead of waiting for the others to finish, and a step stays short however many
/// requests arrive at once. Requests wait in a bounded queue while every sequence is taken.
///
/// Every request's next token and, beside them, up to a chunk of the prompts being read are
/// evaluated together in one decode call per step, as llama.cpp's server does, which is where
/// batching gains throughput; a request alone reads its prompt in calls of its own.
///
/// **Prompt log-probabilities.** A request that asks for its prompt's
/// (``RunAnywhere/LLMEngineRequest/promptLogprobs``) reads the whole prompt in calls of its own,
/// reusing nothing cached, in chunks of at most ``scoredChunk`` tokens that each output a logit
/// row per token: row i gives token i + 1's log-probability.
///
/// **Reproducibility.** A request that promises reproducible output (seeded; greedy too on a
/// model loaded reproducible) shares the batch like any other when the context is
/// batch-invariant (``LlamaBatchInvariance``): its numbers are then the same whatever runs
/// beside it, and it reuses any cached prefix. Elsewhere llama.cpp's kernels round differently
/// for different batch shapes (see ``PromptCache``), so such a request decodes in calls of its
/// own: prompt chunks on the fixed chunk grid, then one token per call, in its own sequence's KV
/// stream, where what else runs meanwhile changes nothing of its numbers.
///
/// **Speculation.** A request that speculates (``RunAnywhere/LLMSpeculation``) adds tokens it
/// guesses (``PromptLookup``, or a ``DraftModel``) after its pending token, each with its logits,
/// and keeps those its sampler would have drawn anyway; how many a step adds is what the measured
/// cost of bigger calls (``DecodeCost``) and the request's own record of kept guesses make
/// worthwhile. Draft models are loaded and freed by ``DraftModelCache``.
///
/// **LoRA adapters.** llama.cpp applies adapters to a whole context, not to one sequence, so a
/// step runs only the requests with one set of adapters (``RunAnywhere/LoRAAdapter``), taking
/// the sets in turn when requests with different ones run at once; the base model stays loaded
/// once. A sequence's memory is reused only by a request with the adapters it was computed with
/// (the same files, unchanged, at the same scales). The adapters themselves are loaded and
/// freed by ``LoRAAdapterCache``.
final class BatchScheduler: @unchecked Sendable {
    let llama: LlamaContext
    private let queueLimit: Int
    let memory: OpaquePointer?
    var api: ra_llama_api { llama.library.api }
    let vocabularySize: Int
    /// Whether a step's sampling is spread over the cores: with fewer than 4, it only takes one
    /// from the server's own work (measured on 2 cores: 1.1× faster one after another).
    let samplesInParallel = ProcessInfo.processInfo.activeProcessorCount >= 4

    // Shared with submitting threads, under `lock`.
    private let lock = NSCondition()
    private var waiting: [LlamaGeneration] = []
    private var running = 0
    private var stopping = false
    /// Given once the scheduler thread has ended every generation and stopped using the model.
    let stopped = CompletionSignal()

    // The scheduler thread's own.
    var slots: [LlamaGeneration?]
    var caches: [PromptCache]
    private var lastUsed: [UInt64]
    private var clock: UInt64 = 0
    let batch: LlamaBatch
    /// What decode calls of each size take here, which decides how much speculating requests guess.
    var cost: DecodeCost
    /// Where long prompts' states are saved across restarts, if anywhere.
    let states: PromptStateStore?
    /// The adapters each sequence's memory was computed with.
    private var cachedAdapters: [[LoRAAdapterCache.Applied]]
    let adapters: LoRAAdapterCache
    /// The adapters the context applies now, and which set of those waiting takes the next step.
    private var appliedAdapters: [LoRAAdapterCache.Applied] = []
    private var adapterTurn = 0
    /// Whether a request with adapters ended since idle adapters were last freed.
    private var adaptersReleased = false
    /// The threads and the abort flag the context was last given (``prepare(threads:abortingOn:)``).
    var appliedThreads: Int?
    var appliedAbortFlag: CancellationFlag?
    /// The draft models requests speculate with.
    let drafts: DraftModelCache
    /// Whether a request with a draft model ended since idle ones were last freed.
    private var draftsReleased = false

    /// Starts the scheduler thread for `llama`'s sequences, saving long prompts' states in
    /// `states` when given.
    init(llama: LlamaContext, queueLimit: Int, states: PromptStateStore? = nil) {
        self.states = states
        self.llama = llama
        self.queueLimit = max(0, queueLimit)
        self.memory = llama.library.api.llama_get_memory(llama.context)
        vocabularySize = llama.vocabularySize
        slots = Array(repeating: nil, count: llama.parallel)
        caches = Array(repeating: PromptCache(chunk: llama.promptChunk), count: llama.parallel)
        lastUsed = Array(repeating: 0, count: llama.parallel)
        cachedAdapters = Array(repeating: [], count: llama.parallel)
        adapters = LoRAAdapterCache(library: llama.library, model: llama.model)
        drafts = DraftModelCache(target: llama)
        batch = LlamaBatch(api: llama.library.api, capacity: llama.batchCapacity)
        cost = DecodeCost(capacity: llama.batchCapacity)
        let thread = Thread { [self] in run() }
        thread.name = "llama.cpp scheduler"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Loads the adapters `generation` applies and its draft model, and queues it; throws
    /// ``RunAnywhere/ErrorCode/busy`` when every sequence is taken and the queue is full.
    func submit(_ generation: LlamaGeneration) throws {
        generation.adapters = try adapters.pin(generation.request.loraAdapters)
        do {
            if let path = generation.draftPath { generation.drafter = try drafts.pin(path: path, threads: generation.threads) }
        } catch {
            adapters.unpin(generation.adapters)
            throw error
        }
        lock.lock()
        defer { lock.unlock() }
        do {
            guard !stopping else { throw SDKError.llm(.generationFailed, "The model is being unloaded") }
            guard running + waiting.count < slots.count + queueLimit else {
                throw SDKError.llm(.busy, "All \(slots.count) generation slots are busy and \(waiting.count) requests are waiting")
            }
        } catch {
            adapters.unpin(generation.adapters)
            generation.drafter.map(drafts.unpin)
            throw error
        }
        waiting.append(generation)
        lock.signal()
    }

    /// Generations waiting for a sequence.
    var queued: Int {
        lock.lock()
        defer { lock.unlock() }
        return waiting.count
    }

    /// Ends the scheduler thread: waiting and running generations end as cancelled.
    func stop() {
        lock.lock()
        stopping = true
        lock.signal()
        lock.unlock()
    }

    private func run() {
        while true {
            if adaptersReleased { freeIdleAdapters() }
            if draftsReleased {
                draftsReleased = false
                drafts.takeIdle().forEach { $0.llama.free() }
            }
            lock.lock()
            while !stopping, waiting.isEmpty, running == 0 { lock.wait() }
            if stopping {
                let abandoned = waiting
                waiting = []
                lock.unlock()
                abandoned.forEach(cancel)
                slots.indices.forEach { end($0, .cancelled) }
                stopped.signal()
                return
            }
            // A queued request whose client went away leaves the queue within a step.
            var withdrawn: [LlamaGeneration] = []
            waiting = waiting.filter { generation in
                guard generation.emitter.isCancelled else { return true }
                withdrawn.append(generation)
                return false
            }
            var admitted: [(LlamaGeneration, Int)] = []
            while let next = waiting.first, let slot = freeSlot(for: next) {
                waiting.removeFirst()
                slots[slot] = next
                running += 1
                admitted.append((next, slot))
            }
            lock.unlock()
            withdrawn.forEach(cancel)
            admitted.forEach { begin($0.0, in: $0.1) }
            step()
            for case let generation? in slots { generation.emitter.flush() }
        }
    }

    /// Ends a generation that never got a sequence.
    private func cancel(_ generation: LlamaGeneration) {
        unpin(generation)
        generation.emitter.emit(.finished(.cancelled))
        generation.emitter.finish()
    }

    /// Whether `generation` may keep what its sequence's memory holds of its prompt: not when it
    /// asked for the prompt's log-probabilities, which need every prompt token's logits.
    private func reusesCache(_ generation: LlamaGeneration) -> Bool {
        generation.request.reuseCache && generation.request.promptLogprobs == nil
    }

    /// The free sequence whose memory shares the longest prefix with `generation`'s prompt
    /// (computed with its adapters), least recently used among equals; nil when all are taken.
    private func freeSlot(for generation: LlamaGeneration) -> Int? {
        func shared(_ slot: Int) -> Int {
            cachedAdapters[slot] == generation.adapters ? caches[slot].commonPrefix(of: generation.prompt.tokens) : 0
        }
        return slots.indices.filter { slots[$0] == nil }.max { a, b in
            let (x, y) = (shared(a), shared(b))
            return x != y ? x < y : lastUsed[a] > lastUsed[b]
        }
    }

    /// Keeps what the request may reuse of the sequence's memory and prepares its sampler.
    private func begin(_ generation: LlamaGeneration, in slot: Int) {
        let adapters = generation.adapters
        var cache = caches[slot]
        var reused =
            switch (reusesCache(generation) && cachedAdapters[slot] == adapters, generation.decodesAlone) {
            case (false, _): 0
            case (true, true): cache.reusablePrefix(of: generation.prompt.tokens, threads: generation.threads)
            case (true, false): cache.commonPrefix(of: generation.prompt.tokens)
            }
        // Saved states are the base model's.
        if reusesCache(generation), adapters.isEmpty, !generation.decodesAlone, generation.prompt.images.isEmpty,
            let restored = restore(for: generation.prompt.tokens, in: slot, beyond: reused, threads: generation.threads)
        {
            cache = caches[slot]
            reused = restored
        }
        // An image is evaluated whole: a prefix that ends inside one keeps none of it.
        if let image = generation.prompt.images.first(where: { $0.start < reused && reused < $0.start + $0.count }) {
            reused = image.start
        }
        if reused < cache.count, !api.llama_memory_seq_rm(memory, llama_seq_id(slot), llama_pos(reused), -1) {
            _ = api.llama_memory_seq_rm(memory, llama_seq_id(slot), -1, -1)
            reused = 0
        }
        cache.truncate(to: reused, threads: generation.threads)
        caches[slot] = cache
        cachedAdapters[slot] = adapters
        generation.reused = reused
        generation.evaluated = reused
        generation.promptStarted = .now
        generation.sampler = LlamaTokenSampler(
            generation.request.sampling, prompt: generation.prompt.tokens, api: api, vocab: llama.vocab,
            vocabularySize: vocabularySize, contextLength: llama.contextLength)
        // Checked when the request was submitted, so it parses here too.
        generation.grammar = generation.request.grammar.flatMap { llama.grammarSampler($0) }
        clock += 1
        lastUsed[slot] = clock
    }

    /// One step: cancelled requests leave, every prompt advances, and every generating request
    /// gets its next token.
    private func step() {
        for slot in slots.indices where slots[slot]?.emitter.isCancelled == true { end(slot, .cancelled) }
        let adapters = adaptersForThisStep()
        var reading: [Int] = []
        var decoding: [Int] = []
        for slot in slots.indices {
            guard let generation = slots[slot], generation.adapters == adapters else { continue }
            if generation.isReadingPrompt {
                if generation.readsPromptAlone || generation.prompt.image(at: generation.evaluated) != nil {
                    readPromptChunk(generation, in: slot)
                } else {
                    reading.append(slot)
                }
            } else if generation.pending != nil {
                if generation.decodesAlone {
                    decodeTogether([slot], reading: [], threads: generation.threads)
                } else {
                    decoding.append(slot)
                }
            }
        }
        if decoding.isEmpty, reading.count == 1, let slot = reading.first, let generation = slots[slot] {
            readPromptChunk(generation, in: slot)
        } else if let first = (decoding + reading).first, let generation = slots[first] {
            decodeTogether(decoding, reading: reading, threads: generation.threads)
        }
    }

    /// The adapters of the requests this step runs, applied to the context: the only set there
    /// is, or the next in turn when requests with different sets run.
    private func adaptersForThisStep() -> [LoRAAdapterCache.Applied] {
        var sets: [[LoRAAdapterCache.Applied]] = []
        for case let generation? in slots where !sets.contains(generation.adapters) {
            sets.append(generation.adapters)
        }
        guard !sets.isEmpty else { return appliedAdapters }
        if sets.count > 1 { adapterTurn += 1 }
        let chosen = sets[adapterTurn % sets.count]
        if chosen != appliedAdapters {
            var pointers = adapters.pointers(chosen)
            var scales = chosen.map(\.scale)
            let status = pointers.withUnsafeMutableBufferPointer { adapters in
                scales.withUnsafeMutableBufferPointer { scales in
                    api.llama_set_adapters_lora(llama.context, adapters.baseAddress, adapters.count, scales.baseAddress)
                }
            }
            if status != 0 {
                for slot in slots.indices where slots[slot]?.adapters == chosen {
                    end(slot, throwing: SDKError.llm(.generationFailed, "llama.cpp could not apply the LoRA adapters (status \(status))"))
                }
                return appliedAdapters
            }
            appliedAdapters = chosen
        }
        return chosen
    }

    /// Frees the adapters no request uses beyond those kept (``LoRAAdapterCache/idleKept``),
    /// first taking them off the context if it applies them.
    private func freeIdleAdapters() {
        adaptersReleased = false
        let idle = adapters.takeIdle()
        guard !idle.isEmpty else { return }
        if appliedAdapters.contains(where: { idle[$0.identity] != nil }) {
            _ = api.llama_set_adapters_lora(llama.context, nil, 0, nil)
            appliedAdapters = []
        }
        adapters.free(idle)
    }

    func end(_ slot: Int, _ stop: LLMEngineStop) {
        if let generation = slots[slot], stop != .cancelled { save(slot, of: generation) }
        guard let generation = release(slot) else { return }
        if generation.draftLimit > 0 { generation.emitter.emit(.speculated(drafted: generation.drafted, accepted: generation.accepted)) }
        generation.emitter.emit(.finished(stop))
        generation.emitter.finish()
    }

    func end(_ slot: Int, throwing error: any Error) {
        release(slot)?.emitter.finish(throwing: error)
    }

    /// Frees `slot` for the next request, keeping its memory for prefix reuse.
    private func release(_ slot: Int) -> LlamaGeneration? {
        guard let generation = slots[slot] else { return nil }
        generation.sampler?.free()
        if let grammar = generation.grammar { api.llama_sampler_free(grammar) }
        generation.sampler = nil
        generation.grammar = nil
        slots[slot] = nil
        unpin(generation)
        lock.lock()
        running -= 1
        lock.unlock()
        return generation
    }

    /// Lets go of the adapters and the draft model of a generation that ended.
    private func unpin(_ generation: LlamaGeneration) {
        if !generation.adapters.isEmpty {
            adapters.unpin(generation.adapters)
            adaptersReleased = true
        }
        if let drafter = generation.drafter {
            drafts.unpin(drafter)
            draftsReleased = true
        }
    }
}
