import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// Server-sent event streams (`text/event-stream`) of OpenAPIRuntime's events.
enum ServerSentEvents {
    /// A streaming response whose body `write` produces; if the client goes away, writing throws.
    static func response(_ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
        streamingResponse(contentType: "text/event-stream", write)
    }

    /// A stream of work that is not a generation (a generation streams through
    /// ``GenerationEvents/relay(to:opening:event:failure:closing:)``): `produce` sends the events
    /// as it makes them. When it fails, other than by its cancellation (its client hung up), the
    /// stream ends with `failure`'s event for the error, in the route's own shape; a write that
    /// throws (the client went away) ends it at once.
    static func response(
        failure: @escaping @Sendable (any Error) throws -> ServerSentEvent = { try error($0) },
        _ produce: @escaping @Sendable (_ send: ([ServerSentEvent]) async throws -> Void) async throws -> Void
    ) -> Response {
        response { writer in
            var writeFailed = false
            do {
                try await produce { events in
                    var events = events
                    do {
                        try await send(&events, to: &writer)
                    } catch {
                        writeFailed = true
                        throw error
                    }
                }
            } catch let error where !writeFailed && !(error is CancellationError) {
                var events = [try failure(error)]
                try await send(&events, to: &writer)
            }
        }
    }

    /// An event whose data is `value` as JSON, named `name` when given.
    static func event(_ value: some Encodable, name: String? = nil) throws -> ServerSentEvent {
        ServerSentEvent(event: name, data: String(decoding: try JSONEncoder.server.encode(value), as: UTF8.self))
    }

    /// The `error` event of the server's own streams when `error` ends one after it began: the
    /// failure in OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`.
    static func error(_ error: any Error) throws -> ServerSentEvent {
        try event(OpenAIErrorBody(APIError.from(error)), name: "error")
    }

    /// A piece of an answer (`content`) or of the model's reasoning (`reasoning`): the `delta`
    /// events of the conversation and vision routes.
    struct Delta: Encodable, Sendable {
        let content: String?
        let reasoning: String?
    }

    /// The `delta` event of a generation's `.text` or `.reasoning` event; nil for the others.
    static func delta(_ event: GenerationEvent) throws -> ServerSentEvent? {
        switch event {
        case .text(let text): try self.event(Delta(content: text, reasoning: nil), name: "delta")
        case .reasoning(let text): try self.event(Delta(content: nil, reasoning: text), name: "delta")
        case .toolCall, .completed, .logprobs, .promptLogprobs: nil
        }
    }

    /// Frames `events`, writes them and empties the list.
    static func send(_ events: inout [ServerSentEvent], to writer: inout any ResponseBodyWriter) async throws {
        guard !events.isEmpty else { return }
        var buffer = ByteBuffer()
        for event in events { frame(event, into: &buffer) }
        events.removeAll()
        try await writer.write(buffer)
    }

    /// Writes `event` as `text/event-stream` frames it, byte for byte as OpenAPIRuntime's encoder
    /// does: its `id`, `event` and `retry` fields (newlines dropped from the first two), a `data`
    /// field for each line of its data (CR LF, CR and LF each end a line), and a blank line. Written
    /// here because that encoder's async sequence and its `replacingOccurrences` per field took
    /// about a tenth of the server's time per streamed token.
    static func frame(_ event: ServerSentEvent, into buffer: inout ByteBuffer) {
        let (cr, lf) = (UInt8(ascii: "\r"), UInt8(ascii: "\n"))
        func field(_ name: StaticString, _ value: some Sequence<UInt8>) {
            buffer.writeStaticString(name)
            buffer.writeStaticString(": ")
            buffer.writeBytes(value)
            buffer.writeInteger(lf)
        }
        func singleLine(_ name: StaticString, _ value: String) {
            let newline = { (byte: UInt8) in byte == cr || byte == lf }
            if value.utf8.contains(where: newline) { field(name, value.utf8.filter { !newline($0) }) } else { field(name, value.utf8) }
        }
        if let id = event.id { singleLine("id", id) }
        if let name = event.event { singleLine("event", name) }
        if let retry = event.retry { field("retry", String(retry).utf8) }
        if let data = event.data {
            let bytes = data.utf8
            var start = bytes.startIndex
            var index = start
            while index < bytes.endIndex {
                let byte = bytes[index]
                guard byte == cr || byte == lf else {
                    bytes.formIndex(after: &index)
                    continue
                }
                field("data", bytes[start..<index])
                bytes.formIndex(after: &index)
                if byte == cr, index < bytes.endIndex, bytes[index] == lf { bytes.formIndex(after: &index) }
                start = index
            }
            field("data", bytes[start..<bytes.endIndex])
        }
        buffer.writeInteger(lf)
    }
}

/// A response of `contentType` streamed as `write` produces it, not cached; if the client goes
/// away, writing throws.
func streamingResponse(contentType: String, _ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
    var headers = HTTPFields()
    headers[.contentType] = contentType
    headers[.cacheControl] = "no-cache"
    return Response(
        status: .ok, headers: headers,
        body: ResponseBody { writer in
            try await write(&writer)
            try await writer.finish(nil)
        })
}
