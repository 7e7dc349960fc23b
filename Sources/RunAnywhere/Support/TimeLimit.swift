import Synchronization

/// Runs `operation`, or throws `failure()` once `limit` has passed without it ending, for calls
/// into something that may never answer, such as a database gone from the network. At the limit
/// the operation is cancelled and `expired` runs (say, to close the connection it waits on); the
/// call returns then even if the operation ignores its cancellation, which is left to end on its own.
package func withTimeLimit<T: Sendable>(
    _ limit: Duration, failure: @escaping @Sendable () -> any Error, expired: (@Sendable () async -> Void)? = nil,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    // Two tasks race to answer: the operation's and the timer's. Every database query of the
    // server comes through here, so each call makes no more tasks than that.
    let settled = Once()
    let racers = Racers()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let timer = Task {
                guard (try? await Task.sleep(for: limit)) != nil, settled.claim() else { return }
                racers.state.withLock { $0.work }?.cancel()
                await expired?()
                continuation.resume(throwing: failure())
            }
            let work = Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                timer.cancel()
                if settled.claim() { continuation.resume(with: result) }
            }
            let cancelled = racers.state.withLock { racers in
                racers.work = work
                racers.timer = timer
                return racers.cancelled
            }
            if cancelled {
                work.cancel()
                timer.cancel()
            }
        }
    } onCancel: {
        let (work, timer) = racers.state.withLock { racers in
            racers.cancelled = true
            return (racers.work, racers.timer)
        }
        work?.cancel()
        timer?.cancel()
    }
}

/// The two racing tasks once made, and whether the caller was cancelled before they were.
private final class Racers: Sendable {
    let state = Mutex<(work: Task<Void, Never>?, timer: Task<Void, Never>?, cancelled: Bool)>((nil, nil, false))
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
