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
    private let llama: LlamaContext
    private let queueLimit: Int
    private let memory: OpaquePointer?
    private var api: ra_llama_api { llama.library.api }
    private let vocabularySize: Int
    /// Whether a step's sampling is spread over the cores: with fewer than 4, it only takes one
    /// from the server's own work (measured on 2 cores: 1.1× faster one after another).
    private let samplesInParallel = ProcessInfo.processInfo.activeProcessorCount >= 4

    // Shared with submitting threads, under `lock`.
    private let lock = NSCondition()
    private var waiting: [LlamaGeneration] = []
    private var running = 0
    private var stopping = false
    /// Given once the scheduler thread has ended every generation and stopped using the model.
    let stopped = CompletionSignal()

    // The scheduler thread's own.
    private var slots: [LlamaGeneration?]
    private var caches: [PromptCache]
    private var lastUsed: [UInt64]
    private var clock: UInt64 = 0
    private let batch: LlamaBatch
    /// What decode calls of each size take here, which decides how much speculating requests guess.
    private var cost: DecodeCost
    /// Where long prompts' states are saved across restarts, if anywhere.
    private let states: PromptStateStore?
    /// The adapters each sequence's memory was computed with.
    private var cachedAdapters: [[LoRAAdapterCache.Applied]]
    let adapters: LoRAAdapterCache
    /// The adapters the context applies now, and which set of those waiting takes the next step.
    private var appliedAdapters: [LoRAAdapterCache.Applied] = []
    private var adapterTurn = 0
    /// Whether a request with adapters ended since idle adapters were last freed.
    private var adaptersReleased = false
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
        }
    }

    /// Ends a generation that never got a sequence.
    private func cancel(_ generation: LlamaGeneration) {
        unpin(generation)
        generation.emitter.emit(.finished(.cancelled))
        generation.emitter.finish()
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
            switch (generation.request.reuseCache && cachedAdapters[slot] == adapters, generation.decodesAlone) {
            case (false, _): 0
            case (true, true): cache.reusablePrefix(of: generation.prompt.tokens, threads: generation.threads)
            case (true, false): cache.commonPrefix(of: generation.prompt.tokens)
            }
        // Saved states are the base model's.
        if generation.request.reuseCache, adapters.isEmpty, !generation.decodesAlone, generation.prompt.images.isEmpty,
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
        generation.sampler = LlamaTokenSampler(generation.request.sampling, api: api)
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
                if generation.decodesAlone || generation.prompt.image(at: generation.evaluated) != nil {
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

    /// Evaluates the next chunk of the prompt in a decode call of its own; after the last one,
    /// samples the first token.
    private func readPromptChunk(_ generation: LlamaGeneration, in slot: Int) {
        let start = generation.evaluated
        if let image = generation.prompt.image(at: start) { return readImage(image, of: generation, in: slot) }
        let end = min(start + caches[slot].chunk, generation.prompt.textEnd(after: start))
        let chunk = Array(generation.prompt.tokens[start..<end])
        batch.clear()
        for (offset, token) in chunk.enumerated() {
            batch.add(token, position: start + offset, sequence: slot, output: offset == chunk.count - 1)
        }
        let status = decode(threads: generation.threads, abortingOn: generation.emitter.cancellation)
        guard status == 0 else { return failed([slot], status, readingPrompt: true) }
        caches[slot].appendChunk(chunk)
        generation.evaluated += chunk.count
        guard !generation.isReadingPrompt else { return }
        promptRead(generation, in: slot, output: Int32(chunk.count - 1))
    }

    /// Reports the prompt read and samples the first token from the batch's output `output`.
    private func promptRead(_ generation: LlamaGeneration, in slot: Int, output: Int32) {
        if !generation.request.images.isEmpty {
            generation.emitter.emit(
                .imagesEncoded(
                    count: generation.imagesEncoded, tokens: generation.prompt.imageTokenCount, seconds: generation.imageEncodeSeconds
                ))
        }
        generation.emitter.emit(
            .promptProcessed(
                evaluated: generation.prompt.tokens.count - generation.reused, cached: generation.reused,
                seconds: (ContinuousClock.now - generation.promptStarted).inSeconds
            ))
        sample([(slot, output)])
    }

    /// Encodes an image of the prompt and writes its embeddings into the sequence's memory, as
    /// one step. Its placeholders join the cache, never reusable by a request decoding alone.
    private func readImage(_ image: LlamaImageChunk, of generation: LlamaGeneration, in slot: Int) {
        guard let vision = llama.vision else {
            return end(slot, throwing: SDKError.llm(.modelIncompatible, "The model has no vision projector"))
        }
        prepare(threads: generation.threads, abortingOn: generation.emitter.cancellation)
        let (status, seconds) = vision.evaluate(image, in: llama, position: image.start, sequence: slot, batch: caches[slot].chunk)
        guard status == 0 else { return failed([slot], status, readingPrompt: true) }
        caches[slot].appendUnreusable(Array(generation.prompt.tokens[image.start..<image.start + image.count]))
        generation.evaluated += image.count
        generation.imagesEncoded += 1
        generation.imageEncodeSeconds += seconds
    }

    /// Decodes the pending token of each of `decoding` (a request decoding alone by itself),
    /// with the tokens a speculating request guesses after it, and as much of the prompts of
    /// `reading` as the batch has room for, up to a chunk, in one call; then samples the next
    /// token of each that has one. Prompt tokens read this way are off the chunk grid, never
    /// reused by a request decoding alone.
    private func decodeTogether(_ decoding: [Int], reading: [Int], threads: Int) {
        batch.clear()
        var steps: [(slot: Int, rows: [Int], drafts: [llama_token])] = []
        for slot in decoding {
            guard let token = slots[slot]?.pending else { continue }
            steps.append((slot, [batch.count], []))
            batch.add(token, position: caches[slot].count, sequence: slot, output: true)
        }
        // Each speculating request adds the guesses the measured cost of a bigger call pays for.
        var expected = Double(steps.count)
        for i in steps.indices {
            let slot = steps[i].slot
            guard let generation = slots[slot], generation.draftLimit > 0, let pending = generation.pending else { continue }
            let position = caches[slot].count + 1
            let room = min(
                generation.draftLimit, batch.capacity - batch.count, llama.contextLength - 1 - position,
                generation.request.maxNewTokens - generation.generated - 1)
            let kept = generation.keepChance
            let drafts: [llama_token]
            if let drafter = generation.drafter {
                // A draft model's guesses take time to make: only as many as the call pays for.
                let worth = cost.guesses(available: room, rows: batch.count, tokens: expected, kept: kept)
                let made = drafter.draft(sequence: slot, after: caches[slot].tokens + [pending], count: worth, threads: generation.threads)
                drafts = Array(made.prefix { $0 < vocabularySize })  // a larger draft vocabulary's extra ids are no guesses here
            } else {
                let found = PromptLookup.draft(after: caches[slot].tokens + [pending], count: room)
                drafts = Array(found.prefix(cost.guesses(available: found.count, rows: batch.count, tokens: expected, kept: kept)))
            }
            for (offset, token) in drafts.enumerated() {
                steps[i].rows.append(batch.count)
                batch.add(token, position: position + offset, sequence: slot, output: true)
            }
            steps[i].drafts = drafts
            generation.drafted += drafts.count
            expected += (1 - pow(kept, Double(drafts.count + 1))) / (1 - kept) - 1
        }
        var read: [(slot: Int, tokens: ArraySlice<llama_token>, output: Int?)] = []
        var room = min(batch.capacity - batch.count, llama.promptChunk)
        for slot in reading where room > 0 {
            guard let generation = slots[slot] else { continue }
            let start = generation.evaluated
            let end = min(start + room, generation.prompt.textEnd(after: start))
            let last = end == generation.prompt.tokens.count
            for position in start..<end {
                batch.add(generation.prompt.tokens[position], position: position, sequence: slot, output: last && position == end - 1)
            }
            read.append((slot, generation.prompt.tokens[start..<end], last ? batch.count - 1 : nil))
            room -= end - start
        }
        let started = ContinuousClock.now
        let status = decode(threads: threads, abortingOn: nil)
        if status == 0, read.isEmpty { cost.record(rows: batch.count, seconds: (ContinuousClock.now - started).inSeconds) }
        guard status == 0 else {
            failed(steps.map(\.slot), status, readingPrompt: false)
            return failed(read.map(\.slot), status, readingPrompt: true)
        }
        var outputs: [(slot: Int, output: Int32)] = []
        for (slot, rows, drafts) in steps {
            guard let generation = slots[slot], let token = generation.pending else { continue }
            caches[slot].appendGenerated(token)
            generation.pending = nil
            if drafts.isEmpty { outputs.append((slot, Int32(rows[0]))) }
        }
        sample(outputs)
        for (slot, rows, drafts) in steps where !drafts.isEmpty { verify(slot, rows: rows, drafts: drafts) }
        for (slot, tokens, output) in read {
            guard let generation = slots[slot] else { continue }
            caches[slot].appendUnreusable(Array(tokens))
            generation.evaluated += tokens.count
            if let output { promptRead(generation, in: slot, output: Int32(output)) }
        }
    }

    /// Samples `slot`'s tokens from its batch rows `rows` in turn: the row of its pending token,
    /// then one for each of its guesses `drafts`. A guess that is the token drawn is kept (its
    /// keys and values are already in memory, and its row holds the logits after it); the first
    /// that is not ends the step, with the token drawn instead pending, and the memory of the
    /// guesses after it is forgotten. The sampler draws once per token, as without guesses.
    private func verify(_ slot: Int, rows: [Int], drafts: [llama_token]) {
        guard let generation = slots[slot] else { return }
        var kept = 0
        for (index, row) in rows.enumerated() {
            let choice = api.llama_get_logits_ith(llama.context, Int32(row)).map { choose(for: generation, from: $0) } ?? .noLogits
            settle(slot, choice)
            guard slots[slot] === generation, case .token(let token) = choice, index < drafts.count, token == drafts[index] else { break }
            caches[slot].appendGenerated(token)
            generation.pending = nil
            generation.accepted += 1
            kept += 1
        }
        if kept < drafts.count {
            generation.rejections += 1
            _ = api.llama_memory_seq_rm(memory, llama_seq_id(slot), llama_pos(caches[slot].count), -1)
        }
    }

    /// Samples the next token of each of `outputs` (a sequence and its output in the batch) and
    /// emits it, or ends the generation at an end-of-generation token, at its token budget or a
    /// full context. Where there are cores to spare, several are sampled at once: each reads its
    /// own logit row with its own sampler, so a step's host work does not grow stream by stream.
    private func sample(_ outputs: [(slot: Int, output: Int32)]) {
        // One at a time: the first synchronizes the context with the device.
        nonisolated(unsafe) let rows = outputs.map { api.llama_get_logits_ith(llama.context, $0.output).map { UnsafePointer<Float>($0) } }
        var choices = [Choice](repeating: .noLogits, count: outputs.count)
        choices.withUnsafeMutableBufferPointer { buffer in
            // Each thread writes its own entry and reads its own row and generation.
            nonisolated(unsafe) let choices = buffer
            let choose: @Sendable (Int) -> Void = { i in
                if let generation = self.slots[outputs[i].slot], let row = rows[i] { choices[i] = self.choose(for: generation, from: row) }
            }
            if outputs.count >= 4, samplesInParallel {
                DispatchQueue.concurrentPerform(iterations: outputs.count, execute: choose)
            } else {
                (0..<outputs.count).forEach(choose)
            }
        }
        for (choice, (slot, _)) in zip(choices, outputs) { settle(slot, choice) }
    }

    /// What sampling made of a generation's logit row.
    private enum Choice {
        case token(llama_token)
        case endOfGeneration
        case refusedByGrammar
        case noLogits
    }

    /// Samples `generation`'s next token from `row` and emits its text; touches nothing but
    /// the generation, so that generations can be sampled on several threads at once.
    private func choose(for generation: LlamaGeneration, from row: UnsafePointer<Float>) -> Choice {
        guard let token = next(of: generation, from: row) else { return .refusedByGrammar }
        if api.llama_vocab_is_eog(llama.vocab, token) { return .endOfGeneration }
        generation.emitter.emitToken(llama.piece(token))
        return .token(token)
    }

    /// Ends the generation of `slot` or keeps its token for the next step, after ``choose(for:from:)``.
    private func settle(_ slot: Int, _ choice: Choice) {
        guard let generation = slots[slot] else { return }
        switch choice {
        case .noLogits:
            end(slot, throwing: SDKError.llm(.generationFailed, "llama.cpp gave no logits for the token to sample"))
        case .refusedByGrammar:
            end(slot, throwing: SDKError.llm(.generationFailed, "The grammar allows none of the model's tokens here"))
        case .endOfGeneration:
            end(slot, .endOfGeneration)
        case .token(let token):
            generation.generated += 1
            if generation.generated >= generation.request.maxNewTokens || caches[slot].count + 1 >= llama.contextLength {
                return end(slot, .length)
            }
            generation.pending = token
        }
    }

    private func decode(threads: Int, abortingOn flag: CancellationFlag?) -> Int32 {
        prepare(threads: threads, abortingOn: flag)
        return api.llama_decode(llama.context, batch.batch)
    }

    /// Sets the threads of the next decode calls, and what aborts them.
    private func prepare(threads: Int, abortingOn flag: CancellationFlag?) {
        let context = llama.context
        let threads = Int32(clamping: threads)  // ModelLoadOptions and LLMGenerationOptions keep it to 1...512
        api.llama_set_n_threads(context, threads, threads)
        if let flag {
            // llama.cpp polls this between graph nodes, so even a long prompt chunk stops promptly.
            api.llama_set_abort_callback(
                context,
                { data in
                    guard let data else { return false }
                    return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isCancelled
                }, Unmanaged.passUnretained(flag).toOpaque())
        } else {
            api.llama_set_abort_callback(context, nil, nil)
        }
    }

    /// A failed decode: the sequences' memory is forgotten and their generations end.
    private func failed(_ group: [Int], _ status: Int32, readingPrompt: Bool) {
        for slot in group {
            _ = api.llama_memory_seq_rm(memory, llama_seq_id(slot), -1, -1)
            caches[slot].clear()
            switch status {
            case 2: end(slot, .cancelled)
            case 1 where !readingPrompt: end(slot, .length)
            default:
                let what = readingPrompt ? "evaluate the prompt" : "decode"
                end(slot, throwing: SDKError.llm(.generationFailed, "llama.cpp could not \(what) (llama_decode returned \(status))"))
            }
        }
    }

    /// Puts in `slot` the saved state sharing the longest prefix with `prompt`, when that keeps
    /// more than `reused` tokens (by at least a chunk's worth); returns how many it keeps: 0 when
    /// llama.cpp refused the state after the sequence was cleared for it, nil when nothing was
    /// touched.
    private func restore(for prompt: [llama_token], in slot: Int, beyond reused: Int, threads: Int) -> Int? {
        guard let states, let (entry, common) = states.best(for: prompt) else { return nil }
        let keep = min(common, prompt.count - 1)
        guard keep >= reused + caches[slot].chunk, let state = states.load(entry) else { return nil }
        let sequence = llama_seq_id(slot)
        _ = api.llama_memory_seq_rm(memory, sequence, -1, -1)
        caches[slot].clear()
        let read = state.withUnsafeBytes { bytes in
            api.llama_state_seq_set_data(llama.context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, sequence)
        }
        guard read == state.count, api.llama_memory_seq_rm(memory, sequence, llama_pos(keep), -1) else {
            _ = api.llama_memory_seq_rm(memory, sequence, -1, -1)
            states.forget(entry, because: "llama.cpp could not restore it into this context")
            return 0
        }
        var cache = PromptCache(chunk: caches[slot].chunk)
        cache.appendUnreusable(entry.tokens)
        cache.truncate(to: keep, threads: threads)
        caches[slot] = cache
        return keep
    }

    /// Saves `slot`'s state when its sequence is long enough to be worth restoring after a
    /// restart; anything beyond its tokens (guesses not yet forgotten) is forgotten first. A
    /// request that asked not to reuse cached prompts is not written to disk either.
    private func save(_ slot: Int, of generation: LlamaGeneration) {
        guard let states, generation.request.reuseCache, !generation.decodesAlone, generation.prompt.images.isEmpty,
            generation.adapters.isEmpty,
            caches[slot].count >= states.settings.minTokens
        else { return }
        let sequence = llama_seq_id(slot)
        _ = api.llama_memory_seq_rm(memory, sequence, llama_pos(caches[slot].count), -1)
        var state = Data(count: api.llama_state_seq_get_size(llama.context, sequence))
        let written = state.withUnsafeMutableBytes { bytes in
            api.llama_state_seq_get_data(llama.context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, sequence)
        }
        guard written > 0 else { return }
        states.save(tokens: caches[slot].tokens, state: state.prefix(written))
    }

    private func end(_ slot: Int, _ stop: LLMEngineStop) {
        if let generation = slots[slot], stop != .cancelled { save(slot, of: generation) }
        guard let generation = release(slot) else { return }
        if generation.draftLimit > 0 { generation.emitter.emit(.speculated(drafted: generation.drafted, accepted: generation.accepted)) }
        generation.emitter.emit(.finished(stop))
        generation.emitter.finish()
    }

    private func end(_ slot: Int, throwing error: any Error) {
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

    /// The next token of `generation` from its logit row `row`. With a grammar, the token is
    /// drawn as if there were none and then checked against the grammar alone, which is cheap;
    /// only when the grammar refuses it is every token of the vocabulary checked and the draw
    /// made again among those it allows (as llama.cpp's own sampler does: checking the whole
    /// vocabulary at every step made decoding about twice as slow). Nil when the grammar allows
    /// no token at all.
    private func next(of generation: LlamaGeneration, from row: UnsafePointer<Float>) -> llama_token? {
        guard let sampler = generation.sampler else { return nil }
        let token = sampler.sample(row, count: vocabularySize)
        guard let grammar = generation.grammar else { return token }
        var candidate = llama_token_data(id: token, logit: 1, p: 0)
        let allowed = withUnsafeMutablePointer(to: &candidate) { pointer in
            var single = llama_token_data_array(data: pointer, size: 1, selected: -1, sorted: false)
            api.llama_sampler_apply(grammar, &single)
            return pointer.pointee.logit != -Float.infinity
        }
        if allowed {
            api.llama_sampler_accept(grammar, token)
            return token
        }
        var candidates = (0..<vocabularySize).map { llama_token_data(id: llama_token($0), logit: row[$0], p: 0) }
        candidates.withUnsafeMutableBufferPointer { buffer in
            var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
            api.llama_sampler_apply(grammar, &array)
        }
        guard candidates.contains(where: { $0.logit != -Float.infinity }), let chosen = sampler.sample(among: &candidates) else {
            return nil
        }
        api.llama_sampler_accept(grammar, chosen)
        return chosen
    }
}
