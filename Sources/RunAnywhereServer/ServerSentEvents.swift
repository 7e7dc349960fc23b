import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// Server-sent event streams (`text/event-stream`), framed by OpenAPIRuntime's encoder.
enum ServerSentEvents {
    /// A streaming response whose body `write` produces; if the client goes away, writing throws.
    static func response(_ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
        streamingResponse(contentType: "text/event-stream", write)
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
        case .toolCall, .completed: nil
        }
    }

    /// Frames `events`, writes them and empties the list.
    static func send(_ events: inout [ServerSentEvent], to writer: inout any ResponseBodyWriter) async throws {
        guard !events.isEmpty else { return }
        var bytes: [UInt8] = []
        for try await slice in events.async.asEncodedServerSentEvents() { bytes += slice }
        events.removeAll()
        try await writer.write(ByteBuffer(bytes: bytes))
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
