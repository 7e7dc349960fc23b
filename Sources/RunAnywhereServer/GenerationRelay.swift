import Hummingbird
import RunAnywhere

extension GenerationEvents {
    /// Writes this generation as a streamed response body, the one way every route streams one:
    /// `opening` first, then each event through `event`, then `closing`. A failure of the
    /// generation itself (other than its cancellation) goes to `failure`, in the route's own
    /// shape, and the stream still closes. Anything that throws while writing (a client that
    /// went away, above all) ends the relay at once and cancels the generation, so the engine
    /// stops at its next step.
    func relay(
        to writer: inout any ResponseBodyWriter,
        opening: (inout any ResponseBodyWriter) async throws -> Void = { _ in },
        event: (GenerationEvent, inout any ResponseBodyWriter) async throws -> Void,
        failure: (APIError, inout any ResponseBodyWriter) async throws -> Void,
        closing: (inout any ResponseBodyWriter) async throws -> Void = { _ in }
    ) async throws {
        var finished = false
        defer { if !finished { cancel() } }
        try await opening(&writer)
        var iterator = makeAsyncIterator()
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
}
