import CLlamaCpp

/// A `llama_batch` with room for `capacity` tokens, each in one sequence; freed with this object.
/// Used by one thread at a time: a model's scheduler thread, or an embedding call.
final class LlamaBatch {
    private let api: ra_llama_api
    private(set) var batch: llama_batch
    let capacity: Int

    init(api: ra_llama_api, capacity: Int) {
        self.api = api
        self.capacity = capacity
        self.batch = api.llama_batch_init(Int32(capacity), 0, 1)
    }

    deinit { api.llama_batch_free(batch) }

    /// Tokens in the batch.
    var count: Int { Int(batch.n_tokens) }

    /// Empties the batch.
    func clear() { batch.n_tokens = 0 }

    /// Adds `token` at `position` of sequence `sequence`; `output` asks for its logits.
    func add(_ token: llama_token, position: Int, sequence: Int, output: Bool) {
        let index = Int(batch.n_tokens)
        precondition(index < capacity, "the batch is full")
        batch.token[index] = token
        batch.pos[index] = llama_pos(position)
        batch.n_seq_id[index] = 1
        batch.seq_id[index]![0] = llama_seq_id(sequence)
        batch.logits[index] = output ? 1 : 0
        batch.n_tokens += 1
    }
}
