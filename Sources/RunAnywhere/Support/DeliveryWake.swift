import Dispatch

/// How a thread that delivers what a decode loop queues (``EventCourier``, a worker's
/// ``LineWriter``) waits for it, so that the loop does not pay for the wake-up token after token.
///
/// Waking a sleeping thread is a system call, and on a virtual machine an interrupt between cores
/// besides: measured on the decode thread of a small model, about a tenth of each step. So while
/// work flows the deliverer does not sleep for good: it looks again ``interval`` after each round,
/// and nobody signals it. Only a round that finds nothing puts it to sleep until it is signalled,
/// and only then does the producer signal (its queue's lock says which: the deliverer's
/// `asleep`, set under that lock by the round that found nothing). A step that comes sooner than
/// the interval costs the loop a lock and an append; one that comes later, a signal as before.
/// What is queued reaches its receiver at most ``interval`` late.
struct DeliveryWake: Sendable {
    /// How long a deliverer that is busy waits before it looks at its queue again.
    static let interval = DispatchTimeInterval.milliseconds(2)

    private let semaphore = DispatchSemaphore(value: 0)

    /// Waits for the next round: at most ``interval`` after a round that delivered something,
    /// else until ``signal()``.
    func wait(afterDelivering delivered: Bool) {
        if delivered {
            _ = semaphore.wait(timeout: .now() + Self.interval)
        } else {
            semaphore.wait()
        }
    }

    /// Wakes a deliverer that is asleep (call it only when its queue's state says so).
    func signal() { semaphore.signal() }
}
