import Foundation
import Synchronization

/// Carries in-process engines' events from their decode loops to the receivers that follow them,
/// on a thread of its own. A decode loop only queues each event, and wakes the courier once a
/// step (``LLMEngineReceiver/flush``), so what follows a token (the generation pipeline, the
/// caller's stream, the task woken to read it) costs the decode loop nothing and runs beside it,
/// on another core.
final class EventCourier: Sendable {
    /// The courier of the process's in-process engines.
    static let shared = EventCourier()

    private enum Parcel: Sendable {
        case event(LLMEngineReceiver, LLMEngineEvent)
        case flush(LLMEngineReceiver)
        case end(LLMEngineReceiver, (any Error)?)
    }

    private let parcels = Mutex<(queued: [Parcel], woken: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in deliverForever() }
        thread.name = "event courier"
        thread.start()
    }

    /// A receiver that passes what it hears, in order, to `receiver` on the courier's thread.
    func carrying(to receiver: LLMEngineReceiver) -> LLMEngineReceiver {
        LLMEngineReceiver(
            event: { [self] event in parcels.withLock { $0.queued.append(.event(receiver, event)) } },
            flush: { [self] in send(.flush(receiver)) },
            end: { [self] error in send(.end(receiver, error)) }
        )
    }

    /// Queues `parcel` and wakes the courier unless it is already awake for what is queued.
    private func send(_ parcel: Parcel) {
        let wakes = parcels.withLock { parcels -> Bool in
            parcels.queued.append(parcel)
            defer { parcels.woken = true }
            return !parcels.woken
        }
        if wakes { wake.signal() }
    }

    private func deliverForever() -> Never {
        var batch: [Parcel] = []
        while true {
            wake.wait()
            parcels.withLock { parcels in
                swap(&batch, &parcels.queued)
                parcels.woken = false
            }
            for parcel in batch {
                switch parcel {
                case .event(let receiver, let event): receiver.event(event)
                case .flush(let receiver): receiver.flush()
                case .end(let receiver, let error): receiver.end(error)
                }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
