import Foundation

/// Measurements of one assistant message, as the RunAnywhere sample app records them; token
/// counts are the model's own tokens, not estimates. Times are in seconds.
public struct MessageAnalytics: Codable, Sendable, Equatable {
    /// How generation ended.
    public enum CompletionStatus: String, Codable, Sendable {
        case complete
        case interrupted
        case failed
        case timeout
    }

    /// Whether the answer was streamed.
    public enum GenerationMode: String, Codable, Sendable {
        case streaming
        case nonStreaming
    }

    /// The sampling settings used.
    public struct GenerationParameters: Codable, Sendable, Equatable {
        public let temperature: Double
        public let maxTokens: Int
        public let topP: Double?
        public let topK: Int?

        /// Creates parameters.
        public init(temperature: Double = 0.7, maxTokens: Int = 500, topP: Double? = nil, topK: Int? = nil) {
            self.temperature = temperature
            self.maxTokens = maxTokens
            self.topP = topP
            self.topK = topK
        }
    }

    // Identifiers
    public let messageId: String
    public let conversationId: String
    public let modelId: String
    public let modelName: String
    public let framework: String
    /// Where the model ran: `cpu`, `cuda` or `vulkan` (nil when no answer came, and in
    /// conversations saved before it was kept). Additive to the spec.
    public let backend: String?
    public let timestamp: Date

    // Timing metrics
    public let timeToFirstToken: TimeInterval?
    public let totalGenerationTime: TimeInterval
    public let thinkingTime: TimeInterval?
    public let responseTime: TimeInterval?

    // Token metrics
    public let inputTokens: Int
    public let outputTokens: Int
    public let thinkingTokens: Int?
    public let responseTokens: Int
    public let averageTokensPerSecond: Double

    // Quality metrics
    public let messageLength: Int
    public let wasThinkingMode: Bool
    public let wasInterrupted: Bool
    public let retryCount: Int
    public let completionStatus: CompletionStatus

    // Performance indicators
    public let tokensPerSecondHistory: [Double]
    public let generationMode: GenerationMode

    // Context information
    /// Share of the model's context window the prompt and answer filled, 0 to 1.
    public let contextWindowUsage: Double
    public let generationParameters: GenerationParameters

    /// Creates analytics.
    public init(
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
