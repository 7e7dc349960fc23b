import CLlamaCpp
import Foundation
import RunAnywhere
import Synchronization

/// A text-embedding model running on llama.cpp: BERT-style encoders (all-MiniLM, bge, e5,
/// nomic-embed) and decoder embedding models, each pooled as its GGUF says.
///
/// Texts are packed in order into engine calls, each text a sequence of its own (tokenized with
/// the model's special tokens, such as BERT's `[CLS]` and `[SEP]`), as many as fit in one call
/// of ``contextLength`` tokens; a call's pooled vectors are read per sequence, and the memory is
/// cleared before the next call. A whole call is one micro-batch, as a non-causal model needs.
/// A text's vector does not depend on the texts beside it beyond float rounding (the attention
/// of a packed call runs over more, masked, positions): alone and in a batch, the cosine
/// between the two is above 0.9999, but the numbers are not bit-identical.
final class LlamaEmbeddingService: EmbeddingService {
    private let llama: LlamaContext
    private let defaultThreads: Int
    /// Whether the model has an encoder that llama_encode runs (T5's); BERT's runs through llama_decode.
    private let encoder: Bool
    /// The special tokens the model adds after a text (BERT's `[SEP]`), kept when a text is truncated.
    private let specialSuffix: [llama_token]
    /// The most texts one call holds.
    private let sequences: Int
    /// One call at a time: a context is not thread-safe.
    private let lock = AsyncMutex()
    private let unloaded = Mutex(false)
    let dimensions: Int
    let contextLength: Int

    private var api: ra_llama_api { llama.library.api }

