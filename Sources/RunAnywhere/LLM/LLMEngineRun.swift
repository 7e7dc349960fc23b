import Foundation

/// One generation inside an engine. Engine calls block for milliseconds at a time and must not
/// occupy Swift's cooperative threads, so the work happens off them: on a thread of the run's own
/// (``start(_:)``), or on a scheduler thread that serves many runs (``make()``).
public final class LLMEngineRun: Sendable {
    /// The engine's reports, ending when the engine stops.
    public let events: AsyncThrowingStream<LLMEngineEvent, any Error>
    /// Raised by ``cancel()``; the engine polls it before every decode step.
    public let cancellation: CancellationFlag
    private let finished: CompletionSignal
    /// Told of a cancellation as it happens, for an engine that cannot poll ``cancellation``
    /// (one in another process).
    private let onCancel: (@Sendable () -> Void)?

    private init(
        events: AsyncThrowingStream<LLMEngineEvent, any Error>, cancellation: CancellationFlag, finished: CompletionSignal,
        onCancel: (@Sendable () -> Void)?
    ) {
        self.events = events
        self.cancellation = cancellation
        self.finished = finished
        self.onCancel = onCancel
    }

    /// A run and the emitter its engine reports through; the engine calls
    /// ``LLMEngineEmitter/finish(throwing:)`` once it is done with the run.
    public static func make() -> (run: LLMEngineRun, emitter: LLMEngineEmitter) { make(onCancel: nil) }

    /// A run whose cancellation also calls `onCancel` (each time it is asked for: make it
    /// idempotent), for an engine that learns of it by message rather than by polling; with a
    /// `receiver`, its events go there as the engine reports them, and ``events`` only ends.
    package static func make(
        onCancel: (@Sendable () -> Void)?, receiver: LLMEngineReceiver? = nil
    ) -> (run: LLMEngineRun, emitter: LLMEngineEmitter) {
        let (events, continuation) = AsyncThrowingStream.makeStream(of: LLMEngineEvent.self)
        let cancellation = CancellationFlag()
        let finished = CompletionSignal()
        continuation.onTermination = { termination in
            cancellation.cancel()
            if case .cancelled = termination { onCancel?() }
        }
        let run = LLMEngineRun(events: events, cancellation: cancellation, finished: finished, onCancel: onCancel)
        return (run, LLMEngineEmitter(continuation: continuation, cancellation: cancellation, finished: finished, receiver: receiver))
    }

    /// Runs `work` on a thread of its own. `work` reports through the emitter and should return
    /// soon after the emitter says it is cancelled; what it throws ends ``events`` with that error.
    /// A generation may last minutes, so it never takes one of the bounded engine threads that
    /// loads and transcriptions queue for (see `runBlocking(_:)`): a few long answers would
    /// otherwise hold every model load until one of them ends.
    public static func start(_ work: @escaping @Sendable (LLMEngineEmitter) throws -> Void) -> LLMEngineRun {
        let (run, emitter) = make()
        let thread = Thread {
            do {
                try work(emitter)
                emitter.finish()
            } catch {
                emitter.finish(throwing: error)
            }
        }
        thread.name = "runanywhere-generation"
        thread.stackSize = 8 << 20  // as a main thread's: engines recurse in C (grammars, templates)
        thread.start()
        return run
    }

    /// Asks the engine to stop; it does so before its next decode step.
    public func cancel() {
        cancellation.cancel()
        onCancel?()
    }

    /// Returns once the engine has finished with the run.
    public func waitUntilFinished() async { await finished.wait() }

    /// Hands the run's events, then its end, to `receiver` from a task that reads ``events``:
    /// for an engine that reports only through them.
    package func deliver(to receiver: LLMEngineReceiver) {
        Task {
            var failure: (any Error)?
            do {
                for try await event in events {
                    receiver.event(event)
                    receiver.flush()
                }
            } catch {
                failure = error
            }
            await waitUntilFinished()
            receiver.end(failure)
        }
    }
}

/// Where a run's events go as the engine reports them, on the engine's own threads, for a
/// consumer that handles them at once (an engine worker queues each token for its pipe; the
/// runtime runs the generation's pipeline, ``GenerationFollower``): no task wakes per token, as
/// one reading ``LLMEngineRun/events`` would. No call may block.
package struct LLMEngineReceiver: Sendable {
    /// Hears each event, in order; what it hears it may hold until ``flush`` or ``end``.
    package let event: @Sendable (LLMEngineEvent) -> Void
    /// Called after a group of events: an engine that runs many generations in steps calls it
    /// once each step has reported, so that a step's tokens travel together.
    package let flush: @Sendable () -> Void
    /// Hears the end once, after the last event, once the engine is done with the run: nil, or
    /// the error that ended it.
    package let end: @Sendable ((any Error)?) -> Void

    package init(
        event: @escaping @Sendable (LLMEngineEvent) -> Void, flush: @escaping @Sendable () -> Void,
        end: @escaping @Sendable ((any Error)?) -> Void
    ) {
        self.event = event
        self.flush = flush
        self.end = end
    }
}

/// How engine work reports events and learns it should stop.
public struct LLMEngineEmitter: Sendable {
    let continuation: AsyncThrowingStream<LLMEngineEvent, any Error>.Continuation
    /// Raised when the run is cancelled.
    public let cancellation: CancellationFlag
    let finished: CompletionSignal
    let receiver: LLMEngineReceiver?

    /// Whether the run was cancelled.
    public var isCancelled: Bool { cancellation.isCancelled }

    /// Reports an event.
    public func emit(_ event: LLMEngineEvent) {
        if let receiver { receiver.event(event) } else { continuation.yield(event) }
    }

    /// Reports a generated token, stamped with the current time.
    public func emitToken(_ bytes: [UInt8]) { emit(.token(bytes: bytes, at: .now)) }

    /// Tells a run's ``LLMEngineReceiver`` that a group of events has been reported (a decode
    /// step's); nothing for a run read through its stream.
    package func flush() { receiver?.flush() }

    /// Ends the run's events, with `error` if it failed, and tells whoever waits for the run
    /// that the engine is done with it. Call it exactly once.
    public func finish(throwing error: (any Error)? = nil) {
        continuation.finish(throwing: error)
        finished.signal()
        receiver?.end(error)
    }
}
