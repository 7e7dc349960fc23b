/// Speculative decoding: tokens guessed ahead of the model and checked by it in the same decode
/// step, so that one step can yield several tokens. The model still picks every token exactly
/// as it would without speculation (a guess is kept only where it is the token the request's
/// own sampler draws from the model's logits, with the same random draws), so the output is the
/// one the same request gives without it; only the speed differs.
///
/// Engines that cannot speculate (and requests that decode alone to keep a reproducibility
/// promise, which speculation's larger decode calls would break) decode one token a step.
public enum LLMSpeculation: Codable, Sendable, Equatable {
    /// One token a step.
    case off
    /// Prompt lookup: the answer's last few tokens are looked up earlier in the prompt and the
    /// answer, and the up to `maxDraftTokens` tokens that followed them there are the guess. It
    /// needs no second model and gains most where an answer repeats its input: rewriting,
    /// summarizing or answering from given text (RAG), code edits, JSON.
    case promptLookup(maxDraftTokens: Int = 8)

    /// The most tokens one step may guess (llama.cpp's per-row attention path, which keeps a
    /// batch-invariant context invariant, holds up to 63 rows of one sequence).
    public static let maxDraftTokens = 32

    /// The most tokens guessed in a step; 0 when off.
    package var draftLimit: Int {
        switch self {
        case .off: 0
        case .promptLookup(let maxDraftTokens): maxDraftTokens
        }
    }

    /// Prompt lookup of up to `draftTokens` tokens a step; off for 0 (how the CLI's
    /// `--speculate`, the settings and llama-server's `speculative.n_max` count).
    package init(draftTokens: Int) {
        self = draftTokens == 0 ? .off : .promptLookup(maxDraftTokens: draftTokens)
    }

    /// Throws ``ErrorCode/invalidInput`` when the draft length is not 1 to ``maxDraftTokens``.
    package func validate() throws {
        if case .promptLookup(let count) = self, !(1...Self.maxDraftTokens).contains(count) {
            throw SDKError.llm(.invalidInput, "speculation guesses 1 to \(Self.maxDraftTokens) tokens a step (got \(count))")
        }
    }
}
