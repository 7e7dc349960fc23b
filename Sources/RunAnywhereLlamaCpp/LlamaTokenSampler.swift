import CLlamaCpp
import Foundation
import RunAnywhere

/// A request's sampler, reading only what it needs of a logit row: greedy takes the row's
/// argmax itself; a top-k draw keeps the row's k best tokens in one vectorized pass and hands
/// only those to llama.cpp's sampler chain (top-k, typical, top-p, min-p, XTC, temperature, then
/// a seeded draw). The draw is the chain's over the same tokens as a whole-row draw, so a seed
/// gives the same answer. The chain gets every token where what it does depends on all of them:
/// top-k off, top-nσ (the logits' spread), Mirostat (its surprise estimate) and DRY (whose
/// penalties reach tokens of any rank).
///
/// A request's logit bias and its penalties on the last tokens (llama.cpp's order and formulas:
/// the bias first, then repeat, frequency and presence) change only the tokens they name, so the
/// pass keeps k more tokens than it would, one for each token named, and the named ones besides:
/// whatever the changes, the k best after them are among those.
///
/// Copying a 49,152-token row into llama.cpp's candidate array and sorting it cost more than
/// the decode of a small model on a GPU; this keeps the per-token work to one read of the row.
/// One instance belongs to one generation; different instances may sample at once on
/// different threads (each has its own scratch and chain; the row is only read).
final class LlamaTokenSampler {
    private let api: ra_llama_api
    /// Nil for greedy, which needs no chain.
    private let chain: UnsafeMutablePointer<llama_sampler>?
    /// llama.cpp's DRY sampler, which remembers the tokens chosen (the chain's samplers do not),
    /// and how many of the last it looks at.
    private let dry: UnsafeMutablePointer<llama_sampler>?
    private let dryWindow: Int
    /// The tokens a draw chooses among; 0: the whole vocabulary.
    private let topK: Int
    /// Whether every token of the row goes to the samplers (see the type's comment).
    private let readsWholeRow: Bool
    private var candidates: [llama_token_data] = []
    private let bias: [llama_token: Float]
    /// The tokens the bias names that a row has (0 to the vocabulary's size), worked out once.
    private let biased: [llama_token]
    /// The tokens the bias and the penalties name for the row at hand, and a mark per token of the
    /// vocabulary (``named`` and ``kept`` bits) that finds them without a set made per token;
    /// empty for a request with neither.
    private var named: [llama_token] = []
    private var marks: [UInt8] = []
    private static let namedMark: UInt8 = 1
    private static let keptMark: UInt8 = 2
    private let repeatPenalty: Float
    private let frequencyPenalty: Float
    private let presencePenalty: Float
    /// The last tokens the penalties look at (at most `window`, the oldest at `oldest`), and how
    /// often each is among them.
    private let window: Int
    private var recent: [llama_token] = []
    private var oldest = 0
    private var counts: [llama_token: Int] = [:]

    /// Greedy at temperature 0; otherwise llama.cpp's chain in llama-server's order (top-nσ,
    /// top-k, typical, top-p, min-p, XTC, temperature, or Mirostat after the temperature), drawing
    /// with `sampling.seed` (a random seed without one). `prompt` is the tokens before the first
    /// to sample, of which the penalties and DRY see the last. `vocab` (the model's) turns DRY's
    /// sequence breakers into tokens, `vocabularySize` is a logit row's length (Mirostat 1's),
    /// and `contextLength` is the window of a DRY that looks at the whole context.
    init(
        _ sampling: LLMSampling, prompt: [llama_token], api: ra_llama_api, vocab: OpaquePointer?, vocabularySize: Int,
        contextLength: Int
    ) {
        self.api = api
        bias = sampling.logitBias ?? [:]
        biased = bias.keys.filter { $0 >= 0 && Int($0) < vocabularySize }.sorted()
        repeatPenalty = sampling.repeatPenalty ?? 1
        frequencyPenalty = sampling.frequencyPenalty ?? 0
        presencePenalty = sampling.presencePenalty ?? 0
        window = sampling.penaltyWindow
        (dry, dryWindow) = Self.drySampler(sampling.samplers, api: api, vocab: vocab, contextLength: contextLength) ?? (nil, 0)
        let seed = sampling.seed ?? UInt32.random(in: 0..<UInt32.max)
        // A top-k beyond any vocabulary (a client may send 1e18) keeps every token, as Int32.max does.
        topK = sampling.topK > 0 ? Int(clamping: min(sampling.topK, Int(Int32.max))) : 0
        chain = sampling.temperature > 0 ? Self.chain(sampling, topK: topK, seed: seed, vocabularySize: vocabularySize, api: api) : nil
        let spread = sampling.samplers.contains { if case .mirostat = $0 { true } else if case .topNSigma = $0 { true } else { false } }
        readsWholeRow = dry != nil || (chain != nil && (topK == 0 || spread))
        if !bias.isEmpty || window > 0 { marks = [UInt8](repeating: 0, count: vocabularySize) }
        remember(prompt)
    }

