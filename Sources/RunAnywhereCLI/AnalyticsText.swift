import Foundation
import RunAnywhere

/// Analytics as text for people: the answer footer, `/analytics` and `/stats`.
enum AnalyticsText {
    /// The spec's footer (``ChatMessage/footer``), in red when the answer failed.
    static func footer(_ message: ChatMessage) -> String {
        message.error == nil ? message.footer : Terminal.red(message.footer)
    }

    /// One answer's analytics, field by field.
    static func message(_ a: MessageAnalytics) -> String {
        func seconds(_ value: TimeInterval?) -> String { value.map { String(format: "%.3f s", $0) } ?? "-" }
        let rows: [(String, String)] = [
            ("model", "\(a.modelName) (\(a.framework))"), ("status", a.completionStatus.rawValue),
            ("mode", a.generationMode.rawValue), ("time to first token", seconds(a.timeToFirstToken)),
            ("total time", seconds(a.totalGenerationTime)), ("thinking time", seconds(a.thinkingTime)),
            ("response time", seconds(a.responseTime)),
            (
                "tokens",
                "\(a.inputTokens) in, \(a.outputTokens) out (\(a.thinkingTokens.map { "\($0) thinking, " } ?? "")\(a.responseTokens) answer)"
            ),
            ("speed", String(format: "%.1f tok/s", a.averageTokensPerSecond)),
            ("speed history", a.tokensPerSecondHistory.map { String(format: "%.0f", $0) }.joined(separator: " ")),
            ("context used", String(format: "%.1f%%", a.contextWindowUsage * 100)),
            ("length", "\(a.messageLength) characters"), ("retries", "\(a.retryCount)"),
            (
                "parameters",
                "temperature \(a.generationParameters.temperature), maxTokens \(a.generationParameters.maxTokens)"
                    + (a.generationParameters.topP.map { ", topP \($0)" } ?? "")
                    + (a.generationParameters.topK.map { ", topK \($0)" } ?? "")
            ),
        ]
        return table(rows)
    }

    /// A conversation's analytics and performance summary.
    static func conversation(_ conversation: Conversation) -> String {
        var text = "Conversation \(conversation.id) \"\(conversation.title)\"\n"
        guard let analytics = conversation.analytics, let summary = conversation.performanceSummary else {
            return text + "No answers yet.\n"
        }
        text += table([
            ("messages", "\(analytics.messageCount) (\(summary.messageCount) answer\(summary.messageCount == 1 ? "" : "s"))"),
            ("average first token", String(format: "%.3f s", analytics.averageTTFT)),
            ("average response time", String(format: "%.2f s", summary.averageResponseTime)),
            ("average speed", String(format: "%.1f tok/s", analytics.averageGenerationSpeed)),
            ("total tokens", "\(analytics.totalTokensUsed)"),
            ("models used", summary.modelsUsed.joined(separator: ", ")),
            ("thinking used", String(format: "%.0f%%", analytics.thinkingModeUsage * 100)),
            ("completion rate", String(format: "%.0f%%", analytics.completionRate * 100)),
            ("average length", "\(analytics.averageMessageLength) characters"),
        ])
        return text
    }

    /// The last exchanges of a conversation being continued.
    static func recap(_ conversation: Conversation) -> String {
        var text = Terminal.dim("Continuing \"\(conversation.title)\" (\(conversation.messages.count) messages):") + "\n"
        for message in conversation.messages.suffix(4) {
            let line = message.content.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            text += Terminal.dim("  \(message.role.rawValue): \(line.count > 100 ? String(line.prefix(97)) + "..." : line)") + "\n"
        }
        return text + "\n"
    }

    private static func table(_ rows: [(String, String)]) -> String {
        rows.map { "  \($0.0.padding(toLength: 22, withPad: " ", startingAt: 0)) \($0.1)" }.joined(separator: "\n") + "\n"
    }
}
