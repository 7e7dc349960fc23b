import CLlamaCpp
import Foundation
import RunAnywhere

/// A step's decode call for every running request and the prompts being read beside them, the
/// speculated tokens' verification, and sampling each request's next token.
extension BatchScheduler {
    /// Decodes the pending token of each of `decoding` (a request decoding alone by itself),
    /// with the tokens a speculating request guesses after it, and as much of the prompts of
    /// `reading` as the batch has room for, up to a chunk, in one call; then samples the next
    /// token of each that has one. Prompt tokens read this way are off the chunk grid, never
    /// reused by a request decoding alone.
    func decodeTogether(_ decoding: [Int], reading: [Int], threads: Int) {
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
    func sample(_ outputs: [(slot: Int, output: Int32)]) {
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
        let bytes = llama.piece(token)
        if let top = generation.request.logprobs {
            generation.emitter.emit(.tokenLogprob(logprob(of: token, bytes: bytes, in: row, top: top)))
        }
        generation.emitter.emitToken(bytes)
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

    func decode(threads: Int, abortingOn flag: CancellationFlag?) -> Int32 {
        prepare(threads: threads, abortingOn: flag)
        return api.llama_decode(llama.context, batch.batch)
    }

    /// Sets the threads of the next decode calls, and what aborts them, where they change: llama.cpp
    /// logs each call, and looks the abort setter up in every backend, a few percent of a small
    /// model's step.
    func prepare(threads: Int, abortingOn flag: CancellationFlag?) {
        let context = llama.context
        if threads != appliedThreads {
            llama.setThreads(threads)
            appliedThreads = threads
        }
        // The flag is kept while llama.cpp holds it, so it cannot go away under the callback.
        guard flag !== appliedAbortFlag else { return }
        appliedAbortFlag = flag
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
    func failed(_ group: [Int], _ status: Int32, readingPrompt: Bool) {
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

    /// The next token of `generation` from its logit row `row`. With a grammar, the token is
    /// drawn as if there were none and then checked against the grammar alone, which is cheap;
    /// only when the grammar refuses it is every token of the vocabulary checked and the draw
    /// made again among those it allows (as llama.cpp's own sampler does: checking the whole
    /// vocabulary at every step made decoding about twice as slow). Nil when the grammar allows
    /// no token at all.
    func next(of generation: LlamaGeneration, from row: UnsafePointer<Float>) -> llama_token? {
        guard let sampler = generation.sampler else { return nil }
        let token = sampler.sample(row, count: vocabularySize)
        guard let grammar = generation.grammar else {
            sampler.accept(token)
            return token
        }
        var candidate = llama_token_data(id: token, logit: 1, p: 0)
        let allowed = withUnsafeMutablePointer(to: &candidate) { pointer in
            var single = llama_token_data_array(data: pointer, size: 1, selected: -1, sorted: false)
            api.llama_sampler_apply(grammar, &single)
            return pointer.pointee.logit != -Float.infinity
        }
        if allowed {
            api.llama_sampler_accept(grammar, token)
            sampler.accept(token)
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
        sampler.accept(chosen)
        return chosen
    }
}
