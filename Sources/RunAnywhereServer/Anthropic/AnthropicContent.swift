import Foundation
import RunAnywhere

/// One content block of a Messages request's message: `text`; `image` (a vision-language model;
/// `source` `{"type": "base64", "media_type", "data"}`: this server fetches no URLs);
/// `tool_use` (an assistant's call: `id`, `name`, `input`); `tool_result` (a user's answer to one:
/// `tool_use_id`, `content` as text or text and image blocks, `is_error`); `thinking` and
/// `redacted_thinking` (the assistant's earlier reasoning, which a chat template does not read
/// again, so they are skipped). `cache_control` and `citations` are accepted and have no effect.
enum AnthropicContentBlock: Decodable, Sendable {
    case text(String)
    case image(VLMImage)
    case toolUse(ToolCall)
    case toolResult(id: String, content: String, images: [VLMImage], isError: Bool)
    case thinking

    private enum CodingKeys: String, CodingKey {
        case type, text, source, id, name, input, toolUseId = "tool_use_id", content, isError = "is_error"
    }

    private struct ImageSource: Decodable {
        let type: String
        let mediaType: String?
        let data: String?
        enum CodingKeys: String, CodingKey { case type, mediaType = "media_type", data }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "text":
            self = .text(try container.decode(String.self, forKey: .text))
        case "image":
            let source = try container.decode(ImageSource.self, forKey: .source)
            guard source.type == "base64", let mediaType = source.mediaType, let data = source.data else {
                throw APIError(
                    .badRequest,
                    "An image's source must be {\"type\": \"base64\", \"media_type\", \"data\"}; this server fetches no images",
                    param: "messages")
            }
            self = .image(VLMImage(base64: "data:\(mediaType);base64,\(data)"))
        case "tool_use":
            let input = try container.decode(JSONValue.self, forKey: .input)
            guard input.objectValue != nil else {
                throw APIError(.badRequest, "A tool_use block's input must be a JSON object", param: "messages")
            }
            self = .toolUse(
                ToolCall(
                    id: try container.decode(String.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
                    arguments: input))
        case "tool_result":
            let id = try container.decode(String.self, forKey: .toolUseId)
            let isError = try container.decodeIfPresent(Bool.self, forKey: .isError) ?? false
            if let text = try container.decodeIfOfType(String.self, forKey: .content) {
                self = .toolResult(id: id, content: text, images: [], isError: isError)
            } else {
                let blocks = try container.decodeIfPresent([AnthropicContentBlock].self, forKey: .content) ?? []
                let content = AnthropicContent(blocks)
                guard content.toolUses.isEmpty, content.toolResults.isEmpty else {
                    throw APIError(.badRequest, "A tool_result's content holds text and image blocks only", param: "messages")
                }
                self = .toolResult(id: id, content: content.text, images: content.images, isError: isError)
            }
        case "thinking", "redacted_thinking":
            self = .thinking
        default:
            throw APIError(
                .badRequest, "Unsupported content block type '\(type)': use text, image, tool_use or tool_result", param: "messages")
        }
    }
}

/// A message's `content`: a string, or content blocks; what the SDK's messages are made of.
struct AnthropicContent: Decodable, Sendable {
    let blocks: [AnthropicContentBlock]

    init(_ blocks: [AnthropicContentBlock]) {
        self.blocks = blocks
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try container.decodeIfOfType(String.self) {
            blocks = [.text(text)]
        } else {
            blocks = try container.decode([AnthropicContentBlock].self)
        }
    }

    /// The text blocks joined.
    var text: String {
        blocks.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined(separator: "\n")
    }

    /// The images, in order.
    var images: [VLMImage] {
        blocks.compactMap { if case .image(let image) = $0 { image } else { nil } }
    }

    /// The tool calls, in order.
    var toolUses: [ToolCall] {
        blocks.compactMap { if case .toolUse(let call) = $0 { call } else { nil } }
    }

    /// The tool results, as the SDK's ``RunAnywhere/MessageRole/tool`` messages (a failed call's result says so).
    var toolResults: [Message] {
        blocks.compactMap {
            guard case .toolResult(let id, let content, let images, let isError) = $0 else { return nil }
            return Message(role: .tool, content: isError ? "Error: \(content)" : content, images: images, toolCallId: id)
        }
    }
}
