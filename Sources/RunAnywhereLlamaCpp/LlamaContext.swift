import CLlamaCpp
import Foundation
import RunAnywhere
import Synchronization

/// A loaded llama.cpp model and its context with one sequence per parallel generation; both are
/// freed when this object goes away.
///
/// `@unchecked Sendable`: llama.cpp's context is not thread-safe and this class does not lock.
/// Only the model's ``BatchScheduler`` thread decodes with it; what other threads call here
/// (tokenizing, rendering pieces, applying the chat template) reads only the vocabulary and the
/// template, which llama.cpp never changes after loading.
final class LlamaContext: @unchecked Sendable {
    let library: LlamaLibrary
    let model: OpaquePointer
    let context: OpaquePointer
    let vocab: OpaquePointer
    /// The model's own Jinja chat template, if it has one.
    let chatTemplate: String?
    /// The vision projector of a vision-language model; nil for a text model.
    let vision: LlamaVision?
    /// Whether greedy requests promise reproducible output, as seeded ones always do
    /// (``RunAnywhere/ModelLoadOptions/reproducible``).
    let reproducible: Bool
    /// Whether a sequence's numbers are the same whatever shares its decode calls
    /// (``LlamaBatchInvariance``), so that reproducible requests are batched like any other.
    let batchInvariant: Bool
    /// How many of the model's layers are on the GPU or RPC workers (more than it has: all, the
    /// output too).
    let gpuLayers: Int
    /// The RPC workers that hold some of its layers, if any.
    let workers: LlamaRPC.Workers?
    /// Whether every layer, the output layer too, is on a GPU of this machine: then all the CPU
    /// does in a step is look up the tokens' embeddings (llama.cpp keeps them in host memory; a
    /// prompt of 32 tokens or more has its lookup done on the GPU too).
    let everyLayerOnGPU: Bool

    private var api: ra_llama_api { library.api }
    private let freed = Mutex(false)

    /// Loads the model at `path` and its context for generation, `gpuLayers` of its layers on the
    /// GPU (more than it has: all of them, the output layer too); with `projector`, also the vision
    /// projector (libmtmd) that lets it read images, on the GPU when any layer is.
    /// Reproducible per `options`, it is batch-invariant when nothing in `invarianceObstacle` stands
    /// in the way (see ``LlamaBatchInvariance``).
    convenience init(
        library: LlamaLibrary, path: String, projector: String? = nil, options: ModelLoadOptions, modelInfo: ModelInfo, threads: Int,
        gpuLayers: Int = 0, workers: LlamaRPC.Workers? = nil, invarianceObstacle: String?
    ) throws {
        let invariant = options.reproducible && invarianceObstacle == nil
        try self.init(
            library: library, path: path, projector: projector, threads: threads, gpuLayers: gpuLayers, workers: workers,
            reproducible: options.reproducible, batchInvariant: invariant
        ) { model, contextParams in
            let contextLength = options.resolvedContextLength(
                for: modelInfo, trainedContext: Int(library.api.llama_model_n_ctx_train(model)))
            let parallel = max(1, options.parallel)
            // Each sequence has a KV stream of its own (not a unified buffer), so what one request
            // holds never changes the shape of another's attention.
            // ModelLoadOptions.validate() (run by every load) keeps these within 32 bits: a context of
            // at most 2^24 tokens, 128 sequences, 512 threads; a model's own context is at most 4096.
            contextParams.n_ctx = UInt32(contextLength * parallel)
            contextParams.n_seq_max = UInt32(parallel)
            contextParams.kv_unified = false
            // A request decoding alone evaluates one prompt chunk per call, in one micro-batch
            // (see PromptCache); a shared call holds up to a chunk of prompt tokens beside one
            // token of every sequence (see BatchScheduler).
            let chunk = max(1, min(options.batchSize, contextLength))
            contextParams.n_batch = UInt32(chunk + parallel)
            contextParams.n_ubatch = UInt32(chunk)
            contextParams.flash_attn_type = Self.flashAttention(options.flashAttention)
            if invariant {
                contextParams.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_ENABLED
                contextParams.type_k = LlamaBatchInvariance.keyType
            }
        }
    }

