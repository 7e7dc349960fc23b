import Foundation
import OpenAPIRuntime
import Testing

@testable import RunAnywhereServer

/// A streamed chunk written from its template is the JSON JSONEncoder makes of the whole chunk
/// (compared as JSON: JSONEncoder writes an object's keys in an order of its own each time),
/// whatever the text; a chunk that does not hold its text once is refused.
@Suite struct EventTemplateTests {
    /// The events' data read as JSON.
    static func json(_ events: [ServerSentEvent]) throws -> [NSDictionary] {
        try events.map { event in
            let data = try #require(event.data)
            return try #require(JSONSerialization.jsonObject(with: Data(data.utf8)) as? NSDictionary)
        }
    }

    static let texts = [
        "", "Hello", " world", "\"quoted\"", "back\\slash", "new\nline", "\t\u{1}\u{1F}", "a/b", "é漢字🙂", "\u{7F}\u{2028}", "{}[],:",
    ]

    @Test(arguments: texts)
    func chatChunksAreWhatJSONEncoderWrites(text: String) throws {
        var framing = try ChatChunkFraming(id: "chatcmpl-1", created: 1_700_000_000, model: "smol \"lm\"")
        let chunk = { (delta: ChatCompletionChunk.Choice.Delta) in
            ChatCompletionChunk(
                id: "chatcmpl-1", created: 1_700_000_000, model: "smol \"lm\"", choices: [.init(delta: delta, finishReason: nil)],
                usage: nil,
                timings: nil)
        }
        #expect(try Self.json(framing.pieces(.text(text))) == Self.json([ServerSentEvents.event(chunk(.init(content: text)))]))
        #expect(
            try Self.json(framing.pieces(.reasoning(text))) == Self.json([ServerSentEvents.event(chunk(.init(reasoningContent: text)))]))
    }

    @Test(arguments: texts)
    func textChunksAreWhatJSONEncoderWrites(text: String) throws {
        var framing = try TextChunkFraming(
            id: "cmpl-1", created: 1_700_000_000, model: "m", text: .init(thinkingPattern: .defaultPattern))
        let chunk = Completion(
            id: "cmpl-1", created: 1_700_000_000, model: "m", choices: [.init(text: text, finishReason: nil)], usage: nil, timings: nil)
        #expect(try Self.json(framing.pieces(.text(text))) == Self.json([ServerSentEvents.event(chunk)]))
    }

    @Test(arguments: texts)
    func anthropicDeltasAreWhatJSONEncoderWrites(text: String) throws {
        var encoder = AnthropicEventEncoder()
        let events: [AnthropicStreamEvent] = [
            .contentBlockStart(index: 0, block: .thinking("")),
            .contentBlockDelta(index: 0, delta: AnthropicDelta(type: "thinking_delta", thinking: "first")),
            .contentBlockDelta(index: 0, delta: AnthropicDelta(type: "thinking_delta", thinking: text)),
            .contentBlockStop(index: 0),
            .contentBlockDelta(index: 1, delta: AnthropicDelta(type: "text_delta", text: "first")),
            .contentBlockDelta(index: 1, delta: AnthropicDelta(type: "text_delta", text: text)),
            .contentBlockDelta(index: 2, delta: AnthropicDelta(type: "input_json_delta", partialJSON: #"{"a":1}"#)),
            .messageStop,
        ]
        let ours = try events.map { try encoder.sent($0) }
        let theirs = try events.map { try $0.sent() }
        #expect(ours.map(\.event) == theirs.map(\.event))
        #expect(try Self.json(ours) == Self.json(theirs))
    }

    @Test func aChunkThatDoesNotHoldItsTextOnceIsRefused() {
        struct Twice: Encodable { let a: String, b: String }
        let error = #expect(throws: APIError.self) { try EventTemplate { Twice(a: $0, b: $0) } }
        #expect(error?.status == .internalServerError)
        #expect(throws: APIError.self) { try EventTemplate { _ in Twice(a: "x", b: "y") } }
    }
}
