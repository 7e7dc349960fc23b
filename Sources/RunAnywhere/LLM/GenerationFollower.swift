import Synchronization

/// A generation's pipeline run where its engine reports the events (an ``LLMEngineReceiver``):
/// on the engine's own thread, or on the thread that reads an engine worker's pipe. Each token
/// goes through the pipeline and on to the caller's stream there, with no task woken to read
/// the run's events; the task that awaits ``result(emit:startedAt:)`` wakes once, at the end.
final class GenerationFollower: Sendable {
    private struct State {
        var progress: GenerationPipeline.Progress
        /// Where the events go; until the caller gives it, they wait in `pending`.
        var emit: (@Sendable (GenerationEvent) -> Void)?
        var pending: [GenerationEvent] = []
        /// Set by a stop sequence, a repeated tool call or the caller's cancellation: the
        /// events after it are dropped, as a reader of the run's stream stops reading.
        var stopped = false
        var failure: (any Error)?
    }

    /// The run, and whether the caller cancelled. Apart from `state` because the events are
    /// emitted holding `state`, and emitting can resume the caller's task, which takes that
    /// task's lock: the caller's cancellation handler runs holding the same lock, so it must not
    /// wait for `state`. Taken inside `state` at most, and never held while calling out.
    private struct Control {
        var run: LLMEngineRun?
        var cancelled = false
    }

    private let state: Mutex<State>
    private let control = Mutex(Control())
    private let ended = CompletionSignal()

    init(_ pipeline: GenerationPipeline) {
        state = Mutex(State(progress: GenerationPipeline.Progress(pipeline)))
    }

    /// What the engine reports to.
    var receiver: LLMEngineReceiver {
        LLMEngineReceiver(event: { [self] in take($0) }, flush: {}, end: { [self] in end($0) })
    }

    /// The run the engine started for ``receiver``: what stops the generation cancels it.
    func follow(_ run: LLMEngineRun) {
        // The run is set before `stopped` is read, and `take` sets `stopped` before it reads the
        // run: however the two interleave, one of them cancels a stopped run.
        let cancelled = control.withLock { control in
            control.run = run
            return control.cancelled
        }
        if cancelled || state.withLock({ $0.stopped }) { run.cancel() }
    }

    private func take(_ event: LLMEngineEvent) {
        let stopping = state.withLock { state -> LLMEngineRun?? in
            if !state.stopped, control.withLock({ $0.cancelled }) { state.stopped = true }
            guard !state.stopped else { return nil }
            let stop: Bool
            if let emit = state.emit {
                stop = state.progress.take(event, emit: emit)
            } else {
                var made: [GenerationEvent] = []
                stop = state.progress.take(event) { made.append($0) }
                state.pending += made
            }
            guard stop else { return nil }
            state.stopped = true
            return .some(control.withLock { $0.run })
        }
        if case .some(let run) = stopping { run?.cancel() }
    }

    private func end(_ error: (any Error)?) {
        state.withLock { state in
            if !state.stopped, !control.withLock({ $0.cancelled }) { state.failure = error }
        }
        ended.signal()
    }

    /// Sends the events so far and those to come to `emit` and returns the result once the
    /// engine is done with the run. Cancelling the calling task cancels the run; the result
    /// then says `.cancelled`.
    func result(emit: @escaping @Sendable (GenerationEvent) -> Void, startedAt start: ContinuousClock.Instant) async throws
        -> LLMGenerationResult
    {
        state.withLock { state in
            state.pending.forEach(emit)
            state.pending = []
            state.emit = emit
        }
        await withTaskCancellationHandler {
            await ended.wait()
        } onCancel: {
            let run = control.withLock { control in
                control.cancelled = true
                return control.run
            }
            run?.cancel()
        }
        let cancelled = Task.isCancelled
        return try state.withLock { state in
            if let failure = state.failure { throw failure }
            return state.progress.finish(startedAt: start, cancelled: cancelled, emit: emit)
        }
    }
}