    /// Loads the GGUF embedding model at `path` and a context for embedding with it, pooled by
    /// `pooling`: one call holds up to the model's context of tokens (``ModelLoadOptions/contextLength``
    /// when set, never beyond what the model was trained with) and as many texts as llama.cpp
    /// allows (256), all in one micro-batch.
    static func context(
        library: LlamaLibrary, path: String, model: ModelInfo, options: ModelLoadOptions, pooling: llama_pooling_type, threads: Int, gpuLayers: Int
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
            // One KV buffer (decoder models only) that the texts of a call share.
            contextParams.kv_unified = true
            contextParams.flash_attn_type = LlamaContext.flashAttention(options.flashAttention)
        }
    }

    /// llama.cpp's limit on the sequences of one context.
    private static let maxSequences = 256

    /// A service over `llama`, a context made by ``context(library:path:model:options:pooling:threads:gpuLayers:)``,
    /// embedding with `defaultThreads` unless a request names its own.
    init(llama: LlamaContext, defaultThreads: Int) throws {
        self.llama = llama
        self.defaultThreads = defaultThreads
        let api = llama.library.api
        self.encoder = api.llama_model_has_encoder(llama.model)
        self.dimensions = Int(api.llama_model_n_embd_out(llama.model))
        self.contextLength = Int(min(api.llama_n_batch(llama.context), api.llama_n_ubatch(llama.context)))
        self.sequences = Int(api.llama_n_seq_max(llama.context))
        // What follows a one-word text's own tokens is what the model adds after every text.
        let full = try llama.tokenize("a", addSpecial: true)
        let plain = try llama.tokenize("a", addSpecial: false)
        let start = (0...max(0, full.count - plain.count)).first { full.dropFirst($0).starts(with: plain) }
        self.specialSuffix = start.map { Array(full.dropFirst($0 + plain.count)) } ?? []
        guard dimensions > 0, contextLength > specialSuffix.count + 1 else {
            throw SDKError.llm(.modelLoadFailed, "llama.cpp made a context of \(contextLength) tokens with \(dimensions)-dimensional embeddings for this model")
        }
    }

    /// Waits for the call in progress, then frees the model and its context.
    func unload() async {
        await lock.withLock {
            unloaded.withLock { $0 = true }
            llama.free()
        }
    }

    func embed(_ texts: [String], options: EmbeddingOptions, cancellation: CancellationFlag) async throws -> EngineEmbeddings {
        try await lock.withLock {
            guard !unloaded.withLock({ $0 }) else { throw SDKError.llm(.notInitialized, "The embedding model was unloaded") }
            return try await runBlocking { try self.run(texts, options: options, cancellation: cancellation) }
        }
    }

    /// Tokenizes the texts, then embeds them call by call; the caller holds ``lock``.
    private func run(_ texts: [String], options: EmbeddingOptions, cancellation: CancellationFlag) throws -> EngineEmbeddings {
        let tokens = try texts.indices.map { try tokenize(texts[$0], index: $0, truncate: options.truncate) }
        let threads = Int32(clamping: options.threads ?? defaultThreads)  // both checked to be 1...512
        api.llama_set_n_threads(llama.context, threads, threads)
        // llama.cpp polls this between graph nodes, so a long call stops promptly too.
        api.llama_set_abort_callback(llama.context, { data in
            guard let data else { return false }
            return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isCancelled
        }, Unmanaged.passUnretained(cancellation).toOpaque())
        defer { api.llama_set_abort_callback(llama.context, nil, nil) }
        let batch = LlamaBatch(api: api, capacity: contextLength)
        var vectors: [[Float]] = []
        vectors.reserveCapacity(texts.count)
        var start = 0
        while start < tokens.count {
            if cancellation.isCancelled { throw CancellationError() }
            // As many of the next texts as fit the call (each fits alone: tokenize saw to it).
            var end = start, used = 0
            while end < tokens.count, end - start < sequences, used + tokens[end].count <= contextLength {
                used += tokens[end].count
                end += 1
            }
            vectors += try evaluate(tokens[start..<end], batch: batch, cancellation: cancellation)
            start = end
        }
        return EngineEmbeddings(vectors: vectors, tokenCounts: tokens.map(\.count))
    }

    /// The tokens of the text at `index`, with the model's special tokens; one longer than
    /// ``contextLength`` is cut to fit (keeping the special tokens at its end) with `truncate`,
    /// and refused otherwise.
    private func tokenize(_ text: String, index: Int, truncate: Bool) throws -> [llama_token] {
        let tokens = try llama.tokenize(text, addSpecial: true)
        guard tokens.count > contextLength else { return tokens }
        guard truncate else {
            throw SDKError.llm(
                .contextTooLong, "Text \(index) has \(tokens.count) tokens; the model reads at most \(contextLength) per text (ask for truncation to cut it to fit)"
            )
        }
        return Array(tokens.prefix(contextLength - specialSuffix.count)) + specialSuffix
    }

    /// Evaluates one call of texts, each its own sequence, and reads their pooled vectors.
    private func evaluate(_ group: ArraySlice<[llama_token]>, batch: LlamaBatch, cancellation: CancellationFlag) throws -> [[Float]] {
        batch.clear()
        for (sequence, tokens) in group.enumerated() {
            for (position, token) in tokens.enumerated() {
                batch.add(token, position: position, sequence: sequence, output: true)
            }
        }
        api.llama_memory_clear(api.llama_get_memory(llama.context), true)  // no memory (BERT): nothing to clear
        let status = encoder ? api.llama_encode(llama.context, batch.batch) : api.llama_decode(llama.context, batch.batch)
        if cancellation.isCancelled { throw CancellationError() }
        guard status == 0 else {
            throw SDKError.llm(.generationFailed, llama.library.logSink.explain("llama.cpp could not embed \(group.count) texts of \(batch.count) tokens (status \(status))"))
        }
        return try group.indices.map { index in
            let sequence = index - group.startIndex
            guard let vector = api.llama_get_embeddings_seq(llama.context, llama_seq_id(sequence)) else {
                throw SDKError.llm(.generationFailed, "llama.cpp gave no pooled embedding for sequence \(sequence)")
            }
            return Array(UnsafeBufferPointer(start: vector, count: dimensions))
        }
    }
}
