import Hummingbird
import RunAnywhere

extension GenerationEvents {
    /// Writes this generation as a streamed response body, the one way every dialect streams:
    /// `opening` first, then each event through `event`, then `closing`. A failure of the
    /// generation (other than its cancellation) goes to `failure` in the dialect's own shape, and
    /// the stream still closes. Anything that throws before the end (a write to a client that went
    /// away, above all) cancels the generation, so the engine stops at its next step.
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
        do {
            for try await item in self { try await event(item, &writer) }
        } catch let error where !(error is CancellationError) {
            try await failure(APIError.from(error), &writer)
        }
        try await closing(&writer)
        finished = true
    }
}
