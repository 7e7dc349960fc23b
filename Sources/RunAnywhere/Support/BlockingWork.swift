import Foundation

/// Runs blocking engine work (a model load can take seconds) on a thread of its own, so it never
/// occupies one of Swift's cooperative threads, of which there is one per core.
public func runBlocking<T: Sendable>(name: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }
}

extension Duration {
    /// The duration in seconds.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
