/// The tags a reasoning model wraps its thinking in.
public struct ThinkingTagPattern: Codable, Sendable, Equatable {
    /// The tag that opens the thinking, e.g. `<think>`.
    public let openingTag: String
    /// The tag that closes the thinking, e.g. `</think>`.
    public let closingTag: String

    /// Creates a pattern from its two tags.
    public init(openingTag: String, closingTag: String) {
        self.openingTag = openingTag
        self.closingTag = closingTag
    }

    /// `<think>` … `</think>`, used by DeepSeek-R1, Qwen 3 and most open reasoning models.
    public static let defaultPattern = ThinkingTagPattern(openingTag: "<think>", closingTag: "</think>")
    /// `<thinking>` … `</thinking>`.
    public static let thinkingPattern = ThinkingTagPattern(openingTag: "<thinking>", closingTag: "</thinking>")
}
