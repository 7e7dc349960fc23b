/// Runs `operation`, or throws `failure()` once `limit` has passed without it ending (the
/// operation is then cancelled): for calls into something that may never answer, such as a
/// database gone from the network.
package func withTimeLimit<T: Sendable>(
    _ limit: Duration, failure: @escaping @Sendable () -> any Error, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() ?? nil else { throw failure() }
        return value
    }
}
