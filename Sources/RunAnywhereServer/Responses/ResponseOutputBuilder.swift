import Foundation
import RunAnywhere

/// Maps a generation's typed events onto a response's output items and the stream events that
/// build them, in order: reasoning pieces open a `reasoning` item and stream as
/// `response.reasoning_text.delta`; answer pieces open a `message` item with one `output_text`
/// part and stream as `response.output_text.delta`; each tool call is a `function_call` item
/// with its arguments in one `response.function_call_arguments.delta`. An item is closed (its
/// `.done` events) when another kind begins or the generation ends. The whole response uses the
/// same items, so that streamed and whole answers agree; nothing re-reads the model's text. When
/// the request asked for log-probabilities, each answer piece's delta carries its tokens', and
/// the message's `output_text` all of them.
struct ResponseOutputBuilder: Sendable {
    private enum Open: Sendable {
        case reasoning(id: String)
        case message(id: String)
    }

    /// The items closed so far.
    private(set) var output: [ResponseItem] = []
    private var open: Open?
    /// The open item's text so far, apart from `open` so that each piece is added in place (a
    /// copy of the whole text for each token made long answers quadratic).
    private var openText = ""
    /// The log-probabilities told for the next answer piece, and those of the open message's
    /// pieces (nil when none were asked for).
    private var waiting: [TokenLogprob] = []
    private var messageLogprobs: [TokenLogprob]?

    /// The stream events for `event` (none for `.completed`: call ``finish(_:)``).
    mutating func events(for event: GenerationEvent) -> [ResponseStreamEvent] {
        switch event {
        case .logprobs(let tokens):
            waiting = tokens
            return []
        case .promptLogprobs: return []  // the Responses API has none
        case .reasoning(let piece):
            var events: [ResponseStreamEvent] = []
            if case .reasoning = open {
                openText += piece
            } else {
                events = close(status: "completed")
                let id = ResponseItem.newID("rs")
                open = .reasoning(id: id)
                openText = piece
                events.append(
                    ResponseStreamEvent(
                        type: "response.output_item.added", outputIndex: output.count,
                        item: .reasoning(.init(id: id, text: "", status: "in_progress"))))
            }
            return events + [
                ResponseStreamEvent(
                    type: "response.reasoning_text.delta", outputIndex: output.count, itemID: openID, contentIndex: 0, delta: piece)
            ]
        case .text(let piece):
            var events: [ResponseStreamEvent] = []
            if case .message = open {
                openText += piece
            } else {
                events = close(status: "completed")
                let id = ResponseItem.newID("msg")
                open = .message(id: id)
                openText = piece
                messageLogprobs = nil
                events.append(
                    ResponseStreamEvent(
                        type: "response.output_item.added", outputIndex: output.count,
                        item: .message(.init(id: id, role: "assistant", status: "in_progress", content: []))))
                events.append(
                    ResponseStreamEvent(
                        type: "response.content_part.added", outputIndex: output.count, itemID: id, contentIndex: 0, part: .outputText("")))
            }
            let tokens = waiting
            waiting = []
            if !tokens.isEmpty {
                if messageLogprobs == nil { messageLogprobs = tokens } else { messageLogprobs?.append(contentsOf: tokens) }
            }
            return events + [
                ResponseStreamEvent(
                    type: "response.output_text.delta", outputIndex: output.count, itemID: id(of: open), contentIndex: 0, delta: piece,
                    logprobs: tokens.map(TokenLogprobObject.init))
            ]
        case .toolCall(let call):
            var events = close(status: "completed")
            let id = ResponseItem.newID("fc")
            let index = output.count
            let item = ResponseFunctionCall(id: id, call: call, arguments: call.argumentsJSON, status: "completed")
            events.append(
                ResponseStreamEvent(
                    type: "response.output_item.added", outputIndex: index,
                    item: .functionCall(.init(id: id, call: call, arguments: "", status: "in_progress"))))
            events.append(
                ResponseStreamEvent(type: "response.function_call_arguments.delta", outputIndex: index, itemID: id, delta: item.arguments))
            events.append(
                ResponseStreamEvent(
                    type: "response.function_call_arguments.done", outputIndex: index, itemID: id, arguments: item.arguments,
                    name: call.name))
            events.append(ResponseStreamEvent(type: "response.output_item.done", outputIndex: index, item: .functionCall(item)))
            output.append(.functionCall(item))
            return events
        case .completed:
            return []
        }
    }

    /// Closes the open item at the end of `result`: `incomplete` when it stopped at the token limit.
    mutating func finish(_ result: LLMGenerationResult) -> [ResponseStreamEvent] {
        close(status: result.stopReason == .length ? "incomplete" : "completed")
    }

    /// Closes the open item of an answer cut short (cancelled, or failed): `incomplete`.
    mutating func cut() -> [ResponseStreamEvent] {
        close(status: "incomplete")
    }

    private var openID: String? { id(of: open) }

    private func id(of open: Open?) -> String? {
        switch open {
        case .reasoning(let id), .message(let id): id
        case nil: nil
        }
    }

    /// The `.done` events of the open item, which joins ``output``.
    private mutating func close(status: String) -> [ResponseStreamEvent] {
        guard let open else { return [] }
        self.open = nil
        let text = openText
        openText = ""
        let index = output.count
        switch open {
        case .reasoning(let id):
            let item = ResponseItem.reasoning(.init(id: id, text: text, status: status))
            output.append(item)
            return [
                ResponseStreamEvent(type: "response.reasoning_text.done", outputIndex: index, itemID: id, contentIndex: 0, text: text),
                ResponseStreamEvent(type: "response.output_item.done", outputIndex: index, item: item),
            ]
        case .message(let id):
            let part = ResponseContentPart.outputText(text, logprobs: messageLogprobs)
            let item = ResponseItem.message(.init(id: id, role: "assistant", status: status, content: [part]))
            output.append(item)
            return [
                ResponseStreamEvent(
                    type: "response.output_text.done", outputIndex: index, itemID: id, contentIndex: 0, text: text,
                    logprobs: part.logprobs ?? []),
                ResponseStreamEvent(type: "response.content_part.done", outputIndex: index, itemID: id, contentIndex: 0, part: part),
                ResponseStreamEvent(type: "response.output_item.done", outputIndex: index, item: item),
            ]
        }
    }
}
