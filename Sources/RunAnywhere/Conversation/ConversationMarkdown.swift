import Foundation

extension ChatMessage {
    /// The spec's answer footer, "1.2s • 45 tok/s", then "thinking" and how the answer ended
    /// ("stopped", "timed out"), or "failed: why"; empty for a message without analytics.
    public var footer: String {
        if let error { return "failed: \(error)" }
        guard let analytics else { return "" }
        var parts = [String(format: "%.1fs", analytics.totalGenerationTime)]
        // Formatted, not converted with Int(): a saved file may hold any number, such as 1e300.
        if analytics.averageTokensPerSecond > 0 {
            parts.append(String(format: "%.0f tok/s", analytics.averageTokensPerSecond.rounded(.down)))
        }
        if analytics.wasThinkingMode { parts.append("thinking") }
        switch analytics.completionStatus {
        case .interrupted: parts.append("stopped")
        case .timeout: parts.append("timed out")
        case .complete, .failed: break
        }
        return parts.joined(separator: " • ")
    }
}

extension Conversation {
    /// The conversation as Markdown: its messages and, under each answer, its numbered sources
    /// when it came from documents and its footer (what
    /// `runanywhere conversations export` and the web app's export write).
    public var markdown: String {
        var text = "# \(title)\n\n"
        text += "- Conversation: `\(id)`\n- Started: \(createdAt.formatted(.iso8601))\n"
        if let modelName { text += "- Model: \(modelName) (\(frameworkName ?? "?"))\n" }
        if let summary = performanceSummary {
            text += String(
                format: "- Answers: %d, average %.1f tok/s, first token %.0f ms, %d tokens, %.0f%% completed\n",
                summary.messageCount, summary.averageTokensPerSecond, summary.averageTTFT * 1000, summary.totalTokens,
                summary.completionRate * 100)
        }
        for message in messages {
            text += "\n## \(message.role.rawValue.capitalized)\n\n"
            if let thinking = message.thinkingContent { text += "> Thinking: \(thinking.replacingOccurrences(of: "\n", with: "\n> "))\n\n" }
            text += message.content + "\n"
            if let grounding = message.grounding {
                text += "\nSources (\(grounding.collection)):\n"
                for (index, source) in grounding.sources.enumerated() {
                    text += "\(index + 1). \(URL(fileURLWithPath: source.documentPath).lastPathComponent), passage \(source.ordinal + 1)\n"
                }
            }
            if message.analytics != nil { text += "\n_\(message.footer)_\n" }
        }
        return text
    }
}
