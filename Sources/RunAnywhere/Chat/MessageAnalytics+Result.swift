import Foundation

extension MessageAnalytics {
    /// The analytics of an answer from its generation result (nil when generation failed
    /// before producing one). Token counts are the engine's: the prompt the model read, and the
    /// tokens it generated, split into thinking and answer.
    init(
        id: UUID, conversationID: String, model: ModelInfo, started: Date, elapsed: TimeInterval, result: LLMGenerationResult?,
        status: CompletionStatus, mode: GenerationMode, options: LLMGenerationOptions, contextLength: Int, retryCount: Int
    ) {
        let thinkingTime = result?.thinkingTimeMs.map { $0 / 1000 }
        let output = result?.tokensUsed ?? 0
        let input = result?.inputTokens ?? 0
        self.init(
            messageId: id.uuidString, conversationId: conversationID, modelId: model.id, modelName: model.name,
            framework: model.framework.rawValue, timestamp: started,
            timeToFirstToken: result?.timeToFirstTokenMs.map { $0 / 1000 }, totalGenerationTime: elapsed,
            thinkingTime: thinkingTime, responseTime: thinkingTime.map { elapsed - $0 },
            inputTokens: input, outputTokens: output, thinkingTokens: result?.thinkingTokens,
            responseTokens: result?.responseTokens ?? 0, averageTokensPerSecond: elapsed > 0 ? Double(output) / elapsed : 0,
            messageLength: result?.text.count ?? 0, wasThinkingMode: result?.thinkingContent != nil,
            wasInterrupted: status == .interrupted || status == .timeout, retryCount: retryCount, completionStatus: status,
            tokensPerSecondHistory: result?.tokensPerSecondHistory ?? [], generationMode: mode,
            contextWindowUsage: contextLength > 0 ? Double(input + output) / Double(contextLength) : 0,
            generationParameters: GenerationParameters(
                temperature: Self.decimal(options.temperature), maxTokens: options.maxTokens, topP: Self.decimal(options.topP),
                topK: options.topK
            ),
            backend: result?.backend
        )
    }

    /// `0.7` as the Double 0.7, not 0.699999988 (the Float's exact binary value).
    static func decimal(_ value: Float) -> Double {
        Double("\(value)") ?? Double(value)
    }
}
