import Foundation
import Synchronization

/// Writes lines to a file descriptor from many threads, in the order they come: a thread that
/// finds no write under way writes its line and every line queued meanwhile, in one write per
/// round; the others queue theirs and go on. So the tokens a step of many streams emits at once
/// leave in a few writes instead of one each (a system call and a wake-up of the reader per
/// token), without a thread of its own to wake.
final class LineWriter: Sendable {
    private let fd: Int32
    private let state = Mutex<(queued: Data, writing: Bool)>((Data(), false))

    init(fd: Int32) {
        self.fd = fd
    }

    /// Writes `line` (its newline included) after every line written or queued before it.
    func write(_ line: Data) {
        var lines = state.withLock { state -> Data? in
            state.queued.append(line)
            return state.writing ? nil : take(&state)
        }
        while let batch = lines {
            WorkerWire.write(batch, to: fd)
            lines = state.withLock { state -> Data? in
                guard !state.queued.isEmpty else {
                    state.writing = false
                    return nil
                }
                return take(&state)
            }
        }
    }

    /// Returns once every line given to ``write(_:)`` is written.
    func flush() async {
        while state.withLock({ $0.writing }) {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    private func take(_ state: inout (queued: Data, writing: Bool)) -> Data {
        state.writing = true
        defer { state.queued = Data() }
        return state.queued
    }
}
