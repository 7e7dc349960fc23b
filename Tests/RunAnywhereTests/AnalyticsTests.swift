import Foundation
import RunAnywhere
import Testing

@Suite struct AnalyticsTests {
    func analytics(
        ttft: Double?, total: Double, input: Int, output: Int, speed: Double, length: Int, thinking: Bool,
        status: MessageAnalytics.CompletionStatus, model: String
    ) -> MessageAnalytics {
        MessageAnalytics(
            messageId: UUID().uuidString, conversationId: "c", modelId: model, modelName: model, framework: "LlamaCpp", timestamp: Date(),
            timeToFirstToken: ttft, totalGenerationTime: total, thinkingTime: thinking ? 0.1 : nil,
            responseTime: thinking ? total - 0.1 : nil,
            inputTokens: input, outputTokens: output, thinkingTokens: thinking ? 3 : nil, responseTokens: output - (thinking ? 3 : 0),
            averageTokensPerSecond: speed, messageLength: length, wasThinkingMode: thinking, wasInterrupted: status == .interrupted,
            retryCount: 0, completionStatus: status, tokensPerSecondHistory: [], generationMode: .streaming, contextWindowUsage: 0.1,
            generationParameters: .init(temperature: 0.7, maxTokens: 100, topP: 0.95, topK: 40)
        )
    }

    @Test func conversationAnalyticsAndSummaryAggregateTheAnswers() throws {
        var chat = Conversation(createdAt: Date(timeIntervalSince1970: 0))
        chat.append(ChatMessage(role: .user, content: "a"))
        chat.append(
            ChatMessage(
                role: .assistant, content: "x",
                analytics: analytics(
                    ttft: 0.2, total: 1, input: 10, output: 20, speed: 20, length: 100, thinking: true, status: .complete, model: "A")))
        chat.append(ChatMessage(role: .user, content: "b"))
        chat.append(
            ChatMessage(
                role: .assistant, content: "y",
                analytics: analytics(
                    ttft: 0.4, total: 3, input: 30, output: 40, speed: 40, length: 50, thinking: false, status: .interrupted, model: "B")))
        chat.append(ChatMessage(role: .user, content: "c"))
        chat.append(
            ChatMessage(
                role: .assistant, content: "",
                analytics: analytics(
                    ttft: nil, total: 2, input: 0, output: 0, speed: 0, length: 0, thinking: false, status: .failed, model: "B"),
                error: "boom"))
        chat.refreshAnalytics(currentModel: "B")
        let analytics = try #require(chat.analytics)
        #expect(analytics.messageCount == 6)
        #expect(abs(analytics.averageTTFT - 0.3) < 1e-9, "averaged over the answers that have a first token")
        #expect(abs(analytics.averageGenerationSpeed - 20) < 1e-9)
        #expect(analytics.totalTokensUsed == 100)
        #expect(analytics.modelsUsed == ["A", "B"])
        #expect(abs(analytics.thinkingModeUsage - 1.0 / 3) < 1e-9)
        #expect(abs(analytics.completionRate - 1.0 / 3) < 1e-9)
        #expect(analytics.averageMessageLength == 50)
        #expect(analytics.currentModel == "B")
        #expect(analytics.startTime == Date(timeIntervalSince1970: 0))
        let summary = try #require(chat.performanceSummary)
        #expect(summary.messageCount == 3)
        #expect(abs(summary.averageResponseTime - 2) < 1e-9)
        #expect(summary.modelsUsed == ["A", "B"])
        #expect(summary.totalTokens == 100)
        #expect(ConversationAnalytics(conversation: Conversation(), currentModel: nil) == nil)
    }

    @Test func messageAnalyticsJSONUsesTheSpecsKeys() throws {
        let value = analytics(ttft: 0.1, total: 1, input: 1, output: 2, speed: 2, length: 3, thinking: true, status: .timeout, model: "m")
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder.runAnywhere.encode(value)) as? [String: Any])
        let expected: Set = [
            "messageId", "conversationId", "modelId", "modelName", "framework", "timestamp", "timeToFirstToken", "totalGenerationTime",
            "thinkingTime", "responseTime", "inputTokens", "outputTokens", "thinkingTokens", "responseTokens", "averageTokensPerSecond",
            "messageLength", "wasThinkingMode", "wasInterrupted", "retryCount", "completionStatus", "tokensPerSecondHistory",
            "generationMode", "contextWindowUsage", "generationParameters",
        ]
        #expect(Set(object.keys) == expected)
        #expect(object["completionStatus"] as? String == "timeout")
        #expect(object["generationMode"] as? String == "streaming")
        #expect(Set((object["generationParameters"] as? [String: Any])?.keys ?? [:].keys) == ["temperature", "maxTokens", "topP", "topK"])
        #expect(try JSONDecoder.runAnywhere.decode(MessageAnalytics.self, from: JSONEncoder.runAnywhere.encode(value)).outputTokens == 2)
    }
}