    /// Loads the model at `path` and creates its context from llama.cpp's defaults with the
    /// threads, `gpuLayers` (on this machine's GPUs and on `workers`' devices when there are
    /// workers) and the settings `configure` makes for the loaded model (the context's size and
    /// shape); with `projector`, also the vision projector.
    init(
        library: LlamaLibrary, path: String, projector: String? = nil, threads: Int, gpuLayers: Int = 0,
        workers: LlamaRPC.Workers? = nil, reproducible: Bool = false, batchInvariant: Bool = false,
        configure: (_ model: OpaquePointer, _ contextParams: inout llama_context_params) throws -> Void
    ) throws {
        self.library = library
        self.gpuLayers = gpuLayers
        self.workers = workers
        self.reproducible = reproducible
        self.batchInvariant = batchInvariant
        let api = library.api
        var modelParams = api.llama_model_default_params()
        modelParams.n_gpu_layers = Int32(clamping: gpuLayers)
        // With workers the devices are named: this machine's GPUs (llama.cpp's default), then the
        // workers' devices, the list ending in NULL.
        var devices: [ggml_backend_dev_t?] = workers.map { LlamaRPC.localGPUs(library) + $0.devices + [nil] } ?? []
        let mark = library.logSink.mark()
        let loaded = devices.withUnsafeMutableBufferPointer { devices in
            if workers != nil { modelParams.devices = devices.baseAddress }
            return api.llama_model_load_from_file(path, modelParams)
        }
        guard let model = loaded else {
            throw SDKError.llm(.modelLoadFailed, library.logSink.explain("llama.cpp could not load \(path)", since: mark))
        }
        var contextParams = api.llama_context_default_params()
        contextParams.n_threads = Int32(threads)
        contextParams.n_threads_batch = Int32(threads)
        contextParams.no_perf = true
        // On the CPU alone, prompts stay there too: ggml would otherwise copy a long prompt's
        // work to any GPU the build finds (on Mesa's lavapipe, 50 times slower), and with RPC
        // workers it would send this machine's layers' weights over the network for it.
        contextParams.op_offload = gpuLayers > 0 && workers == nil
        do {
            try configure(model, &contextParams)
        } catch {
            api.llama_model_free(model)
            throw error
        }
        guard let context = api.llama_init_from_model(model, contextParams) else {
            api.llama_model_free(model)
            throw SDKError.llm(
                .modelLoadFailed,
                library.logSink.explain("llama.cpp could not create a \(contextParams.n_ctx)-token context for \(path)", since: mark))
        }
        guard let vocab = api.llama_model_get_vocab(model) else {
            api.llama_free(context)
            api.llama_model_free(model)
            throw SDKError.llm(.modelLoadFailed, "\(path) has no vocabulary")
        }
        do {
            self.vision = try projector.map { projector in
                try LlamaVision(
                    library: MtmdLibrary.load(besides: library), projector: projector, model: model, threads: threads,
                    useGPU: gpuLayers > 0,
                    explain: { library.logSink.explain($0, since: mark) }
                )
            }
        } catch {
            api.llama_free(context)
            api.llama_model_free(model)
            throw error
        }
        self.everyLayerOnGPU =
            workers == nil && gpuLayers > Int(api.llama_model_n_layer(model)) && !LlamaRPC.localGPUs(library).isEmpty
        self.model = model
        self.context = context
        self.vocab = vocab
        self.chatTemplate = api.llama_model_chat_template(model, nil).map { String(cString: $0) }
    }

    /// llama.cpp's setting for `flashAttention`.
    static func flashAttention(_ flashAttention: ModelLoadOptions.FlashAttention) -> llama_flash_attn_type {
        switch flashAttention {
        case .auto: LLAMA_FLASH_ATTN_TYPE_AUTO
        case .enabled: LLAMA_FLASH_ATTN_TYPE_ENABLED
        case .disabled: LLAMA_FLASH_ATTN_TYPE_DISABLED
        }
    }

    deinit { free() }

    /// Frees the model, its context and its projector now, once (later calls and the deinit do
    /// nothing); the caller makes sure nothing uses them any more.
    func free() {
        guard
            freed.withLock({ freed in
                defer { freed = true }
                return !freed
            })
        else { return }
        vision?.free()  // it refers to the model
        api.llama_free(context)
        api.llama_model_free(model)
        // Give the freed buffers back to the system, so that a server that unloads a model
        // shrinks instead of keeping its peak in the allocator's free lists.
        ra_engine_release_free_memory()
    }

    /// Has llama.cpp compute the next calls on `requested` CPU threads (the options that carry it
    /// keep it to 1...512), or on one when ``everyLayerOnGPU``: a team of threads would be started
    /// and waited for at every step only to look up the token's embedding.
    func setThreads(_ requested: Int) {
        let threads = Int32(clamping: everyLayerOnGPU ? 1 : requested)
        api.llama_set_n_threads(context, threads, threads)
    }

    /// The context window of each sequence in tokens (llama.cpp may round the requested size up).
    var contextLength: Int { Int(api.llama_n_ctx_seq(context)) }

