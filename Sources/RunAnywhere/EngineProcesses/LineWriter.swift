import Foundation
import Synchronization

/// Writes lines to a file descriptor from many threads, in the order they come, one writer at a
/// time, each write taking every line queued meanwhile.
///
/// A line can be written two ways. ``write(_:)`` writes it on the caller's thread if no write is
/// under way (an answer to the runtime goes out at once, with no thread to wake), else leaves
/// it to the writer under way. ``queue(_:)`` only queues it, and ``send()`` then has the
/// writer's own thread write what is queued: an engine's decode thread, which must not wait on a
/// pipe, queues a step's tokens and sends them together, in a write or two instead of a system
/// call each, and wakes that thread only when it sleeps (``DeliveryWake``). A worker has one, for
/// its standard output, whose thread lives as long as the process.
final class LineWriter: Sendable {
    private let fd: Int32
    /// What waits to be written, whether a thread is writing (and will take it), and whether the
    /// writer's thread sleeps until it is woken.
    private let state = Mutex<(queued: Data, writing: Bool, asleep: Bool)>((Data(), false, true))
    private let wake = DeliveryWake()

    init(fd: Int32) {
        self.fd = fd
        let thread = Thread { [self] in
            var busy = false
            while true {
                wake.wait(afterDelivering: busy)
                // Woken by send(), the thread was handed `writing`; looking on its own, it takes it if it can.
                let found = busy ? look() : .work
                if found == .work { writeQueued() }
                busy = found != .nothing
            }
        }
        thread.name = "engine-worker-stdout"
        thread.start()
    }

    /// Writes `line` (its newline included) after every line queued before it.
    func write(_ line: Data) {
        let first = state.withLock { state in
            state.queued.append(line)
            defer { state.writing = true }
            return !state.writing
        }
        if first { writeQueued() }
    }

    /// Queues `line` to go out with the next ``send()`` or ``write(_:)``.
    func queue(_ line: Data) {
        state.withLock { $0.queued.append(line) }
    }

    /// Has the writer's thread write what is queued, unless a write under way will take it; wakes
    /// that thread only if it sleeps (else it looks within ``DeliveryWake/interval``).
    func send() {
        let wakes = state.withLock { state in
            guard state.asleep, !state.writing, !state.queued.isEmpty else { return false }
            state.writing = true
            state.asleep = false
            return true
        }
        if wakes { wake.signal() }
    }

    /// Returns once every line written, queued or sent before is written.
    func drain() async {
        while true {
            send()
            guard state.withLock({ $0.writing || !$0.queued.isEmpty }) else { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// What the writer's thread finds when it looks at the queue on its own.
    private enum Look { case work, writeUnderWay, nothing }

    /// Takes `writing` for what is queued, unless a write under way will take it (nobody signals
    /// while the thread looks within the interval); with nothing queued, the thread goes to sleep.
    private func look() -> Look {
        state.withLock { state in
            if state.writing { return .writeUnderWay }
            if state.queued.isEmpty {
                state.asleep = true
                return .nothing
            }
            state.writing = true
            return .work
        }
    }

    /// Writes what is queued, round after round, until nothing is; the caller holds `writing`.
    private func writeQueued() {
        while let batch = state.withLock({ state -> Data? in
            guard !state.queued.isEmpty else {
                state.writing = false
                return nil
            }
            defer { state.queued = Data() }
            return state.queued
        }) {
            WorkerWire.write(batch, to: fd)
        }
    }
}
