import Foundation
import OpenAPIRuntime
import RunAnywhere
import Testing

@testable import RunAnywhereServer

/// A streamed chunk written from its template is the JSON JSONEncoder makes of the whole chunk
/// (compared as JSON: JSONEncoder writes an object's keys in an order of its own each time),
/// whatever the text (ollama's lines likewise, but for their time); a chunk that does not hold
/// its text once is refused.
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

    @Test(arguments: texts)
    func ollamaLinesAreWhatJSONEncoderWrites(text: String) throws {
        for chat in [true, false] {
            var mapper = try OllamaStreamMapper(model: "smol \"lm\"", chat: chat, showsThinking: true)
            for (event, chunk) in [
                (GenerationEvent.text(text), OllamaChunk.piece(model: "smol \"lm\"", chat: chat, text: text)),
                (.reasoning(text), OllamaChunk.piece(model: "smol \"lm\"", chat: chat, thinking: text)),
            ] {
                let lines = try mapper.lines(event, timing: OllamaTiming())
                let ours = try lines.map {
                    try #require(JSONSerialization.jsonObject(with: Data($0.utf8), options: .mutableContainers) as? NSMutableDictionary)
                }
                let theirs = try #require(
                    JSONSerialization.jsonObject(with: JSONEncoder.server.encode(chunk), options: .mutableContainers)
                        as? NSMutableDictionary)
                #expect(ours.count == 1 && ours[0]["created_at"] is String, "\(lines)")
                // The lines were made at another moment than the chunk: all but the time compared.
                ours.first?.removeObject(forKey: "created_at")
                theirs.removeObject(forKey: "created_at")
                #expect(ours == [theirs], "\(lines)")
            }
        }
    }

    @Test(arguments: texts)
    func responsesDeltasAreWhatJSONEncoderWrites(text: String) throws {
        var encoder = ResponseEventEncoder()
        let token = TokenLogprobObject(TokenLogprob(id: 1, bytes: [97], logprob: -0.5))
        var events: [ResponseStreamEvent] = [
            ResponseStreamEvent(type: "response.reasoning_text.delta", outputIndex: 0, itemID: "rs_1", contentIndex: 0, delta: "first"),
            ResponseStreamEvent(type: "response.reasoning_text.delta", outputIndex: 0, itemID: "rs_1", contentIndex: 0, delta: text),
            ResponseStreamEvent(
                type: "response.output_text.delta", outputIndex: 1, itemID: "msg_1", contentIndex: 0, delta: text, logprobs: []),
            ResponseStreamEvent(
                type: "response.output_text.delta", outputIndex: 1, itemID: "msg_1", contentIndex: 0, delta: "x", logprobs: []),
            ResponseStreamEvent(
                type: "response.output_text.delta", outputIndex: 1, itemID: "msg_1", contentIndex: 0, delta: text, logprobs: [token]),
            ResponseStreamEvent(
                type: "response.output_text.delta", outputIndex: 2, itemID: "msg_2", contentIndex: 0, delta: text, logprobs: []),
            ResponseStreamEvent(
                type: "response.output_text.done", outputIndex: 2, itemID: "msg_2", contentIndex: 0, text: text, logprobs: []),
        ]
        for index in events.indices { events[index].sequenceNumber = [0, 9, 10, 99, 100, 1_000_000, 1_000_001][index] }
        let ours = try events.map { try encoder.event($0) }
        let theirs = try events.map { try ServerSentEvents.event($0, name: $0.type) }
        #expect(ours.map(\.event) == theirs.map(\.event))
        #expect(try Self.json(ours) == Self.json(theirs))
    }

    @Test func ollamasTimeIsNowToTheMillisecond() throws {
        let before = (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000
        let written = OllamaChunk.now()
        let after = Date().timeIntervalSince1970
        #expect(written.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(written)")
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let read = try #require(parser.date(from: written)).timeIntervalSince1970
        #expect(read >= before - 0.0005 && read <= after, "\(written) is not between \(before) and \(after)")
    }

    @Test func aTemplateTakesItsStringsWhereverTheyStand() throws {
        struct Pair: Encodable { let first: String, number: Int, second: String }
        let template = try JSONTemplate(strings: 2) { Pair(first: $0[1], number: 7, second: $0[0]) }
        for (a, b) in [("x", "y"), ("\"", "é\n"), ("", "")] {
            let ours = try JSONSerialization.jsonObject(with: Data(template.json([a, b]).utf8)) as? NSDictionary
            let theirs =
                try JSONSerialization.jsonObject(with: JSONEncoder.server.encode(Pair(first: b, number: 7, second: a))) as? NSDictionary
            #expect(ours == theirs)
        }
    }

    @Test func aTemplateTakesItsIntegersWhereverTheyStand() throws {
        struct Numbered: Encodable { let a: Int, text: String, b: Int, c: Int }
        let template = try JSONTemplate(strings: 1, integers: 2) { Numbered(a: $1[1], text: $0[0], b: 7, c: $1[0]) }
        for (a, c) in [(0, 0), (-1, Int.max), (Int.min, 42)] {
            let ours = try JSONSerialization.jsonObject(with: Data(template.json(["t"], integers: [c, a]).utf8)) as? NSDictionary
            let theirs =
                try JSONSerialization.jsonObject(with: JSONEncoder.server.encode(Numbered(a: a, text: "t", b: 7, c: c))) as? NSDictionary
            #expect(ours == theirs)
        }
    }

    @Test func aChunkThatDoesNotHoldItsTextOnceIsRefused() {
        struct Twice: Encodable { let a: String, b: String }
        let error = #expect(throws: APIError.self) { try EventTemplate { Twice(a: $0, b: $0) } }
        #expect(error?.status == .internalServerError)
        #expect(throws: APIError.self) { try EventTemplate { _ in Twice(a: "x", b: "y") } }
    }
}
