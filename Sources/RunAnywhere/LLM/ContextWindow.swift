/// A prompt that fits the model's context window, and how it was made to fit.
package struct PromptPlan: Sendable, Equatable {
    /// The formatted prompt.
    package let prompt: String
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
    /// prompt would not leave `maxTokens` free in `contextLength`, the oldest history message is
    /// dropped (and any assistant or tool message left leading the history). With no history
    /// left, generation is limited to the room that remains; when the new messages alone leave no
    /// room at all, this throws ``ErrorCode/contextTooLong``. With `maxTokens`
    /// ``LLMGenerationOptions/untilContextFull``, history is dropped only while no token would
    /// fit, and the plan's `PromptPlan.maxNewTokens` is all the room left.
    package static func fit(
        system: Message?, history: [Message], newMessages: [Message], maxMessages: Int,
        contextLength: Int, maxTokens: Int,
        render: ([Message]) throws -> String, countTokens: (String) throws -> Int
    ) throws -> PromptPlan {
        let kept = Array(history.suffix(max(0, maxMessages)))
        let room = room(for: maxTokens)
        var start = 0
        while true {
            let messages = (system.map { [$0] } ?? []) + kept[start...] + newMessages
            let prompt = try render(messages)
            let tokens = try countTokens(prompt)
            let dropped = history.count - kept.count + start
            if room <= contextLength - tokens {  // not `tokens + room`: a caller's maxTokens may be near Int.max
                let allowed = maxTokens == LLMGenerationOptions.untilContextFull ? contextLength - tokens : maxTokens
                return PromptPlan(prompt: prompt, inputTokens: tokens, droppedMessages: dropped, maxNewTokens: allowed)
            }
            if start < kept.count {
                start += 1
                while start < kept.count, [.assistant, .tool].contains(kept[start].role) { start += 1 }
                continue
            }
            if tokens < contextLength {
                return PromptPlan(prompt: prompt, inputTokens: tokens, droppedMessages: dropped, maxNewTokens: contextLength - tokens)
            }
            throw SDKError.llm(
                .contextTooLong,
                "The prompt needs \(tokens) tokens with the newest messages alone, but the model's context holds \(contextLength); shorten the message\(system == nil ? "" : " or the system prompt")"
            )
        }
    }

    /// What a prompt must leave free of the context for an answer of at most `maxTokens`: that
    /// many, or one token for an answer that runs ``LLMGenerationOptions/untilContextFull``.
    package static func room(for maxTokens: Int) -> Int {
        maxTokens == LLMGenerationOptions.untilContextFull ? 1 : maxTokens
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
