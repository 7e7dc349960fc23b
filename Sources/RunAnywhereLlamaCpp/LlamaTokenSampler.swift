import CLlamaCpp
import RunAnywhere

/// A request's sampler, reading only what it needs of a logit row: greedy takes the row's
/// argmax itself; a top-k draw keeps the row's k best tokens in one vectorized pass and hands
/// only those to llama.cpp's sampler chain (top-k, top-p, temperature, then a seeded draw). The
/// draw is the chain's over the same tokens as a whole-row draw, so a seed gives the same
/// answer; only a draw over the whole vocabulary (top-k off) gives the chain every token.
///
/// Copying a 49,152-token row into llama.cpp's candidate array and sorting it cost more than
/// the decode of a small model on a GPU; this keeps the per-token work to one read of the row.
/// One instance belongs to one generation; different instances may sample at once on
/// different threads (each has its own scratch and chain; the row is only read).
final class LlamaTokenSampler {
    private let api: ra_llama_api
    /// Nil for greedy, which needs no chain.
    private let chain: UnsafeMutablePointer<llama_sampler>?
    /// The tokens a draw chooses among; 0: the whole vocabulary.
    private let topK: Int
    private var candidates: [llama_token_data] = []

    /// Greedy at temperature 0; otherwise top-k, top-p, temperature, then a draw seeded with
    /// `sampling.seed` (a random seed without one).
    init(_ sampling: LLMSampling, api: ra_llama_api) {
        self.api = api
        guard sampling.temperature > 0 else {
            chain = nil
            topK = 0
            return
        }
        let chain = api.llama_sampler_chain_init(api.llama_sampler_chain_default_params())!
        // A top-k beyond any vocabulary (a client may send 1e18) keeps every token, as Int32.max does.
        let topK = sampling.topK > 0 ? Int(clamping: min(sampling.topK, Int(Int32.max))) : 0
        if topK > 0 { api.llama_sampler_chain_add(chain, api.llama_sampler_init_top_k(Int32(topK))) }
        if sampling.topP < 1 { api.llama_sampler_chain_add(chain, api.llama_sampler_init_top_p(sampling.topP, 1)) }
        api.llama_sampler_chain_add(chain, api.llama_sampler_init_temp(sampling.temperature))
        api.llama_sampler_chain_add(chain, api.llama_sampler_init_dist(sampling.seed ?? UInt32.random(in: 0..<UInt32.max)))
        self.chain = chain
        self.topK = topK
    }

    /// Frees the chain; call once, when the generation ends.
    func free() {
        if let chain { api.llama_sampler_free(chain) }
    }

    /// The next token from `logits`, a row of `count` entries (one per token of the vocabulary).
    func sample(_ logits: UnsafePointer<Float>, count: Int) -> llama_token {
        guard chain != nil else { return Self.argmax(logits, count: count) }
        if topK > 0, topK < count {
            Self.best(topK, of: logits, count: count, into: &candidates)
        } else {
            candidates = (0..<count).map { llama_token_data(id: llama_token($0), logit: logits[$0], p: 0) }
        }
        return draw(from: &candidates)
    }

    /// The token chosen among `candidates` (their logits set, -infinity for a refused one), as
    /// ``sample(_:count:)`` chooses from a row.
    func sample(among candidates: inout [llama_token_data]) -> llama_token? {
        guard chain != nil else {
            return candidates.indices.reduce(nil as Int?) { best, i in
                candidates[i].logit > (best.map { candidates[$0].logit } ?? -Float.infinity) ? i : best
            }.map { candidates[$0].id }
        }
        return draw(from: &candidates)
    }

    private func draw(from candidates: inout [llama_token_data]) -> llama_token {
        let token = candidates.withUnsafeMutableBufferPointer { buffer in
            var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
            api.llama_sampler_apply(chain, &array)
            return array.data[Int(array.selected)].id
        }
        api.llama_sampler_accept(chain, token)
        return token
    }

    /// The first index of the row's largest entry: llama.cpp's greedy choice (it keeps the first
    /// of equals too), read by the vectorized pass of `ra_logits.c`.
    static func argmax(_ logits: UnsafePointer<Float>, count: Int) -> llama_token {
        ra_logits_argmax(logits, count)
    }

    /// The `k` largest entries of the row (of equals, the lowest tokens), in no order, chosen by
    /// `ra_logits.c` in about one vectorized pass over the row.
    static func best(_ k: Int, of logits: UnsafePointer<Float>, count: Int, into heap: inout [llama_token_data]) {
        if heap.count < k {
            heap.append(contentsOf: repeatElement(llama_token_data(id: 0, logit: 0, p: 0), count: k - heap.count))
        } else if heap.count > k {
            heap.removeLast(heap.count - k)
        }
        let kept = withUnsafeTemporaryAllocation(of: Float.self, capacity: ra_logits_top_k_scratch(count)) { scratch in
            heap.withUnsafeMutableBufferPointer { ra_logits_top_k(logits, count, k, scratch.baseAddress, $0.baseAddress) }
        }
        heap.removeLast(k - kept)
    }
}
