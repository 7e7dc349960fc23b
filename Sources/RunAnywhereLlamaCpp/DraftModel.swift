import CLlamaCpp
import Foundation
import RunAnywhere

/// A draft model for speculative decoding (``RunAnywhere/LLMSpeculation/draftModel(model:maxDraftTokens:)``):
/// a smaller model with the vocabulary of the model it drafts for, with a sequence of its own
/// for each of that model's, which guesses the next tokens greedily while it is confident.
///
/// Each sequence remembers the tokens in its memory, so a draft reads only what is new since
/// its last one: the tokens the model accepted or drew instead, after the common prefix.
/// `@unchecked Sendable`: created on a submitting thread, then used by the scheduler thread only.
final class DraftModel: @unchecked Sendable {
    let llama: LlamaContext
    let identity: FileIdentity
    private var api: ra_llama_api { llama.library.api }
    private let memory: OpaquePointer?
    private let batch: LlamaBatch
    /// The tokens in each sequence's memory.
    private var tokens: [[llama_token]]

    /// The least probability the draft gives its guess for the guess to be made; a less certain
    /// one ends the draft (llama.cpp's default `p_min`), since it is likely refused.
    static let minimumConfidence: Float = 0.75
    /// How many more tokens one vocabulary may have than the other (llama.cpp's limit: models of
    /// one family pad their vocabularies differently).
    static let vocabularySlack = 128

    /// Loads the GGUF at `path` to draft for `target`, with as many sequences and as long a
    /// context as it has, on the GPU where it has layers there. Throws
    /// ``RunAnywhere/ErrorCode/modelIncompatible`` when the vocabularies differ.
    init(path: String, identity: FileIdentity, target: LlamaContext, threads: Int) throws {
        let (contextLength, parallel) = (target.contextLength, target.parallel)
        llama = try LlamaContext(
            library: target.library, path: path, threads: threads, gpuLayers: target.gpuLayers > 0 ? Int(Int32.max) : 0
        ) {
            _, contextParams in
            contextParams.n_ctx = UInt32(contextLength * parallel)
            contextParams.n_seq_max = UInt32(parallel)
            contextParams.kv_unified = false
            contextParams.n_batch = UInt32(min(512, contextLength))
            contextParams.n_ubatch = contextParams.n_batch
        }
        do {
            try Self.checkVocabulary(of: llama, against: target, path: path)
        } catch {
            llama.free()
            throw error
        }
        self.identity = identity
        memory = llama.library.api.llama_get_memory(llama.context)
        batch = LlamaBatch(api: llama.library.api, capacity: llama.batchCapacity)
        tokens = Array(repeating: [], count: parallel)
    }

    /// Throws unless `draft` writes every token as `target` does (the ids both have; one may
    /// have up to ``vocabularySlack`` more) and begins and ends texts with the same tokens.
    private static func checkVocabulary(of draft: LlamaContext, against target: LlamaContext, path: String) throws {
        let name = URL(fileURLWithPath: path).lastPathComponent
        func refuse(_ why: String) -> SDKError {
            SDKError.llm(.modelIncompatible, "\(name) cannot draft for this model: its vocabulary differs (\(why))")
        }
        let (sizes, api) = ((draft.vocabularySize, target.vocabularySize), target.library.api)
        guard abs(sizes.0 - sizes.1) <= vocabularySlack else { throw refuse("\(sizes.0) tokens against \(sizes.1)") }
        guard api.llama_vocab_bos(draft.vocab) == api.llama_vocab_bos(target.vocab),
            api.llama_vocab_eos(draft.vocab) == api.llama_vocab_eos(target.vocab),
            api.llama_vocab_get_add_bos(draft.vocab) == api.llama_vocab_get_add_bos(target.vocab)
        else { throw refuse("other tokens begin or end a text") }
        for id in 0..<llama_token(min(sizes.0, sizes.1)) where draft.piece(id, special: true) != target.piece(id, special: true) {
            let (a, b) = (draft.piece(id, special: true), target.piece(id, special: true))
            throw refuse(
                "token \(id) is \(String(decoding: a, as: UTF8.self).debugDescription) there, \(String(decoding: b, as: UTF8.self).debugDescription) here"
            )
        }
    }

    /// Up to `count` tokens the draft expects after `history` in `sequence`, fewer where it is
    /// not confident (``minimumConfidence``) or writes an end of generation; none if llama.cpp
    /// fails (the sequence is then forgotten and read afresh next time).
    func draft(sequence: Int, after history: [llama_token], count: Int, threads: Int) -> [llama_token] {
        guard count > 0, !history.isEmpty else { return [] }
        let seq = llama_seq_id(sequence)
        // The last token is read again even when it is in memory: its logits are what comes next.
        let known = tokens[sequence]
        var common = 0
        while common < min(known.count, history.count - 1), known[common] == history[common] { common += 1 }
        if common < tokens[sequence].count {
            guard api.llama_memory_seq_rm(memory, seq, llama_pos(common), -1) else { return forget(sequence) }
            tokens[sequence].removeSubrange(common...)
        }
        llama.setThreads(threads)
        var start = common
        while start < history.count {
            let end = min(start + batch.capacity, history.count)
            batch.clear()
            for position in start..<end {
                batch.add(history[position], position: position, sequence: sequence, output: position == history.count - 1)
            }
            guard api.llama_decode(llama.context, batch.batch) == 0 else { return forget(sequence) }
            tokens[sequence] += history[start..<end]
            start = end
        }
        var drafts: [llama_token] = []
        var row = Int32(batch.count - 1)
        let size = llama.vocabularySize
        while let logits = api.llama_get_logits_ith(llama.context, row) {
            let (token, confidence) = Self.best(UnsafeBufferPointer(start: logits, count: size))
            guard confidence >= Self.minimumConfidence else { break }
            drafts.append(token)
            guard drafts.count < count, !api.llama_vocab_is_eog(llama.vocab, token) else { break }
            batch.clear()
            batch.add(token, position: tokens[sequence].count, sequence: sequence, output: true)
            guard api.llama_decode(llama.context, batch.batch) == 0 else {
                _ = forget(sequence)
                break
            }
            tokens[sequence].append(token)
            row = 0
        }
        return drafts
    }

    /// Clears `sequence`'s memory; no guesses.
    private func forget(_ sequence: Int) -> [llama_token] {
        _ = api.llama_memory_seq_rm(memory, llama_seq_id(sequence), -1, -1)
        tokens[sequence] = []
        return []
    }

    /// The most likely token of `logits` (the first of equals) and its probability, by the
    /// vectorized passes of `ra_logits.c`: a draft reads the whole row for each token it guesses.
    static func best(_ logits: UnsafeBufferPointer<Float>) -> (llama_token, Float) {
        guard let row = logits.baseAddress, !logits.isEmpty else { return (0, 0) }
        let top = ra_logits_argmax(row, logits.count)
        return (top, Float(exp(Double(row[Int(top)]) - ra_logits_log_sum_exp(row, logits.count))))
    }
}
