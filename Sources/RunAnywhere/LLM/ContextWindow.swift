/// A prompt that fits the model's context window, and how it was made to fit.
package struct PromptPlan: Sendable, Equatable {
    /// The formatted prompt.
    package let prompt: String
    /// The UTF-8 byte ranges of `prompt` that are the messages' own text (``PromptText``).
    package var plainText: [Range<Int>] = []
    /// Its length in tokens.
    package let inputTokens: Int
    /// How many of the oldest history messages were left out to make room.
    package let droppedMessages: Int
    /// Most tokens that may be generated: the requested maximum, or less when the context is nearly full.
    package let maxNewTokens: Int
}

/// Fits prompts into a context window, dropping the oldest history first.
package enum ContextWindow {
    /// Plans a chat prompt: `system` (if any), the newest `maxMessages` of `history`, then
    /// `newMessages` (the user's message, and the tool calls and results after it). While the
    /// prompt would not leave the answer's room free in `contextLength` (``room(for:contextLength:)``:
    /// `maxTokens`, at most half the context), the oldest history message is dropped (and any
    /// assistant or tool message left leading the history). Generation is limited to `maxTokens`
    /// and to the room that remains; when the new messages alone leave no room at all, this throws
    /// ``ErrorCode/contextTooLong``. With `maxTokens` ``LLMGenerationOptions/untilContextFull``,
    /// history is dropped only while no token would fit. With `dropsHistory` false, nothing is
    /// dropped: a prompt that leaves no room at all throws ``ErrorCode/contextTooLong``.
    ///
    /// The prompt only shrinks as messages are dropped, so the first start that fits is found by
    /// bisection: O(log n) prompts are rendered and counted (one per message dropped would be
    /// quadratic: minutes of a thread for a request of 4,000 short messages).
    package static func fit(
        system: Message?, history: [Message], newMessages: [Message], maxMessages: Int,
        contextLength: Int, maxTokens: Int, dropsHistory: Bool = true,
        render: ([Message]) throws -> PromptText, countTokens: (PromptText) throws -> Int
    ) throws -> PromptPlan {
        let kept = Array(history.suffix(max(0, maxMessages)))
        let room = room(for: maxTokens, contextLength: contextLength)
        // Where the prompt may start: the whole history, then after each message dropped, with
        // the assistant and tool messages it would leave leading the history; last, none of it.
        var starts = [0]
        while let last = starts.last, last < kept.count {
            var next = last + 1
            while next < kept.count, [.assistant, .tool].contains(kept[next].role) { next += 1 }
            starts.append(next)
        }
        func prompt(from candidate: Int) throws -> (text: PromptText, tokens: Int) {
            let text = try render((system.map { [$0] } ?? []) + kept[starts[candidate]...] + newMessages)
            return (text, try countTokens(text))
        }
        func fits(_ tokens: Int) -> Bool { room <= contextLength - tokens }
        func plan(_ candidate: Int, _ prompt: (text: PromptText, tokens: Int)) -> PromptPlan {
            PromptPlan(
                prompt: prompt.text.text, plainText: prompt.text.plainText, inputTokens: prompt.tokens,
                droppedMessages: history.count - kept.count + starts[candidate], maxNewTokens: min(maxTokens, contextLength - prompt.tokens)
            )
        }
        let whole = try prompt(from: 0)
        if fits(whole.tokens) { return plan(0, whole) }
        guard dropsHistory else {
            guard whole.tokens < contextLength else {
                throw SDKError.llm(
                    .contextTooLong,
                    "The conversation needs \(whole.tokens) tokens with none of it left out, but the model's context holds \(contextLength); shorten it, or let its oldest messages be dropped"
                )
            }
            return plan(0, whole)
        }
        var high = starts.count - 1
        var shortest = high == 0 ? whole : try prompt(from: high)
        guard fits(shortest.tokens) else {
            if shortest.tokens < contextLength { return plan(high, shortest) }
            throw SDKError.llm(
                .contextTooLong,
                "The prompt needs \(shortest.tokens) tokens with the newest messages alone, but the model's context holds \(contextLength); shorten the message\(system == nil ? "" : " or the system prompt")"
            )
        }
        // starts[low] does not fit, starts[high] does.
        var low = 0
        while high - low > 1 {
            let middle = (low + high) / 2
            let candidate = try prompt(from: middle)
            if fits(candidate.tokens) {
                (high, shortest) = (middle, candidate)
            } else {
                low = middle
            }
        }
        return plan(high, shortest)
    }

    /// What a prompt must leave free of a context of `contextLength` tokens for an answer of at
    /// most `maxTokens`: that many, but never more than half the context, or one token for an
    /// answer that runs ``LLMGenerationOptions/untilContextFull``. Clients send a maximum meant as
    /// a cap (Anthropic's require one; 8,192 or 64,000 are common), often beyond the whole
    /// context: reserving all of it would leave no room for the conversation, which would be
    /// dropped, message by message, without a word. Half keeps the newest history and still
    /// gives a long answer room; the answer stops where the context is full.
    package static func room(for maxTokens: Int, contextLength: Int) -> Int {
        maxTokens == LLMGenerationOptions.untilContextFull ? 1 : min(maxTokens, max(1, contextLength / 2))
    }

    /// Plans a prompt used verbatim: it must leave room for at least one generated token.
    package static func fit(rawPrompt: String, contextLength: Int, maxTokens: Int, countTokens: (String) throws -> Int) throws -> PromptPlan
    {
        let tokens = try countTokens(rawPrompt)
        guard tokens < contextLength else {
            throw SDKError.llm(.contextTooLong, "The prompt needs \(tokens) tokens, but the model's context holds \(contextLength)")
        }
        return PromptPlan(prompt: rawPrompt, inputTokens: tokens, droppedMessages: 0, maxNewTokens: min(maxTokens, contextLength - tokens))
    }
}
