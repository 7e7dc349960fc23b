import CLlamaCpp
import Foundation
import RunAnywhere
import Synchronization

/// A language model running on llama.cpp.
///
/// The tokens in the KV cache are remembered between generations, so a chat turn only
/// evaluates what is new since the previous one. A seeded or greedy request keeps only whole
/// prompt chunks of earlier turns, so every number of its result is what a fresh run computes;
/// a randomly sampled one keeps the whole common prefix (see ``PromptCache``).
final class LlamaCppService: LLMService {
    private let llama: LlamaContext
    private let defaultThreads: Int
    /// What the context's memory holds, and which of it a new prompt may reuse.
    private let promptCache: Mutex<PromptCache>

    init(llama: LlamaContext, defaultThreads: Int) {
        self.llama = llama
        self.defaultThreads = defaultThreads
        self.promptCache = Mutex(PromptCache(chunk: llama.promptChunk))
    }

    private var api: ra_llama_api { llama.library.api }

    var contextLength: Int { llama.contextLength }

    func tokenCount(_ text: String) throws -> Int {
        try llama.tokenize(text, addSpecial: true).count
    }

    func hasSpecialToken(_ text: String) -> Bool {
        (try? llama.tokenize(text, addSpecial: false).count == 1) ?? false
    }

    func applyChatTemplate(_ messages: [Message], addAssistantPrefix: Bool) -> String? {
        llama.applyChatTemplate(messages, addAssistantPrefix: addAssistantPrefix)
    }

    func startGeneration(_ request: LLMEngineRequest) -> LLMEngineRun {
        LLMEngineRun.start(name: "llama.cpp generation") { [self] emitter in
            try generate(request, emitter: emitter)
        }
    }

    /// The decode loop; runs on the run's own thread.
    private func generate(_ request: LLMEngineRequest, emitter: LLMEngineEmitter) throws {
        let context = llama.context
        let threads = Int32(request.threads ?? defaultThreads)
        api.llama_set_n_threads(context, threads, threads)
        // llama.cpp polls this between graph nodes, so even a long prompt stops promptly.
        api.llama_set_abort_callback(context, { data in
            guard let data else { return false }
            return Unmanaged<CancellationFlag>.fromOpaque(data).takeUnretainedValue().isCancelled
        }, Unmanaged.passUnretained(emitter.cancellation).toOpaque())
        defer { api.llama_set_abort_callback(context, nil, nil) }

        let prompt = try llama.tokenize(request.prompt, addSpecial: true)
        guard !prompt.isEmpty else { throw SDKError.llm(.emptyInput, "The prompt has no tokens") }
        var cache = promptCache.withLock { $0 }
        defer { promptCache.withLock { $0 = cache } }

        // A reproducible request keeps only the whole chunks a fresh evaluation would compute
        // alike; a randomly sampled one keeps everything it shares with memory.
        var reused = switch (request.reuseCache, request.sampling.isReproducible) {
        case (false, _): 0
        case (true, true): cache.reusablePrefix(of: prompt, threads: Int(threads))
        case (true, false): cache.commonPrefix(of: prompt)
        }
        let memory = api.llama_get_memory(context)
        if reused < cache.count, !api.llama_memory_seq_rm(memory, 0, llama_pos(reused), -1) {
            api.llama_memory_clear(memory, true)
            reused = 0
        }
        cache.truncate(to: reused, threads: Int(threads))

        let clock = ContinuousClock()
        let promptStart = clock.now
        var position = reused
        while position < prompt.count {
            if emitter.isCancelled { return emitter.emit(.finished(.cancelled)) }
            var chunk = Array(prompt[position..<min(position + cache.chunk, prompt.count)])
            let status = decode(&chunk)
            guard status == 0 else {
                api.llama_memory_clear(memory, true)
                cache.clear()
                if status == 2 { return emitter.emit(.finished(.cancelled)) }
                throw SDKError.llm(.generationFailed, "llama.cpp could not evaluate the prompt (llama_decode returned \(status))")
            }
            cache.appendChunk(chunk)
            position += chunk.count
        }
        emitter.emit(.promptProcessed(evaluated: prompt.count - reused, cached: reused, seconds: (clock.now - promptStart).inSeconds))

        let sampler = makeSampler(request.sampling)
        defer { api.llama_sampler_free(sampler) }
        for generated in 1...max(1, request.maxNewTokens) {
            if emitter.isCancelled { return emitter.emit(.finished(.cancelled)) }
            let token = api.llama_sampler_sample(sampler, context, -1)
            if api.llama_vocab_is_eog(llama.vocab, token) { return emitter.emit(.finished(.endOfGeneration)) }
            emitter.emitToken(llama.piece(token))
            if generated == request.maxNewTokens { break }
            if cache.count + 1 >= contextLength { return emitter.emit(.finished(.length)) }
            var next = [token]
            let status = decode(&next)
            guard status == 0 else {
                api.llama_memory_clear(memory, true)
                cache.clear()
                if status == 2 { return emitter.emit(.finished(.cancelled)) }
                if status == 1 { return emitter.emit(.finished(.length)) }
                throw SDKError.llm(.generationFailed, "llama.cpp could not decode (llama_decode returned \(status))")
            }
            cache.appendGenerated(token)
        }
        emitter.emit(.finished(.length))
    }

    private func decode(_ tokens: inout [llama_token]) -> Int32 {
        tokens.withUnsafeMutableBufferPointer { buffer in
            api.llama_decode(llama.context, api.llama_batch_get_one(buffer.baseAddress, Int32(buffer.count)))
        }
    }

    /// Greedy at temperature 0; otherwise top-k, top-p, temperature, then a seeded draw.
    private func makeSampler(_ sampling: LLMSampling) -> UnsafeMutablePointer<llama_sampler> {
        let chain = api.llama_sampler_chain_init(api.llama_sampler_chain_default_params())!
        if sampling.temperature <= 0 {
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_greedy())
            return chain
        }
        if sampling.topK > 0 { api.llama_sampler_chain_add(chain, api.llama_sampler_init_top_k(Int32(sampling.topK))) }
        if sampling.topP < 1 { api.llama_sampler_chain_add(chain, api.llama_sampler_init_top_p(sampling.topP, 1)) }
        api.llama_sampler_chain_add(chain, api.llama_sampler_init_temp(sampling.temperature))
        api.llama_sampler_chain_add(chain, api.llama_sampler_init_dist(sampling.seed ?? UInt32.random(in: 0..<UInt32.max)))
        return chain
    }
}
