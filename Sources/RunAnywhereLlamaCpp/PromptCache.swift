/// What one sequence of a llama.cpp context holds in its KV memory, and how much of it a new
/// prompt may reuse without changing a single number of the result.
///
/// Outside its batch-invariant configuration, llama.cpp's kernels round differently for
/// different batch shapes, so a token's keys, values and logits depend on the batch it was
/// evaluated in, not only on the tokens before it. To make a request's output a function of
/// its prompt alone there, every prompt is evaluated in **fixed
/// chunks**: `[0, chunk)`, `[chunk, 2·chunk)`, … from position 0, the last one shorter. A fresh
/// run and a run that reuses the cache then see exactly the same batches, provided only whole
/// chunks are reused that were themselves evaluated as such a chunk, on the same number of
/// threads. Tokens generated one at a time, and a prompt's last, shorter chunk, are kept in
/// memory but never reused by such a request: a fresh evaluation of a later prompt would put
/// them in a full chunk.
///
/// Only a request that decodes alone to keep a reproducibility promise needs this. Every other
/// one reuses the longest common prefix instead (``commonPrefix(of:)``), which keeps a chat's
/// previous answer and saves most of a turn's prompt evaluation: a request that promises
/// nothing, and any request on a batch-invariant context (``LlamaBatchInvariance``), where a
/// token's numbers are the same however it was evaluated.
struct PromptCache: Equatable {
    /// Tokens in the sequence's memory, in order.
    private(set) var tokens: [Int32] = []
    /// Leading tokens of ``tokens`` that were evaluated as whole chunks (a multiple of `chunk`).
    private(set) var reusable = 0
    /// The thread count the reusable chunks were evaluated with.
    private(set) var threads = 0
    /// The fixed chunk length every prompt is evaluated in.
    let chunk: Int

    /// A cache with nothing in it, evaluating prompts in chunks of `chunk` tokens.
    init(chunk: Int) {
        precondition(chunk > 0, "a prompt chunk has at least one token")
        self.chunk = chunk
    }

    /// How many leading tokens of `prompt` can be kept, evaluated on `threads` threads: whole
    /// reusable chunks equal to the prompt's, always leaving at least the prompt's last token
    /// (whose logits pick the first new token) to be evaluated, inside its own chunk.
    func reusablePrefix(of prompt: [Int32], threads: Int) -> Int {
        guard threads == self.threads, !prompt.isEmpty else { return 0 }
        let common = zip(tokens.prefix(reusable), prompt).prefix { $0 == $1 }.count
        let whole = common / chunk * chunk
        return whole < prompt.count ? whole : whole - chunk
    }

    /// How many leading tokens of `prompt` are in memory, leaving at least the last token to
    /// evaluate: the most a request sharing the batch can keep.
    func commonPrefix(of prompt: [Int32]) -> Int {
        min(zip(tokens, prompt).prefix { $0 == $1 }.count, max(prompt.count - 1, 0))
    }

    /// Keeps the first `count` tokens and forgets the rest, as the engine does with the
    /// sequence's memory; what follows is evaluated on `threads` threads. Only whole reusable
    /// chunks stay reusable, and when the thread count changes none do.
    mutating func truncate(to count: Int, threads: Int) {
        precondition(count <= tokens.count, "only tokens in memory can be kept")
        tokens.removeLast(tokens.count - count)
        reusable = threads == self.threads ? min(reusable, count / chunk * chunk) : 0
        self.threads = threads
    }

    /// Records an evaluated prompt chunk, which starts where the memory ends.
    mutating func appendChunk(_ chunk: [Int32]) {
        let wasWhole = reusable == tokens.count
        tokens += chunk
        if wasWhole, chunk.count == self.chunk { reusable = tokens.count }
    }

    /// Records a token decoded on its own (a generated one): kept, never reusable.
    mutating func appendGenerated(_ token: Int32) {
        tokens.append(token)
    }

    /// Records tokens evaluated off the chunk grid (an image's placeholders): kept, and like
    /// everything after them, never reusable by a request decoding alone.
    mutating func appendUnreusable(_ tokens: [Int32]) {
        self.tokens += tokens
    }

    /// Forgets everything, as after the memory was cleared.
    mutating func clear() {
        tokens = []
        reusable = 0
    }

    /// How many tokens are in memory.
    var count: Int { tokens.count }
}
