import Synchronization

/// A flag that one thread raises and another polls, for stopping engine work that runs outside
/// Swift concurrency (a decode loop on its own thread, or an engine's C abort callback).
public final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Creates a lowered flag.
    public init() {}

    /// Whether ``cancel()`` has been called.
    public var isCancelled: Bool { raised.load(ordering: .acquiring) }

    /// Raises the flag; idempotent.
    public func cancel() { raised.store(true, ordering: .releasing) }
}
