import CLlamaCpp
import Foundation
import RunAnywhere

/// A language model running on llama.cpp: tokenizing and templates on the caller's thread,
/// generations on the model's ``BatchScheduler``.
///
/// Each sequence's KV memory is remembered between generations, so a chat turn only evaluates
/// what is new since the previous one: the whole common prefix, the previous answer included.
/// A request that promises reproducible output (seeded; greedy too on a model loaded
/// ``RunAnywhere/ModelLoadOptions/reproducible``) on a context that is not batch-invariant decodes alone
/// and keeps only whole prompt chunks of earlier turns, so every number of its result is what
/// a fresh run computes (see ``PromptCache``).
final class LlamaCppService: LLMServiceWithReceivers {
    let llama: LlamaContext
    private let defaultThreads: Int
    private let defaultSpeculation: LLMSpeculation
    private let scheduler: BatchScheduler
    private let states: PromptStateStore?
    let backend: String

    /// A service over `llama`, which runs on `backend` (`cpu`, `cuda`, `vulkan`).
    /// Its long prompts' states are saved in and restored from `states`, when given.
    init(
        llama: LlamaContext, defaultThreads: Int, defaultSpeculation: LLMSpeculation, queueLimit: Int, backend: String,
        states: PromptStateStore? = nil
    ) {
        self.llama = llama
        self.backend = backend
        self.defaultThreads = defaultThreads
        self.defaultSpeculation = defaultSpeculation
        self.states = states
        self.scheduler = BatchScheduler(llama: llama, queueLimit: queueLimit, states: states)
    }

    deinit { scheduler.stop() }

    /// Ends the scheduler thread (running and queued generations end as cancelled), then frees
    /// the model and its context: when this returns, the memory is the system's again.
    func unload() async {
        scheduler.stop()
        await scheduler.stopped.wait()
        scheduler.drafts.takeAll().forEach { $0.llama.free() }
        llama.free()
        states?.flush()
    }

    var contextLength: Int { llama.contextLength }

    /// The LoRA adapters and draft models loaded for requests.
    var auxiliaryMemory: Int64 { scheduler.adapters.memory + scheduler.drafts.memory }

    /// Loads the draft model at `path` (and keeps it loaded while idle, as the one used last), so
    /// that a load whose default draft cannot draft for the model fails.
    func loadDraft(_ path: String) throws {
        scheduler.drafts.unpin(try scheduler.drafts.pin(path: path, threads: defaultThreads))
    }

    var queuedGenerations: Int { scheduler.queued }

    func tokenCount(_ text: String, plainText: [Range<Int>]) throws -> Int {
        try llama.tokenize(prompt: text, plainText: plainText).count
    }

    func hasSpecialToken(_ text: String) -> Bool {
        (try? llama.tokenize(text, addSpecial: false).count == 1) ?? false
    }

    func applyChatTemplate(_ messages: [Message], addAssistantPrefix: Bool) -> String? {
        llama.applyChatTemplate(messages, addAssistantPrefix: addAssistantPrefix)
    }

    var chatTemplateSource: String? { llama.chatTemplate }

    var readsImages: Bool { llama.vision != nil }

    func imageTokenCount(_ image: LoadedImage) throws -> Int {
        guard let vision = llama.vision else { return 0 }
        // The same tokenization the engine does, less the text around the marker.
        return try vision.tokenize(LLMEngineRequest.imageMarker + ".", images: [image], llama: llama).tokens.count
            - llama.tokenize(".", addSpecial: true).count
    }

    func startGeneration(_ request: LLMEngineRequest) throws -> LLMEngineRun {
        try start(request, reportingTo: nil)
    }

    func startGeneration(_ request: LLMEngineRequest, reportingTo receiver: LLMEngineReceiver) throws -> LLMEngineRun {
        try start(request, reportingTo: receiver)
    }

    private func start(_ request: LLMEngineRequest, reportingTo receiver: LLMEngineReceiver?) throws -> LLMEngineRun {
        let prompt: LlamaPrompt
        if let tokens = request.promptTokens {
            guard request.images.isEmpty else { throw SDKError.llm(.invalidInput, "A prompt of token ids cannot show images") }
            try checkVocabulary(tokens)  // llama.cpp aborts the process on an id outside the vocabulary
            prompt = LlamaPrompt(tokens: tokens)
        } else if request.images.isEmpty {
            prompt = LlamaPrompt(tokens: try llama.tokenize(prompt: request.prompt, plainText: request.plainText))
        } else {
            guard let vision = llama.vision else {
                throw SDKError.llm(.modelIncompatible, "The model does not read images: it has no vision projector")
            }
            prompt = try vision.tokenize(request.prompt, plainText: request.plainText, images: request.images, llama: llama)
        }
        guard !prompt.tokens.isEmpty else { throw SDKError.llm(.emptyInput, "The prompt has no tokens") }
        if request.promptLogprobs != nil, !prompt.images.isEmpty {
            throw SDKError.llm(.invalidInput, "The log-probabilities of a prompt with images cannot be given")
        }
        if let grammar = request.grammar { try llama.checkGrammar(grammar) }
        try request.sampling.validate()
        if let token = request.sampling.logitBias?.keys.first(where: { Int($0) >= llama.vocabularySize }) {
            throw SDKError.llm(.invalidInput, "logitBias names token \(token); the model's vocabulary has \(llama.vocabularySize) tokens")
        }
        let speculation = request.speculation ?? defaultSpeculation
        try speculation.validate()
        guard prompt.tokens.count < contextLength else {
            let images = prompt.images.isEmpty ? "" : " (\(prompt.imageTokenCount) of them for its images)"
            throw SDKError.llm(.contextTooLong, "The prompt has \(prompt.tokens.count) tokens\(images); the context holds \(contextLength)")
        }
        let (run, emitter) = LLMEngineRun.make(onCancel: nil, receiver: receiver)
        let promised = llama.reproducible ? request.sampling.isReproducible : request.sampling.seed != nil
        try scheduler.submit(
            LlamaGeneration(
                request: request, prompt: prompt, emitter: emitter, threads: request.threads ?? defaultThreads,
                decodesAlone: promised && !llama.batchInvariant, speculation: speculation
            ))
        return run
    }
}
