import Foundation

/// One generation running inside an engine, on a thread of its own (engine calls block for
/// milliseconds at a time and must not occupy Swift's cooperative threads).
public final class LLMEngineRun: Sendable {
    /// The engine's reports, ending when the engine stops.
    public let events: AsyncThrowingStream<LLMEngineEvent, any Error>
    /// Raised by ``cancel()``; the engine polls it before every decode step.
    public let cancellation: CancellationFlag
    private let finished: CompletionSignal

    private init(events: AsyncThrowingStream<LLMEngineEvent, any Error>, cancellation: CancellationFlag, finished: CompletionSignal) {
        self.events = events
        self.cancellation = cancellation
        self.finished = finished
    }

    /// Runs `work` on a new thread. `work` reports through the emitter and should return soon
    /// after the emitter says it is cancelled; what it throws ends ``events`` with that error.
    public static func start(name: String, _ work: @escaping @Sendable (LLMEngineEmitter) throws -> Void) -> LLMEngineRun {
        let (events, continuation) = AsyncThrowingStream.makeStream(of: LLMEngineEvent.self)
        let cancellation = CancellationFlag()
        let finished = CompletionSignal()
        continuation.onTermination = { _ in cancellation.cancel() }
        let thread = Thread {
            do {
                try work(LLMEngineEmitter(continuation: continuation, cancellation: cancellation))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
            finished.signal()
        }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
        return LLMEngineRun(events: events, cancellation: cancellation, finished: finished)
    }

    /// Asks the engine to stop; it does so before its next decode step.
    public func cancel() { cancellation.cancel() }

    /// Returns once the engine's thread has finished with the model.
    public func waitUntilFinished() async { await finished.wait() }
}

/// How engine work reports events and learns it should stop.
public struct LLMEngineEmitter: Sendable {
    let continuation: AsyncThrowingStream<LLMEngineEvent, any Error>.Continuation
    /// Raised when the run is cancelled.
    public let cancellation: CancellationFlag

    /// Whether the run was cancelled.
    public var isCancelled: Bool { cancellation.isCancelled }

    /// Reports an event.
    public func emit(_ event: LLMEngineEvent) { continuation.yield(event) }

    /// Reports a generated token, stamped with the current time.
    public func emitToken(_ bytes: [UInt8]) { continuation.yield(.token(bytes: bytes, at: .now)) }
}
