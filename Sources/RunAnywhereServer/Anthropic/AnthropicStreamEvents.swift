import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// A streamed block's piece: `text_delta`, `thinking_delta` or `input_json_delta` (a tool
/// call's input, whole: the SDK gives a call once its arguments are complete).
struct AnthropicDelta: Encodable, Sendable {
    let type: String
    var text: String?
    var thinking: String?
    var partialJSON: String?
    enum CodingKeys: String, CodingKey { case type, text, thinking, partialJSON = "partial_json" }
}

/// One event of a streamed answer, its `type` also the server-sent event's name.
enum AnthropicStreamEvent: Encodable, Sendable {
    case messageStart(AnthropicMessage)
    case ping
    case contentBlockStart(index: Int, block: AnthropicResponseBlock)
    case contentBlockDelta(index: Int, delta: AnthropicDelta)
    case contentBlockStop(index: Int)
    case messageDelta(stopReason: String, stopSequence: String?, usage: AnthropicUsage)
    case messageStop

    private enum CodingKeys: String, CodingKey { case type, message, index, contentBlock = "content_block", delta, usage }
    private struct StopDelta: Encodable {
        let stopReason: String
        let stopSequence: String?
        enum CodingKeys: String, CodingKey { case stopReason = "stop_reason", stopSequence = "stop_sequence" }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(stopReason, forKey: .stopReason)
            try container.encode(stopSequence, forKey: .stopSequence)
        }
    }

    var name: String {
        switch self {
        case .messageStart: "message_start"
        case .ping: "ping"
        case .contentBlockStart: "content_block_start"
        case .contentBlockDelta: "content_block_delta"
        case .contentBlockStop: "content_block_stop"
        case .messageDelta: "message_delta"
        case .messageStop: "message_stop"
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .type)
        switch self {
        case .messageStart(let message): try container.encode(message, forKey: .message)
        case .ping, .messageStop: break
        case .contentBlockStart(let index, let block):
            try container.encode(index, forKey: .index)
            try container.encode(block, forKey: .contentBlock)
        case .contentBlockDelta(let index, let delta):
            try container.encode(index, forKey: .index)
            try container.encode(delta, forKey: .delta)
        case .contentBlockStop(let index): try container.encode(index, forKey: .index)
        case .messageDelta(let stopReason, let stopSequence, let usage):
            try container.encode(StopDelta(stopReason: stopReason, stopSequence: stopSequence), forKey: .delta)
            try container.encode(usage, forKey: .usage)
        }
    }

    /// The server-sent event.
    func sent() throws -> ServerSentEvent { try ServerSentEvents.event(self, name: name) }
}

/// A stream's server-sent events, its text and thinking deltas written from a template of each
/// block's deltas (``EventTemplate``: there is one a token), the others encoded one by one.
struct AnthropicEventEncoder: Sendable {
    private var templates: [Int: EventTemplate] = [:]

    /// The server-sent event of `event`.
    mutating func sent(_ event: AnthropicStreamEvent) throws -> ServerSentEvent {
        guard case .contentBlockDelta(let index, let delta) = event, delta.partialJSON == nil, let text = delta.text ?? delta.thinking
        else {
            return try event.sent()
        }
        // A block holds one kind of delta: its template is made from its first.
        let template =
            try templates[index]
            ?? EventTemplate(name: event.name) { piece in
                AnthropicStreamEvent.contentBlockDelta(
                    index: index,
                    delta: AnthropicDelta(
                        type: delta.type, text: delta.text.map { _ in piece }, thinking: delta.thinking.map { _ in piece }))
            }
        templates[index] = template
        return try template.event(text)
    }
}

/// Maps a generation's events onto Anthropic's stream: `message_start` and a `ping`; a block
/// (`content_block_start`, its `content_block_delta`s, `content_block_stop`) for each run of
/// reasoning (a `thinking` block, when shown) or of text, and one for each tool call; then
/// `message_delta` with the stop reason and usage, and `message_stop`. An answer with neither
/// text nor tool calls has one empty text block, as the whole answer has.
struct AnthropicStreamMapper: Sendable {
    private enum Kind { case thinking, text }
    let showsThinking: Bool
    private var open: Kind?
    private var blocks = 0
    private var sawText = false

