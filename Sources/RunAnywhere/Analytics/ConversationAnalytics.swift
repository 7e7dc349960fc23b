import Foundation

/// Aggregate measurements of a conversation, recomputed after every message.
public struct ConversationAnalytics: Codable, Sendable, Equatable {
    /// The conversation these figures are of.
    public let conversationId: String
    /// When the conversation began.
    public let startTime: Date
    /// When the latest answer ended; nil before the first.
    public let endTime: Date?
    /// How many messages the conversation holds.
    public let messageCount: Int

    // Aggregate metrics
    /// Mean time to first token over the answers that have one, in seconds.
    public let averageTTFT: TimeInterval
    /// Mean of the answers' average tokens per second.
    public let averageGenerationSpeed: Double
    /// Input plus output tokens over all answers.
    public let totalTokensUsed: Int
    /// Every model that answered in the conversation.
    public let modelsUsed: Set<String>

    // Efficiency metrics
    /// Share of answers that used thinking, 0 to 1.
    public let thinkingModeUsage: Double
    /// Share of answers that completed, 0 to 1.
    public let completionRate: Double
    /// Mean answer length in characters.
    public let averageMessageLength: Int

    // Real-time metrics
    /// The model of the latest answer, if any.
    public let currentModel: String?
    /// The figures of the latest answer, if any.
    public let ongoingMetrics: MessageAnalytics?

    /// Computes the analytics of `conversation` from its messages' analytics; nil before the
    /// first answer.
    package init?(conversation: Conversation, currentModel: String?) {
        guard let totals = AnalyticsTotals(conversation.messages.compactMap(\.analytics)) else { return nil }
        conversationId = conversation.id
        startTime = conversation.createdAt
        endTime = conversation.messages.last?.timestamp
        messageCount = conversation.messages.count
        averageTTFT = totals.averageTTFT
        averageGenerationSpeed = totals.averageTokensPerSecond
        totalTokensUsed = totals.totalTokens
        modelsUsed = totals.modelNames
        thinkingModeUsage = totals.thinkingModeUsage
        completionRate = totals.completionRate
        averageMessageLength = totals.averageMessageLength
        self.currentModel = currentModel
        ongoingMetrics = nil
    }
}

/// The conversation's performance at a glance, as the chat details' performance tab shows it.
public struct PerformanceSummary: Codable, Sendable, Equatable {
    /// Answers with analytics.
    public let messageCount: Int
    /// Mean time to first token, in seconds.
    public let averageTTFT: TimeInterval
    /// Mean tokens per second.
    public let averageTokensPerSecond: Double
    /// Mean total generation time, in seconds.
    public let averageResponseTime: TimeInterval
    /// Input plus output tokens.
    public let totalTokens: Int
    /// Display names of the models that answered, sorted.
    public let modelsUsed: [String]
    /// Share of answers that used thinking, 0 to 1.
    public let thinkingModeUsage: Double
    /// Share of answers that completed, 0 to 1.
    public let completionRate: Double
    /// Mean answer length in characters.
    public let averageMessageLength: Int

    /// Summarises `messages`; nil when none has analytics.
    package init?(messages: [ChatMessage]) {
        guard let totals = AnalyticsTotals(messages.compactMap(\.analytics)) else { return nil }
        messageCount = totals.count
        averageTTFT = totals.averageTTFT
        averageTokensPerSecond = totals.averageTokensPerSecond
        averageResponseTime = totals.averageResponseTime
        totalTokens = totals.totalTokens
        modelsUsed = totals.modelNames.sorted()
        thinkingModeUsage = totals.thinkingModeUsage
        completionRate = totals.completionRate
        averageMessageLength = totals.averageMessageLength
    }
}

/// Sums and means over the analytics of several messages.
struct AnalyticsTotals {
    let count: Int
    let averageTTFT: TimeInterval
    let averageTokensPerSecond: Double
    let averageResponseTime: TimeInterval
    let totalTokens: Int
    let modelNames: Set<String>
    let thinkingModeUsage: Double
    let completionRate: Double
    let averageMessageLength: Int

    init?(_ analytics: [MessageAnalytics]) {
        guard !analytics.isEmpty else { return nil }
        let total = Double(analytics.count)
        let ttfts = analytics.compactMap(\.timeToFirstToken)
        count = analytics.count
        averageTTFT = ttfts.isEmpty ? 0 : ttfts.reduce(0, +) / Double(ttfts.count)
        averageTokensPerSecond = analytics.map(\.averageTokensPerSecond).reduce(0, +) / total
        averageResponseTime = analytics.map(\.totalGenerationTime).reduce(0, +) / total
        // Saved conversations are files anyone may edit: counts are summed saturating, never trapping.
        totalTokens = analytics.reduce(0) { $0.saturatingAdd($1.inputTokens).saturatingAdd($1.outputTokens) }
        modelNames = Set(analytics.map(\.modelName))
        thinkingModeUsage = Double(analytics.filter(\.wasThinkingMode).count) / total
        completionRate = Double(analytics.filter { $0.completionStatus == .complete }.count) / total
        averageMessageLength = analytics.reduce(0) { $0.saturatingAdd($1.messageLength) } / analytics.count
    }
}
