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
    /// of equals too). Blocks are passed over on their maximum; only a block holding a new
    /// largest entry is looked into.
    static func argmax(_ logits: UnsafePointer<Float>, count: Int) -> llama_token {
        var largest = -Float.infinity
        var index = 0
        func visit(_ range: Range<Int>) {
            for i in range where logits[i] > largest {
                largest = logits[i]
                index = i
            }
        }
        let blocks = count / blockWidth
        for block in 0..<blocks where blockMaximum(logits + block * blockWidth) > largest {
            visit(block * blockWidth..<(block + 1) * blockWidth)
        }
        visit(blocks * blockWidth..<count)
        return llama_token(index)
    }

    /// The `k` largest entries of the row (of equals, the lowest tokens), in no order. One pass
    /// takes each block's largest entry; the k-th largest of those is a floor that the k best
    /// entries all reach (k blocks hold an entry at or above it), so only the blocks that reach
    /// it, about k of them, are looked into, and only their entries at or above it are offered to
    /// a min-heap of the best so far, in token order.
    static func best(_ k: Int, of logits: UnsafePointer<Float>, count: Int, into heap: inout [llama_token_data]) {
        heap.removeAll(keepingCapacity: true)
        guard k > 0 else { return }
        heap.reserveCapacity(k)
        func offer(_ i: Int, reaching floor: Float) {
            let logit = logits[i]
            guard logit >= floor else { return }
            if heap.count < k {
                heap.append(llama_token_data(id: llama_token(i), logit: logit, p: 0))
                guard heap.count == k else { return }
                heap.withUnsafeMutableBufferPointer { heap in
                    for i in stride(from: k / 2 - 1, through: 0, by: -1) { siftDown(heap, from: i) }
                }
            } else if logit > heap[0].logit {
                heap.withUnsafeMutableBufferPointer { heap in
                    heap[0] = llama_token_data(id: llama_token(i), logit: logit, p: 0)
                    siftDown(heap, from: 0)
                }
            }
        }
        let blocks = count / blockWidth
        withUnsafeTemporaryAllocation(of: Float.self, capacity: blocks) { maxima in
            for block in 0..<blocks { maxima[block] = blockMaximum(logits + block * blockWidth) }
            let floor = blocks >= k ? kthLargest(k, of: UnsafeBufferPointer(maxima)) : -Float.infinity
            for block in 0..<blocks where maxima[block] >= floor {
                for i in block * blockWidth..<(block + 1) * blockWidth { offer(i, reaching: floor) }
            }
            for i in blocks * blockWidth..<count { offer(i, reaching: floor) }
        }
    }

    /// The entries a block has: 4 rows of 16 lanes.
    private static let blockWidth = 64

    /// The largest of the 64 entries at `block`: the rows kept lane by lane, then the lanes
    /// compared as a tree (a chain of comparisons, one waiting for the other, took four times as
    /// long); the compiler vectorizes both.
    @inline(__always)
    private static func blockMaximum(_ block: UnsafePointer<Float>) -> Float {
        let raw = UnsafeRawPointer(block)
        var lanes = raw.loadUnaligned(as: SIMD16<Float>.self)
        for row in 1..<4 {
            let next = raw.loadUnaligned(fromByteOffset: row * 64, as: SIMD16<Float>.self)
            lanes.replace(with: next, where: next .> lanes)
        }
        @inline(__always) func larger(_ a: Float, _ b: Float) -> Float { a > b ? a : b }
        let low = larger(
            larger(larger(lanes[0], lanes[1]), larger(lanes[2], lanes[3])), larger(larger(lanes[4], lanes[5]), larger(lanes[6], lanes[7])))
        let high = larger(
            larger(larger(lanes[8], lanes[9]), larger(lanes[10], lanes[11])),
            larger(larger(lanes[12], lanes[13]), larger(lanes[14], lanes[15])))
        return larger(low, high)
    }

    /// The k-th largest of `values` (k of them at most): the least of a min-heap of the k
    /// largest so far.
    private static func kthLargest(_ k: Int, of values: UnsafeBufferPointer<Float>) -> Float {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: k) { least in
            func siftDown(from start: Int) {
                var parent = start
                while true {
                    let left = 2 * parent + 1
                    let right = left + 1
                    var smallest = parent
                    if left < k, least[left] < least[smallest] { smallest = left }
                    if right < k, least[right] < least[smallest] { smallest = right }
                    if smallest == parent { return }
                    least.swapAt(parent, smallest)
                    parent = smallest
                }
            }
            for i in 0..<k { least[i] = values[i] }
            for i in stride(from: k / 2 - 1, through: 0, by: -1) { siftDown(from: i) }
            for value in values[k...] where value > least[0] {
                least[0] = value
                siftDown(from: 0)
            }
            return least[0]
        }
    }

    /// Lower logit, or the same and a later token: the first to leave the heap.
    private static func worse(_ a: llama_token_data, than b: llama_token_data) -> Bool {
        a.logit < b.logit || (a.logit == b.logit && a.id > b.id)
    }

    private static func siftDown(_ heap: UnsafeMutableBufferPointer<llama_token_data>, from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var least = parent
            if left < heap.count, worse(heap[left], than: heap[least]) { least = left }
            if right < heap.count, worse(heap[right], than: heap[least]) { least = right }
            if least == parent { return }
            heap.swapAt(parent, least)
            parent = least
        }
    }
}
