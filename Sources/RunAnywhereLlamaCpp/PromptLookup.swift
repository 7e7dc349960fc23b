import CLlamaCpp

/// Prompt lookup drafting (``RunAnywhere/LLMSpeculation/promptLookup(maxDraftTokens:)``): the
/// last few tokens of a sequence, found earlier in it, and what followed them there is the
/// guess for what follows now. The longest n-gram that recurs wins, and of its occurrences the
/// latest, whose continuation is the freshest (in a rewrite, the part of the input being
/// copied). A single recurring token is too weak a clue, so at least two must match. How many of
/// the guesses a step checks is the scheduler's choice (``DecodeCost``).
enum PromptLookup {
    /// The longest and shortest n-grams looked up.
    static let longest = 4
    static let shortest = 2

    /// Up to `count` tokens that may follow `history`: what followed the latest earlier
    /// occurrence of its longest recurring tail; none when its tail does not recur.
    static func draft(after history: [llama_token], count: Int) -> [llama_token] {
        guard count > 0 else { return [] }
        for n in stride(from: min(longest, history.count - 1), through: shortest, by: -1) {
            let tail = history[(history.count - n)...]
            // Latest first; an occurrence must end before the tail starts to have a continuation.
            var start = history.count - n - 1
            while start >= 0 {
                if history[start] == tail.first!, history[start..<start + n].elementsEqual(tail) {
                    let next = start + n
                    return Array(history[next..<min(next + count, history.count)])
                }
                start -= 1
            }
        }
        return []
    }
}