    /// llama.cpp's chain after the bias, penalties and DRY, as llama-server builds it, with
    /// `topK` (0: off) clamped as the sampler's own.
    private static func chain(
        _ sampling: LLMSampling, topK: Int, seed: UInt32, vocabularySize: Int, api: ra_llama_api
    ) -> UnsafeMutablePointer<llama_sampler> {
        let chain = api.llama_sampler_chain_init(api.llama_sampler_chain_default_params())!
        func add(_ sampler: UnsafeMutablePointer<llama_sampler>?) { api.llama_sampler_chain_add(chain, sampler) }
        var typical: Float?
        var xtc: (probability: Float, threshold: Float)?
        var topNSigma: Float?
        var dynamic: (range: Float, exponent: Float)?
        for sampler in sampling.samplers {
            switch sampler {
            case .mirostat(let version, let tau, let eta):
                add(api.llama_sampler_init_temp(sampling.temperature))
                add(
                    version == 1
                        ? api.llama_sampler_init_mirostat(Int32(clamping: vocabularySize), seed, tau, eta, 100)
                        : api.llama_sampler_init_mirostat_v2(seed, tau, eta))
                return chain
            case .typical(let p): typical = p
            case .xtc(let probability, let threshold): xtc = (probability, threshold)
            case .topNSigma(let n): topNSigma = n
            case .dynamicTemperature(let range, let exponent): dynamic = (range, exponent)
            case .dry: break
            }
        }
        if let topNSigma { add(api.llama_sampler_init_top_n_sigma(topNSigma)) }
        if topK > 0 { add(api.llama_sampler_init_top_k(Int32(topK))) }
        if let typical, typical < 1 { add(api.llama_sampler_init_typical(typical, 1)) }
        if sampling.topP < 1 { add(api.llama_sampler_init_top_p(sampling.topP, 1)) }
        if let minP = sampling.minP, minP > 0 { add(api.llama_sampler_init_min_p(minP, 1)) }
        if let xtc, xtc.probability > 0 { add(api.llama_sampler_init_xtc(xtc.probability, xtc.threshold, 1, seed)) }
        if let dynamic, dynamic.range > 0 {
            add(api.llama_sampler_init_temp_ext(sampling.temperature, dynamic.range, dynamic.exponent))
        } else {
            add(api.llama_sampler_init_temp(sampling.temperature))
        }
        add(api.llama_sampler_init_dist(seed))
        return chain
    }

    /// llama.cpp's DRY sampler for a request that has one that penalizes anything, and its window.
    private static func drySampler(
        _ samplers: [LLMSampler], api: ra_llama_api, vocab: OpaquePointer?, contextLength: Int
    ) -> (UnsafeMutablePointer<llama_sampler>, Int)? {
        for case .dry(let multiplier, let base, let allowedLength, let lastN, let breakers) in samplers {
            // A window beyond the context sees nothing more, and llama.cpp allocates all of it.
            let window = min(lastN ?? contextLength, max(contextLength, 1))
            guard multiplier > 0, window > 0 else { return nil }
            // Breakers become tokens through the vocabulary; without one (tests' rows) there are none.
            let used = vocab == nil ? [] : breakers
            var pointers = used.map { strdup($0) }
            defer { pointers.forEach { Glibc.free($0) } }
            let sampler = pointers.withUnsafeMutableBufferPointer { buffer in
                buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { rebound in
                    api.llama_sampler_init_dry(
                        vocab, multiplier, base, Int32(clamping: allowedLength), Int32(clamping: window), rebound.baseAddress,
                        rebound.count)
                }
            }
            return sampler.map { ($0, window) }
        }
        return nil
    }

    /// Frees the chain and DRY; call once, when the generation ends.
    func free() {
        if let chain { api.llama_sampler_free(chain) }
        if let dry { api.llama_sampler_free(dry) }
    }

