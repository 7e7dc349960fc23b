import Foundation

/// Writes lines to a file descriptor from a thread of its own, each write taking every line
/// queued meanwhile: the tokens a step of many streams emits at once leave in one or two writes
/// instead of one each (a system call and a wake-up of the reader per token).
final class LineWriter: @unchecked Sendable {
    private let fd: Int32
    private let condition = NSCondition()
    // Under `condition`.
    private var queued = Data()
    private var closing = false
    private let drained = CompletionSignal()

    /// Starts the writing thread for `fd`.
    init(fd: Int32) {
        self.fd = fd
        let thread = Thread { [self] in run() }
        thread.name = "engine-worker-stdout"
        thread.start()
    }

    /// Queues `line` (its newline included), after every line queued before it.
    func write(_ line: Data) {
        condition.lock()
        queued.append(line)
        condition.signal()
        condition.unlock()
    }

    /// Writes what is queued and ends the thread; returns once all of it is written.
    func close() async {
        startClosing()
        await drained.wait()
    }

    private func startClosing() {
        condition.lock()
        closing = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queued.isEmpty, !closing { condition.wait() }
            let lines = queued
            queued.removeAll(keepingCapacity: true)
            let last = closing && lines.isEmpty
            condition.unlock()
            if last { return drained.signal() }
            WorkerWire.write(lines, to: fd)
        }
    }
}
