import Synchronization

/// Runs `operation`, or throws `failure()` once `limit` has passed without it ending, for calls
/// into something that may never answer, such as a database gone from the network. At the limit
/// the operation is cancelled and `expired` runs (say, to close the connection it waits on); the
/// call returns then even if the operation ignores its cancellation, which is left to end on its own.
package func withTimeLimit<T: Sendable>(
    _ limit: Duration, failure: @escaping @Sendable () -> any Error, expired: (@Sendable () async -> Void)? = nil,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let work = Task { try await operation() }
    let timer = Task { try await Task.sleep(for: limit) }
    let settled = Once()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            Task {
                let result = await work.result
                timer.cancel()
                if settled.claim() { continuation.resume(with: result) }
            }
            Task {
                guard (try? await timer.value) != nil else { return }
                guard settled.claim() else { return }
                work.cancel()
                await expired?()
                continuation.resume(throwing: failure())
            }
        }
    } onCancel: {
        work.cancel()
        timer.cancel()
    }
}

/// A flag that only the first of several racers claims.
private final class Once: Sendable {
    private let claimed = Mutex(false)

    /// Whether this call is the first.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