    init(showsThinking: Bool) {
        self.showsThinking = showsThinking
    }

    /// The events that open a stream for the message `id` of `model`, whose prompt has
    /// `inputTokens` tokens as planned (`message_delta`'s usage has the engine's final count).
    static func opening(id: String, model: String, inputTokens: Int) -> [AnthropicStreamEvent] {
        let start = AnthropicMessage(
            id: id, content: [], model: model, stopReason: nil, stopSequence: nil,
            usage: AnthropicUsage(inputTokens: inputTokens, outputTokens: 0, cacheReadInputTokens: 0)
        )
        return [.messageStart(start), .ping]
    }

    /// The events `event` becomes.
    mutating func events(_ event: GenerationEvent) -> [AnthropicStreamEvent] {
        switch event {
        case .logprobs, .promptLogprobs: return []  // Anthropic's API has none
        case .reasoning(let text):
            guard showsThinking else { return [] }
            return enter(.thinking) + [.contentBlockDelta(index: blocks - 1, delta: AnthropicDelta(type: "thinking_delta", thinking: text))]
        case .text(let text):
            sawText = true
            return enter(.text) + [.contentBlockDelta(index: blocks - 1, delta: AnthropicDelta(type: "text_delta", text: text))]
        case .toolCall(let call):
            let index = blocks
            blocks += 1
            return close() + [
                .contentBlockStart(index: index, block: .toolUse(ToolCall(id: call.id, name: call.name, arguments: [:]))),
                .contentBlockDelta(index: index, delta: AnthropicDelta(type: "input_json_delta", partialJSON: call.argumentsJSON)),
                .contentBlockStop(index: index),
            ]
        case .completed(let result):
            let empty: [AnthropicStreamEvent] = sawText || !result.toolCalls.isEmpty ? [] : enter(.text)
            return close(keeping: empty) + [
                .messageDelta(stopReason: anthropicStopReason(result), stopSequence: result.stopSequence, usage: AnthropicUsage(result)),
                .messageStop,
            ]
        }
    }

    /// Opens a block of `kind` unless one is open, closing another first.
    private mutating func enter(_ kind: Kind) -> [AnthropicStreamEvent] {
        if open == kind { return [] }
        let closing = close()
        open = kind
        blocks += 1
        return closing + [.contentBlockStart(index: blocks - 1, block: kind == .text ? .text("") : .thinking(""))]
    }

    /// `events`, then the stop of the open block, if one is.
    private mutating func close(keeping events: [AnthropicStreamEvent] = []) -> [AnthropicStreamEvent] {
        guard open != nil else { return events }
        open = nil
        return events + [.contentBlockStop(index: blocks - 1)]
    }
}

/// A streamed generation written as Anthropic's server-sent events (``AnthropicStreamMapper``).
/// A failure mid-stream is sent as an `error` event. If the client goes away, writing fails and
/// the generation is cancelled, freeing the engine.
struct AnthropicEventWriter: Sendable {
    let id: String
    let model: String
    let showsThinking: Bool
    let generation: GenerationEvents

    func write(to writer: inout any ResponseBodyWriter) async throws {
        var mapper = AnthropicStreamMapper(showsThinking: showsThinking)
        var encoder = AnthropicEventEncoder()
        var events: [ServerSentEvent] = []
        try await generation.relay(
            to: &writer,
            opening: { writer in
                events = try AnthropicStreamMapper.opening(id: id, model: model, inputTokens: generation.promptTokens ?? 0).map {
                    try $0.sent()
                }
                try await ServerSentEvents.send(&events, to: &writer)
            },
            event: { event, writer in
                events += try mapper.events(event).map { try encoder.sent($0) }
                try await ServerSentEvents.send(&events, to: &writer)
            },
            failure: { error, _ in events.append(try ServerSentEvents.event(AnthropicError(error), name: "error")) },
            closing: { writer in try await ServerSentEvents.send(&events, to: &writer) }
        )
    }
}