    /// The next token from `logits`, a row of `count` entries (one per token of the vocabulary).
    func sample(_ logits: UnsafePointer<Float>, count: Int) -> llama_token {
        nameTokens(count: count)
        if chain == nil, named.isEmpty, dry == nil { return Self.argmax(logits, count: count) }
        let kept = readsWholeRow ? count : (chain == nil ? 1 : topK) + named.count
        if kept < count {
            Self.best(kept, of: logits, count: count, into: &candidates)
            if !named.isEmpty { addNamed(from: logits) }
        } else {
            candidates = (0..<count).map { llama_token_data(id: llama_token($0), logit: logits[$0], p: 0) }
        }
        adjust(&candidates)
        // Greedy; a row whose every entry is -infinity has no best, and gets the row's own argmax.
        guard chain != nil else { return Self.best(of: candidates) ?? Self.argmax(logits, count: count) }
        return draw(from: &candidates)
    }

    /// Lists in ``named`` the tokens of a row of `count` that the bias and the penalties name, each once.
    private func nameTokens(count: Int) {
        named.removeAll(keepingCapacity: true)
        guard !marks.isEmpty, !biased.isEmpty || !counts.isEmpty else { return }
        let limit = min(count, marks.count)
        func name(_ token: llama_token) {
            guard token >= 0, Int(token) < limit, marks[Int(token)] & Self.namedMark == 0 else { return }
            marks[Int(token)] |= Self.namedMark
            named.append(token)
        }
        for token in biased { name(token) }
        for token in counts.keys { name(token) }
        for token in named { marks[Int(token)] = 0 }
    }

    /// Adds to the row's best candidates the named tokens that are not among them, with their logits.
    private func addNamed(from logits: UnsafePointer<Float>) {
        for candidate in candidates where Int(candidate.id) < marks.count { marks[Int(candidate.id)] |= Self.keptMark }
        for token in named where marks[Int(token)] & Self.keptMark == 0 {
            candidates.append(llama_token_data(id: token, logit: logits[Int(token)], p: 0))
        }
        for candidate in candidates where Int(candidate.id) < marks.count { marks[Int(candidate.id)] = 0 }
    }

    /// The token chosen among `candidates` (their logits set, -infinity for a refused one), as
    /// ``sample(_:count:)`` chooses from a row.
    func sample(among candidates: inout [llama_token_data]) -> llama_token? {
        adjust(&candidates)
        guard chain != nil else { return Self.best(of: candidates) }
        return draw(from: &candidates)
    }

    /// Counts the prompt's last text tokens (an image's placeholders are not tokens) among those
    /// the penalties and DRY see, as llama-server does.
    private func remember(_ prompt: [llama_token]) {
        guard window > 0 || dry != nil else { return }
        let text = prompt.filter { $0 >= 0 }
        if let dry { for token in text.suffix(dryWindow) { api.llama_sampler_accept(dry, token) } }
        for token in text.suffix(window) { count(token) }
    }

    /// Counts `token`, the one chosen, among the last tokens the penalties and DRY see.
    func accept(_ token: llama_token) {
        if let dry { api.llama_sampler_accept(dry, token) }
        count(token)
    }

    /// Counts `token` among the last tokens the penalties see.
    private func count(_ token: llama_token) {
        guard window > 0 else { return }
        if recent.count < window {
            recent.append(token)
        } else {
            let dropped = recent[oldest]
            let remaining = counts[dropped, default: 1] - 1
            counts[dropped] = remaining == 0 ? nil : remaining
            recent[oldest] = token
            oldest = (oldest + 1) % window
        }
        counts[token, default: 0] += 1
    }

    /// Applies the bias, then the penalties, to the candidates they name, then DRY.
    private func adjust(_ candidates: inout [llama_token_data]) {
        defer {
            if let dry {
                candidates.withUnsafeMutableBufferPointer { buffer in
                    var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
                    api.llama_sampler_apply(dry, &array)
                }
            }
        }
        guard !bias.isEmpty || !counts.isEmpty else { return }
        for index in candidates.indices {
            let id = candidates[index].id
            if let bias = bias[id] { candidates[index].logit += bias }
            if let count = counts[id] {
                let logit = candidates[index].logit
                candidates[index].logit =
                    (logit <= 0 ? logit * repeatPenalty : logit / repeatPenalty)
                    - Float(count) * frequencyPenalty - presencePenalty
            }
        }
    }

    /// The candidate with the largest logit, the lowest token of equals (llama.cpp's greedy
    /// choice over a row); nil when every one is refused.
    private static func best(of candidates: [llama_token_data]) -> llama_token? {
        var best: llama_token_data?
        for candidate in candidates where candidate.logit != -Float.infinity {
            if let current = best, candidate.logit < current.logit || (candidate.logit == current.logit && candidate.id > current.id) {
                continue
            }
            best = candidate
        }
        return best?.id
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
