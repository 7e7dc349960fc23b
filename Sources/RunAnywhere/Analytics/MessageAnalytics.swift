import Foundation

/// Measurements of one assistant message, as the RunAnywhere sample app records them; token
/// counts are the model's own tokens, not estimates. Times are in seconds.
public struct MessageAnalytics: Codable, Sendable, Equatable {
    /// How generation ended.
    public enum CompletionStatus: String, Codable, Sendable {
        /// The answer ended normally.
        case complete
        /// The answer was cancelled.
        case interrupted
        /// The answer ended with an error.
        case failed
        /// The answer ran out of time.
        case timeout
    }

    /// Whether the answer was streamed.
    public enum GenerationMode: String, Codable, Sendable {
        /// The answer was streamed token by token.
        case streaming
        /// The answer came back whole.
        case nonStreaming
    }

    /// The sampling settings used.
    public struct GenerationParameters: Codable, Sendable, Equatable {
        /// The sampling temperature.
        public let temperature: Double
        /// The most tokens the answer could have.
        public let maxTokens: Int
        /// Nucleus sampling, when set.
        public let topP: Double?
        /// Top-k sampling, when set.
        public let topK: Int?

        /// Creates parameters.
        package init(temperature: Double = 0.7, maxTokens: Int = 500, topP: Double? = nil, topK: Int? = nil) {
            self.temperature = temperature
            self.maxTokens = maxTokens
            self.topP = topP
            self.topK = topK
        }
    }

    // Identifiers
    /// The message these figures are of.
    public let messageId: String
    /// The conversation the message belongs to.
    public let conversationId: String
    /// The model that answered.
    public let modelId: String
    /// The answering model's name for people.
    public let modelName: String
    /// The engine that answered.
    public let framework: String
    /// Where the model ran: `cpu`, `cuda` or `vulkan` (nil when no answer came, and in
    /// conversations saved before it was kept). Additive to the spec.
    public let backend: String?
    /// When the answer ended.
    public let timestamp: Date

    // Timing metrics
    /// Seconds until the first token, when one came.
    public let timeToFirstToken: TimeInterval?
    /// Seconds from the request to the last token.
    public let totalGenerationTime: TimeInterval
    /// Seconds spent thinking, for a thinking model.
    public let thinkingTime: TimeInterval?
    /// Seconds spent answering after thinking, for a thinking model.
    public let responseTime: TimeInterval?

    // Token metrics
    /// Tokens of the prompt.
    public let inputTokens: Int
    /// Tokens generated, thinking included.
    public let outputTokens: Int
    /// Tokens spent thinking, for a thinking model.
    public let thinkingTokens: Int?
    /// Tokens of the answer itself, thinking excluded.
    public let responseTokens: Int
    /// Output tokens per second over the whole generation.
    public let averageTokensPerSecond: Double

    // Quality metrics
    /// Characters of the answer.
    public let messageLength: Int
    /// Whether the model thought before answering.
    public let wasThinkingMode: Bool
    /// Whether the answer was cancelled.
    public let wasInterrupted: Bool
    /// How many times the answer was retried.
    public let retryCount: Int
    /// How the answer ended.
    public let completionStatus: CompletionStatus

    // Performance indicators
    /// Tokens per second sampled during the generation.
    public let tokensPerSecondHistory: [Double]
    /// Streamed or whole.
    public let generationMode: GenerationMode

    // Context information
    /// Share of the model's context window the prompt and answer filled, 0 to 1.
    public let contextWindowUsage: Double
    /// The sampling settings used.
    public let generationParameters: GenerationParameters

    /// Creates analytics.
    package init(
        messageId: String, conversationId: String, modelId: String, modelName: String, framework: String, timestamp: Date,
        timeToFirstToken: TimeInterval?, totalGenerationTime: TimeInterval, thinkingTime: TimeInterval?, responseTime: TimeInterval?,
        inputTokens: Int, outputTokens: Int, thinkingTokens: Int?, responseTokens: Int, averageTokensPerSecond: Double,
        messageLength: Int, wasThinkingMode: Bool, wasInterrupted: Bool, retryCount: Int, completionStatus: CompletionStatus,
        tokensPerSecondHistory: [Double], generationMode: GenerationMode, contextWindowUsage: Double,
        generationParameters: GenerationParameters, backend: String? = nil
    ) {
        self.messageId = messageId
        self.conversationId = conversationId
        self.modelId = modelId
        self.modelName = modelName
        self.framework = framework
        self.backend = backend
        self.timestamp = timestamp
        self.timeToFirstToken = timeToFirstToken
        self.totalGenerationTime = totalGenerationTime
        self.thinkingTime = thinkingTime
        self.responseTime = responseTime
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.thinkingTokens = thinkingTokens
        self.responseTokens = responseTokens
        self.averageTokensPerSecond = averageTokensPerSecond
        self.messageLength = messageLength
        self.wasThinkingMode = wasThinkingMode
        self.wasInterrupted = wasInterrupted
        self.retryCount = retryCount
        self.completionStatus = completionStatus
        self.tokensPerSecondHistory = tokensPerSecondHistory
        self.generationMode = generationMode
        self.contextWindowUsage = contextWindowUsage
        self.generationParameters = generationParameters
    }
}
