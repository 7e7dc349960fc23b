import CLlamaCpp
import Foundation
import RunAnywhere

/// One request in the ``BatchScheduler``: its prompt tokens, sampler and progress. Created by
/// the submitting thread, then touched by the scheduler thread only.
final class LlamaGeneration {
    let request: LLMEngineRequest
    let prompt: LlamaPrompt
    let emitter: LLMEngineEmitter
    /// CPU threads its prompt chunks and lone decode steps run on.
    let threads: Int
    /// Whether it decodes in calls of its own to keep a reproducibility promise that the
    /// context cannot keep in a shared batch (see ``BatchScheduler``).
    let decodesAlone: Bool
    /// The LoRA adapters it applies, loaded when it was submitted.
    var adapters: [LoRAAdapterCache.Applied] = []
    var sampler: LlamaTokenSampler?
    /// The request's grammar, kept apart from `sampler` (see ``BatchScheduler``'s sampling).
    var grammar: UnsafeMutablePointer<llama_sampler>?
    /// Prompt tokens taken from the sequence's memory instead of evaluated.
    var reused = 0
    /// Prompt tokens in the sequence's memory so far.
    var evaluated = 0
    var promptStarted = ContinuousClock.now
    /// Tokens sampled so far.
    var generated = 0
    /// The token sampled last, to be decoded in the next step.
    var pending: llama_token?
    /// The most tokens it guesses after `pending` in a step (``PromptLookup``, or `drafter`); 0
    /// when it does not speculate.
    let draftLimit: Int
    /// The draft model that guesses for it, by path; nil for prompt lookup or no speculation.
    let draftPath: String?
    /// That draft model, loaded when it was submitted.
    var drafter: DraftModel?
    /// Guesses checked and kept so far, and the steps in which one was not kept.
    var drafted = 0
    var accepted = 0
    var rejections = 0

    /// Images encoded so far, and the seconds that took.
    var imagesEncoded = 0
    var imageEncodeSeconds = 0.0

    init(
        request: LLMEngineRequest, prompt: LlamaPrompt, emitter: LLMEngineEmitter, threads: Int, decodesAlone: Bool,
        speculation: LLMSpeculation
    ) {
        self.request = request
        self.prompt = prompt
        self.emitter = emitter
        self.threads = threads
        self.decodesAlone = decodesAlone
        // Speculation's decode calls of several rows would change the numbers of a request
        // that decodes alone to keep them fixed; a draft model cannot read a prompt's images.
        let speculating = decodesAlone || (speculation.draftModel != nil && !prompt.images.isEmpty) ? LLMSpeculation.off : speculation
        draftLimit = speculating.draftLimit
        draftPath = speculating.draftModel
    }

    /// The chance that its next guess is kept, given the ones before it were: its own record so
    /// far, starting from an even chance.
    var keepChance: Double { Double(accepted + 1) / Double(accepted + rejections + 2) }

    /// Whether it reads its prompt in decode calls of its own: to keep a reproducibility promise,
    /// or to have every prompt token's logits (``LLMEngineRequest/promptLogprobs``).
    var readsPromptAlone: Bool { decodesAlone || request.promptLogprobs != nil }

    /// Whether part of the prompt still has to be evaluated.
    var isReadingPrompt: Bool { evaluated < prompt.tokens.count }
}
