import CLlamaCpp
import Foundation
import RunAnywhere
import Synchronization

/// A llama.cpp context made for pooled outputs, which embedding models and rerankers share:
/// token lists are packed in order into engine calls, each list a sequence of its own, as many
/// as fit in one call of ``contextLength`` tokens (and llama.cpp's limit on sequences); a call's
/// pooled output is read per sequence (an embedding, or a reranker's scores), and the memory is
/// cleared before the next call. A whole call is one micro-batch, as a non-causal model needs.
/// A sequence's output does not depend on those beside it beyond float rounding (the attention
/// of a packed call runs over more, masked, positions), but is not bit-identical alone and packed.
final class LlamaPooledContext: Sendable {
    let llama: LlamaContext
    let defaultThreads: Int
    /// The most tokens one sequence (and one call) holds.
    let contextLength: Int
    /// Whether the model has an encoder that llama_encode runs (T5's); BERT's runs through llama_decode.
    private let encoder: Bool
    /// The most sequences one call holds.
    private let sequences: Int
    /// One call at a time: a context is not thread-safe.
    private let lock = AsyncMutex()
    private let unloaded = Mutex(false)

    private var api: ra_llama_api { llama.library.api }

    /// Loads the GGUF model at `path` and a context for pooled outputs with it, pooled by
    /// `pooling`: one call holds up to the model's context of tokens (``RunAnywhere/ModelLoadOptions/contextLength``
    /// when set, never beyond what the model was trained with) and as many sequences as llama.cpp
    /// allows (256), all in one micro-batch.
    static func context(
        library: LlamaLibrary, path: String, model: ModelInfo, options: ModelLoadOptions, pooling: llama_pooling_type, threads: Int,
        gpuLayers: Int
    ) throws -> LlamaContext {
        try LlamaContext(library: library, path: path, threads: threads, gpuLayers: gpuLayers) { loaded, contextParams in
            let trained = Int(library.api.llama_model_n_ctx_train(loaded))
            let resolved = options.resolvedContextLength(for: model, trainedContext: trained)
            // Positions beyond the trained context have no embedding in a BERT-style model.
            let capacity = trained > 0 ? min(resolved, trained) : resolved
            contextParams.embeddings = true
            contextParams.pooling_type = pooling
            // ModelLoadOptions.validate() keeps the context within 2^24 tokens: it fits 32 bits.
            contextParams.n_ctx = UInt32(capacity)
            contextParams.n_batch = UInt32(capacity)
            contextParams.n_ubatch = UInt32(capacity)
            contextParams.n_seq_max = UInt32(min(capacity, Self.maxSequences))
            // One KV buffer (decoder models only) that the sequences of a call share.
            contextParams.kv_unified = true
            contextParams.flash_attn_type = LlamaContext.flashAttention(options.flashAttention)
        }
    }

    /// llama.cpp's limit on the sequences of one context.
    private static let maxSequences = 256

    /// Pooled outputs of `llama`, a context made by ``context(library:path:model:options:pooling:threads:gpuLayers:)``,
    /// run with `defaultThreads` unless a request names its own.
    init(llama: LlamaContext, defaultThreads: Int) {
        self.llama = llama
        self.defaultThreads = defaultThreads
        let api = llama.library.api
        self.encoder = api.llama_model_has_encoder(llama.model)
        self.contextLength = Int(min(api.llama_n_batch(llama.context), api.llama_n_ubatch(llama.context)))
        self.sequences = Int(api.llama_n_seq_max(llama.context))
    }

    /// Waits for the call in progress, then frees the model and its context.
    func unload() async {
        await lock.withLock {
            unloaded.withLock { $0 = true }
            llama.free()
        }
    }

    /// Runs `tokenize` (the token lists, each at most ``contextLength`` long) and then the lists
    /// call by call with `threads` (nil: the default), returning each list's first `width` pooled
    /// floats and its token count; one request at a time. `what` names the model in errors.
    func outputs(
        width: Int, threads: Int?, what: String, cancellation: CancellationFlag,
        tokenize: @escaping @Sendable (LlamaContext) throws -> [[llama_token]]
    ) async throws -> (outputs: [[Float]], tokenCounts: [Int]) {
        try await lock.withLock {
            guard !unloaded.withLock({ $0 }) else { throw SDKError.llm(.notInitialized, "The \(what) was unloaded") }
            return try await runBlocking {
                let tokens = try tokenize(self.llama)
                return (
                    try self.evaluate(tokens, width: width, threads: threads ?? self.defaultThreads, cancellation: cancellation),
                    tokens.map(\.count)
                )
            }
        }
    }

    /// Evaluates the lists call by call; the caller holds ``lock``.
    private func evaluate(_ tokens: [[llama_token]], width: Int, threads: Int, cancellation: CancellationFlag) throws -> [[Float]] {
        llama.setThreads(threads)  // checked to be 1...512
        // llama.cpp polls this between graph nodes, so a long call stops promptly too.
        api.llama_set_abort_callback(
            llama.context,
            { data in
                guard let data else { return false }
                return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isCancelled
            }, Unmanaged.passUnretained(cancellation).toOpaque())
        defer { api.llama_set_abort_callback(llama.context, nil, nil) }
        let batch = LlamaBatch(api: api, capacity: contextLength)
        var outputs: [[Float]] = []
        outputs.reserveCapacity(tokens.count)
        var start = 0
        while start < tokens.count {
            if cancellation.isCancelled { throw CancellationError() }
            // As many of the next lists as fit the call (each fits alone: the caller saw to it).
            var end = start
            var used = 0
            while end < tokens.count, end - start < sequences, used + tokens[end].count <= contextLength {
                used += tokens[end].count
                end += 1
            }
            outputs += try evaluateCall(tokens[start..<end], width: width, batch: batch, cancellation: cancellation)
            start = end
        }
        return outputs
    }

    /// Evaluates one call of lists, each its own sequence, and reads their pooled outputs.
    private func evaluateCall(_ group: ArraySlice<[llama_token]>, width: Int, batch: LlamaBatch, cancellation: CancellationFlag) throws
        -> [[Float]]
    {
        batch.clear()
        for (sequence, tokens) in group.enumerated() {
            for (position, token) in tokens.enumerated() {
                batch.add(token, position: position, sequence: sequence, output: true)
            }
        }
        api.llama_memory_clear(api.llama_get_memory(llama.context), true)  // no memory (BERT): nothing to clear
        let mark = llama.library.logSink.mark()
        let status = encoder ? api.llama_encode(llama.context, batch.batch) : api.llama_decode(llama.context, batch.batch)
        if cancellation.isCancelled { throw CancellationError() }
        guard status == 0 else {
            throw SDKError.llm(
                .generationFailed,
                llama.library.logSink.explain(
                    "llama.cpp could not evaluate \(group.count) sequences of \(batch.count) tokens (status \(status))", since: mark))
        }
        return try group.indices.map { index in
            let sequence = index - group.startIndex
            guard let output = api.llama_get_embeddings_seq(llama.context, llama_seq_id(sequence)) else {
                throw SDKError.llm(.generationFailed, "llama.cpp gave no pooled output for sequence \(sequence)")
            }
            return Array(UnsafeBufferPointer(start: output, count: width))
        }
    }
}
