import Foundation
import OpenAPIRuntime
import RunAnywhere

/// One of the Responses API's semantic stream events, sent as a server-sent event named by its
/// `type`, numbered by `sequence_number`. Which fields it carries depends on the type:
/// - `response.created`, `response.in_progress`, `response.completed`, `response.incomplete`,
///   `response.failed`: `response`;
/// - `response.output_item.added` / `.done`: `output_index`, `item`;
/// - `response.content_part.added` / `.done`: `item_id`, `output_index`, `content_index`, `part`;
/// - `response.output_text.delta` / `.done`, `response.reasoning_text.delta` / `.done`: the
///   same indexes and `delta` or the whole `text` (with output text, its tokens' `logprobs`:
///   empty unless the request asked for them);
/// - `response.function_call_arguments.delta` / `.done`: `item_id`, `output_index`, `delta` or
///   `arguments` (and `name` when done);
/// - `error`: `code`, `message`, `param`.
struct ResponseStreamEvent: Encodable, Sendable {
    let type: String
    var sequenceNumber = 0
    var response: ResponseObject?
    var outputIndex: Int?
    var item: ResponseItem?
    var itemID: String?
    var contentIndex: Int?
    var part: ResponseContentPart?
    var delta: String?
    var text: String?
    var arguments: String?
    var name: String?
    var logprobs: [TokenLogprobObject]?
    var code: String?
    var message: String?
    var param: String?

    enum CodingKeys: String, CodingKey {
        case type, sequenceNumber = "sequence_number", response, outputIndex = "output_index", item, itemID = "item_id"
        case contentIndex = "content_index", part, delta, text, arguments, name, logprobs, code, message, param
    }

    /// A `response.*` lifecycle event carrying the response as it stands.
    static func lifecycle(_ type: String, _ response: ResponseObject) -> ResponseStreamEvent {
        ResponseStreamEvent(type: type, response: response)
    }

    /// The `error` event for `error`.
    static func error(_ error: APIError) -> ResponseStreamEvent {
        ResponseStreamEvent(
            type: "error", code: error.code ?? OpenAIErrorBody.type(for: error.status), message: error.message, param: error.param)
    }
}

/// Numbers one response's stream events, from 0, in the order they are sent: a client that
/// comes back asks for those after the last number it saw (`starting_after`).
struct ResponseEventNumbering {
    private var next = 0

    /// `events`, numbered after every event numbered before.
    mutating func number(_ events: [ResponseStreamEvent]) -> [ResponseStreamEvent] {
        var numbered = events
        for index in numbered.indices {
            numbered[index].sequenceNumber = next
            next += 1
        }
        return numbered
    }
}

/// Writes a response's stream events as server-sent events named by their type: its text deltas
/// (an event a token) from a template of their item's delta (``JSONTemplate``), the rest by
/// JSONEncoder. Each is the JSON JSONEncoder makes of it.
struct ResponseEventEncoder {
    /// What a text delta's JSON holds but its text and number: one template serves the deltas alike in it.
    private struct DeltaShape: Equatable {
        let type: String
        let outputIndex: Int?
        let itemID: String?
        let contentIndex: Int?
        let hasLogprobs: Bool
    }

    private var delta: (shape: DeltaShape, template: JSONTemplate)?

    /// The server-sent event of `event`.
    mutating func event(_ event: ResponseStreamEvent) throws -> ServerSentEvent {
        // Only a text delta without log-probabilities (those differ for each token) is templated.
        guard event.type.hasSuffix("text.delta"), let text = event.delta, event.logprobs?.isEmpty ?? true else {
            return try ServerSentEvents.event(event, name: event.type)
        }
        let shape = DeltaShape(
            type: event.type, outputIndex: event.outputIndex, itemID: event.itemID, contentIndex: event.contentIndex,
            hasLogprobs: event.logprobs != nil)
        if delta?.shape != shape {
            let template = try JSONTemplate(strings: 1, integers: 1) { strings, integers in
                var written = event
                written.delta = strings[0]
                written.sequenceNumber = integers[0]
                return written
            }
            delta = (shape, template)
        }
        return ServerSentEvent(event: event.type, data: try delta!.template.json([text], integers: [event.sequenceNumber]))
    }
}
