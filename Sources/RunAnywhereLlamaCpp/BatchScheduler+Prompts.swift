import CLlamaCpp
import Foundation
import RunAnywhere

/// Reading prompts: a chunk of a prompt's tokens or an image per step, and the states of long
/// prompts restored from and saved to the prompt state store.
extension BatchScheduler {
    /// Evaluates the next chunk of the prompt in a decode call of its own; after the last one,
    /// samples the first token.
    func readPromptChunk(_ generation: LlamaGeneration, in slot: Int) {
        let start = generation.evaluated
        if let image = generation.prompt.image(at: start) { return readImage(image, of: generation, in: slot) }
        let scoring = generation.request.promptLogprobs
        let length = scoring == nil ? caches[slot].chunk : min(caches[slot].chunk, Self.scoredChunk)
        let end = min(start + length, generation.prompt.textEnd(after: start))
        let chunk = Array(generation.prompt.tokens[start..<end])
        batch.clear()
        for (offset, token) in chunk.enumerated() {
            batch.add(token, position: start + offset, sequence: slot, output: scoring != nil || offset == chunk.count - 1)
        }
        let status = decode(threads: generation.threads, abortingOn: generation.emitter.cancellation)
        guard status == 0 else { return failed([slot], status, readingPrompt: true) }
        if let top = scoring {
            // Off the fixed chunk grid, so no request that decodes alone may reuse these.
            caches[slot].appendUnreusable(chunk)
            guard let logprobs = promptLogprobs(after: start, count: chunk.count, of: generation, top: top) else {
                return self.end(slot, throwing: SDKError.llm(.generationFailed, "llama.cpp gave no logits for a prompt token"))
            }
            generation.emitter.emit(.promptLogprobs(logprobs))
        } else {
            caches[slot].appendChunk(chunk)
        }
        generation.evaluated += chunk.count
        guard !generation.isReadingPrompt else { return }
        promptRead(generation, in: slot, output: Int32(chunk.count - 1))
    }

    /// Reports the prompt read and samples the first token from the batch's output `output`.
    func promptRead(_ generation: LlamaGeneration, in slot: Int, output: Int32) {
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

    /// Puts in `slot` the saved state sharing the longest prefix with `prompt`, when that keeps
    /// more than `reused` tokens (by at least a chunk's worth); returns how many it keeps: 0 when
    /// llama.cpp refused the state after the sequence was cleared for it, nil when nothing was
    /// touched.
    func restore(for prompt: [llama_token], in slot: Int, beyond reused: Int, threads: Int) -> Int? {
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
    func save(_ slot: Int, of generation: LlamaGeneration) {
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
}
