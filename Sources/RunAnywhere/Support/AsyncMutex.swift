import Synchronization

/// A first-in, first-out lock that suspends instead of blocking while it waits.
///
/// An actor alone does not hold exclusivity across `await`: two calls into a loaded model could
/// interleave at every suspension point. Holding this mutex for a whole load, unload or
/// generation serialises them.
package final class AsyncMutex: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Creates an unlocked mutex.
    package init() {}

    /// Runs `body` while holding the mutex, waiting for earlier holders first. `body` runs on
    /// the caller's actor.
    package func withLock<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> sending T
    ) async rethrows -> sending T {
        await lock()
        defer { unlock() }
        return try await body()
    }

    private func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                if state.locked {
                    state.waiters.append(continuation)
                    return false
                }
                state.locked = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    private func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
