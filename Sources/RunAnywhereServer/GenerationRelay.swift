import Hummingbird
import RunAnywhere

/// Writes a generation's events as a streamed response body, the one way every route streams
/// one: `opening` first, then each event through `event`, then `closing`. A failure of the
/// generation itself (other than its cancellation) goes to `failure`, in the route's own shape,
/// and the stream still closes. Anything that throws while writing (a client that went away,
/// above all) ends the relay at once and `cancel`s the generation, so the engine stops at its
/// next step.
func relayEvents<Events: AsyncSequence<GenerationEvent, any Error>>(
    _ events: Events,
    cancel: () -> Void,
    to writer: inout any ResponseBodyWriter,
    opening: (inout any ResponseBodyWriter) async throws -> Void = { _ in },
    event: (GenerationEvent, inout any ResponseBodyWriter) async throws -> Void,
    failure: (APIError, inout any ResponseBodyWriter) async throws -> Void,
    closing: (inout any ResponseBodyWriter) async throws -> Void = { _ in }
) async throws {
    var finished = false
    defer { if !finished { cancel() } }
    try await opening(&writer)
    var iterator = events.makeAsyncIterator()
    while true {
        let next: GenerationEvent?
        do {
            next = try await iterator.next()
        } catch let error where !(error is CancellationError) {
            try await failure(APIError.from(error), &writer)
            break
        }
        guard let next else { break }
        try await event(next, &writer)
    }
    try await closing(&writer)
    finished = true
}

extension GenerationEvents {
    /// Writes this generation as a streamed response body (`relayEvents`),
    /// cancelling it if writing fails.
    func relay(
        to writer: inout any ResponseBodyWriter,
        opening: (inout any ResponseBodyWriter) async throws -> Void = { _ in },
        event: (GenerationEvent, inout any ResponseBodyWriter) async throws -> Void,
        failure: (APIError, inout any ResponseBodyWriter) async throws -> Void,
        closing: (inout any ResponseBodyWriter) async throws -> Void = { _ in }
    ) async throws {
        try await relayEvents(
            self, cancel: cancel, to: &writer, opening: opening, event: event, failure: failure, closing: closing)
    }
}
