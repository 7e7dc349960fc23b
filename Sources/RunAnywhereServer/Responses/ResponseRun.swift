import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// One response being made from a generation: its events mapped by a ``ResponseOutputBuilder``,
/// the finished response stored when `store` is given.
struct ResponseRun: Sendable {
    let response: ResponseObject
    let input: [ResponseItem]
    let store: ResponseStore?

    /// The finished response.
    func whole(_ generation: GenerationEvents) async throws -> ResponseObject {
        var builder = ResponseOutputBuilder()
        var response = self.response
        for try await event in generation {
            _ = builder.events(for: event)
            if case .completed(let result) = event {
                _ = builder.finish(result)
                response.finish(result, output: builder.output)
            }
        }
        try await store?.save(response, input: input)
        return response
    }

    /// Streams the response's events, each numbered; a failure ends it with `response.failed`.
    /// If the client goes away, writing fails and the generation is cancelled.
    func stream(_ generation: GenerationEvents, to writer: inout any ResponseBodyWriter) async throws {
        var builder = ResponseOutputBuilder()
        var response = self.response
        var pending: [ResponseStreamEvent] = [.lifecycle("response.created", response), .lifecycle("response.in_progress", response)]
        var sequence = 0
        func send(_ writer: inout any ResponseBodyWriter) async throws {
            var events: [ServerSentEvent] = []
            for var event in pending {
                event.sequenceNumber = sequence
                sequence += 1
                events.append(try ServerSentEvents.event(event, name: event.type))
            }
            pending.removeAll()
            try await ServerSentEvents.send(&events, to: &writer)
        }
        try await generation.relay(
            to: &writer,
            opening: { writer in try await send(&writer) },
            event: { event, writer in
                pending += builder.events(for: event)
                if case .completed(let result) = event {
                    pending += builder.finish(result)
                    response.finish(result, output: builder.output)
                    try await store?.save(response, input: input)
                    pending.append(.lifecycle(response.status == "incomplete" ? "response.incomplete" : "response.completed", response))
                }
                try await send(&writer)
            },
            failure: { failure, writer in
                response.fail(failure, output: builder.output)
                pending += [.error(failure), .lifecycle("response.failed", response)]
                try await send(&writer)
            }
        )
    }
}
