import Foundation

extension MessageAnalytics {
    /// The analytics of an answer from its generation's result (none when generation failed
    /// before producing one), or from each round's for an answer made in rounds of tool calls.
    /// Token counts are the engine's: the prompt the model read last, and the tokens it
    /// generated in all, split into thinking and answer, at a speed that leaves out the time its
    /// tool calls took (`toolTime`); `messageLength`, the answer's characters.
    init(
        id: UUID, conversationID: String, model: ModelInfo, started: Date, elapsed: TimeInterval, rounds: [LLMGenerationResult],
        toolTime: TimeInterval = 0, messageLength: Int, status: CompletionStatus, mode: GenerationMode, options: LLMGenerationOptions,
        contextLength: Int,
        retryCount: Int
    ) {
        let (first, last) = (rounds.first, rounds.last)
        let sum = { (count: (LLMGenerationResult) -> Int) in rounds.reduce(0) { $0 &+ count($1) } }
        let thinkingMs = rounds.compactMap(\.thinkingTimeMs)
        let thinkingTime = thinkingMs.isEmpty ? nil : thinkingMs.reduce(0, +) / 1000
        let thinkingTokens = rounds.compactMap(\.thinkingTokens)
        let output = sum(\.tokensUsed)
        let input = last?.inputTokens ?? 0
        self.init(
            messageId: id.uuidString, conversationId: conversationID, modelId: model.id, modelName: model.name,
            framework: model.framework.rawValue, timestamp: started,
            timeToFirstToken: first?.timeToFirstTokenMs.map { $0 / 1000 }, totalGenerationTime: elapsed,
            thinkingTime: thinkingTime, responseTime: thinkingTime.map { elapsed - $0 },
            inputTokens: input, outputTokens: output, thinkingTokens: thinkingTokens.isEmpty ? nil : thinkingTokens.reduce(0, &+),
            responseTokens: sum(\.responseTokens),
            averageTokensPerSecond: elapsed - toolTime > 0 ? Double(output) / (elapsed - toolTime) : 0,
            messageLength: messageLength, wasThinkingMode: rounds.contains { $0.thinkingContent != nil },
            wasInterrupted: status == .interrupted || status == .timeout, retryCount: retryCount, completionStatus: status,
            tokensPerSecondHistory: rounds.flatMap(\.tokensPerSecondHistory), generationMode: mode,
            contextWindowUsage: contextLength > 0 ? Double(input + (last?.tokensUsed ?? 0)) / Double(contextLength) : 0,
            generationParameters: GenerationParameters(
                temperature: Self.decimal(options.temperature), maxTokens: options.maxTokens, topP: Self.decimal(options.topP),
                topK: options.topK
            ),
            backend: last?.backend
        )
    }

    /// `0.7` as the Double 0.7, not 0.699999988 (the Float's exact binary value).
    static func decimal(_ value: Float) -> Double {
        Double("\(value)") ?? Double(value)
    }
}
