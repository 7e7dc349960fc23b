import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// A transcription streamed as OpenAI streams one (`stream=true`): a `transcript.text.delta`
/// event for each segment as the engine hears it, then `transcript.text.done` with the whole
/// text. The deltas put together are the done event's text. The answer starts with the first
/// event, so that a failure before it (a language whisper does not know) is the request's error;
/// a failure after it is an event whose data is an error in OpenAI's shape (as in chat
/// completion streams, which the official clients raise); a client that goes away stops the engine.
enum TranscriptionStream {
    struct Delta: Encodable {
        let type = "transcript.text.delta"
        let delta: String
    }

    struct Done: Encodable {
        let type = "transcript.text.done"
        let text: String
    }

    static func response(_ events: AsyncThrowingStream<TranscriptionEvent, any Error>) async throws -> Response {
        var first = events.makeAsyncIterator()
        let opening = try await first.next()
        return ServerSentEvents.response(failure: { try ServerSentEvents.event(OpenAIErrorBody(APIError.from($0))) }) { send in
            var started = false
            func write(_ event: TranscriptionEvent) async throws {
                switch event {
                case .segment(let segment):
                    // The whole text is trimmed, so the first delta loses its leading space too.
                    let text = started ? segment.text : String(segment.text.drop(while: \.isWhitespace))
                    guard !text.isEmpty else { return }
                    started = true
                    try await send([try ServerSentEvents.event(Delta(delta: text))])
                case .completed(let output):
                    try await send([try ServerSentEvents.event(Done(text: output.text))])
                }
            }
            guard let opening else { return }
            try await write(opening)
            // The rest from the same stream, one reader at a time.
            for try await event in events { try await write(event) }
        }
    }
}