    /// How many sequences (generations at once) the context has.
    var parallel: Int { Int(api.llama_n_seq_max(context)) }

    /// The most tokens one decode call takes.
    var batchCapacity: Int { Int(api.llama_n_batch(context)) }

    /// The fixed length of the chunks prompts are evaluated in: one decode call and one
    /// micro-batch each (llama.cpp caps the batch at the context size).
    var promptChunk: Int { Int(api.llama_n_ubatch(context)) }

    /// Tokens of `text`; with `parseSpecial`, special-token text such as `<|im_start|>` becomes its token.
    func tokenize(_ text: String, addSpecial: Bool, parseSpecial: Bool = true) throws -> [llama_token] {
        // llama.cpp counts bytes and tokens in C ints: 2 GiB of text is refused, not trapped on.
        guard let length = Int32(exactly: text.utf8.count), length <= Int32.max - 8 else {
            throw SDKError.llm(.invalidInput, "The text (\(text.utf8.count) bytes) is too long to tokenize")
        }
        var tokens = [llama_token](repeating: 0, count: Int(length) + 8)
        for _ in 0..<2 {
            let count = text.withCString { api.llama_tokenize(vocab, $0, length, &tokens, Int32(tokens.count), addSpecial, parseSpecial) }
            if count >= 0 {
                tokens.removeLast(tokens.count - Int(count))
                let bos = api.llama_vocab_bos(vocab)
                if tokens.count >= 2, tokens[0] == bos, tokens[1] == bos { tokens.removeFirst() }  // template already had BOS
                return tokens
            }
            guard count != Int32.min else { break }
            tokens = [llama_token](repeating: 0, count: Int(-count))
        }
        throw SDKError.llm(.invalidInput, "The text (\(text.utf8.count) bytes) is too long to tokenize")
    }

    /// How many tokens the vocabulary has.
    var vocabularySize: Int { Int(api.llama_vocab_n_tokens(vocab)) }

    /// The vocabulary's fill-in-the-middle tokens, when it has a prefix, a suffix and a middle
    /// one (llama.cpp reads them from the file's metadata, or finds them by their text).
    var fillInTheMiddleTokens: FillInTheMiddleTokens? {
        func token(_ id: llama_token) -> Int32? { id >= 0 ? id : nil }  // LLAMA_TOKEN_NULL is -1
        guard let prefix = token(api.llama_vocab_fim_pre(vocab)), let suffix = token(api.llama_vocab_fim_suf(vocab)),
            let middle = token(api.llama_vocab_fim_mid(vocab))
        else { return nil }
        return FillInTheMiddleTokens(
            prefix: prefix, suffix: suffix, middle: middle, repository: token(api.llama_vocab_fim_rep(vocab)),
            fileSeparator: token(api.llama_vocab_fim_sep(vocab)))
    }

    /// The bytes of `token`'s text (a token of the vocabulary: llama.cpp aborts on any other);
    /// control tokens render as nothing unless `special`.
    func piece(_ token: llama_token, special: Bool = false) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: 32)
        var count = api.llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
        if count < 0 {
            buffer = [CChar](repeating: 0, count: Int(-count))
            count = api.llama_token_to_piece(vocab, token, &buffer, Int32(buffer.count), 0, special)
        }
        return buffer.prefix(Int(max(count, 0))).map { UInt8(bitPattern: $0) }
    }

    /// Formats messages with the model's template through llama.cpp's built-in template
    /// formats; nil when the model has no template or llama.cpp does not recognise it.
    func applyChatTemplate(_ messages: [Message], addAssistantPrefix: Bool) -> String? {
        guard let chatTemplate else { return nil }
        let strings = messages.flatMap { [strdup($0.role.rawValue), strdup($0.content)] }
        defer { strings.forEach { Glibc.free($0) } }
        let chat = stride(from: 0, to: strings.count, by: 2).map { llama_chat_message(role: strings[$0], content: strings[$0 + 1]) }
        var buffer = [CChar](repeating: 0, count: 2 * messages.reduce(256) { $0 + $1.content.utf8.count + 64 })
        for _ in 0..<2 {
            // A buffer beyond a C int is offered as Int32.max bytes; a longer result is then reported, not written.
            let count = api.llama_chat_apply_template(
                chatTemplate, chat, chat.count, addAssistantPrefix, &buffer, Int32(clamping: buffer.count))
            guard count >= 0 else { return nil }
            if Int(count) <= buffer.count {
                return String(decoding: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            buffer = [CChar](repeating: 0, count: Int(count))
        }
        return nil
    }
}
