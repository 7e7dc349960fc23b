import Synchronization

/// A one-shot signal that any number of tasks can wait for.
package final class CompletionSignal: Sendable {
    /// A signal not yet given.
    package init() {}

    private let state = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Marks the signal done and wakes every waiter.
    package func signal() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once ``signal()`` has been called.
    package func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }
}
