import Hummingbird
import RunAnywhere

extension GenerationEvents {
    /// Writes this generation as a streamed response body, the one way every route streams one:
    /// `opening` first, then each event through `event`, then `closing`. A failure of the
    /// generation itself (other than its cancellation) goes to `failure`, in the route's own
    /// shape, and the stream still closes. Anything that throws while writing (a client that
    /// went away, above all), or the cancellation of the task writing (its client hung up), ends
    /// the relay at once and cancels the generation, so the engine stops at its next step.
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
        // The events also end early when this task is cancelled (its client hung up): that is no end.
        try Task.checkCancellation()
        try await closing(&writer)
        finished = true
    }
}

extension GenerationEvents {
    /// Writes several generations (the choices of one request) as one streamed response body,
    /// their events interleaved as they come, each with its generation's index, as
    /// ``relay(to:opening:event:failure:closing:)`` writes one: a failure of any of them (other
    /// than its cancellation) goes to `failure` and ends the stream, and anything that throws
    /// while writing ends the relay at once; either way every generation still running is cancelled.
    static func relay(
        _ generations: [GenerationEvents], to writer: inout any ResponseBodyWriter,
        event: (Int, GenerationEvent, inout any ResponseBodyWriter) async throws -> Void,
        failure: (APIError, inout any ResponseBodyWriter) async throws -> Void,
        closing: (inout any ResponseBodyWriter) async throws -> Void
    ) async throws {
        let (merged, continuation) = AsyncThrowingStream.makeStream(of: (Int, GenerationEvent).self)
        let readers = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, generation) in generations.enumerated() {
                    group.addTask {
                        do {
                            for try await event in generation { continuation.yield((index, event)) }
                        } catch {
                            continuation.finish(throwing: error)
                        }
                    }
                }
            }
            continuation.finish()
        }
        var finished = false
        defer {
            if !finished { generations.forEach { $0.cancel() } }
            readers.cancel()
        }
        var iterator = merged.makeAsyncIterator()
        while true {
            let next: (Int, GenerationEvent)?
            do {
                next = try await iterator.next()
            } catch let error where !(error is CancellationError) {
                try await failure(APIError.from(error), &writer)
                break
            }
            guard let (index, value) = next else { break }
            try await event(index, value, &writer)
        }
        try Task.checkCancellation()  // as above: the events ended because the client hung up
        try await closing(&writer)
        finished = true
    }
}
