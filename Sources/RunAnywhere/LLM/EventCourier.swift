import Foundation
import Synchronization

/// Carries in-process engines' events from their decode loops to the receivers that follow them,
/// on a thread of its own. A decode loop only queues each event, and ends each step with
/// ``LLMEngineReceiver/flush``, which wakes the courier only when it sleeps (``DeliveryWake``),
/// so what follows a token (the generation pipeline, the caller's stream, the task woken to read
/// it) costs the decode loop nothing and runs beside it, on another core.
final class EventCourier: Sendable {
    /// The courier of the process's in-process engines.
    static let shared = EventCourier()

    private enum Parcel: Sendable {
        case event(LLMEngineReceiver, LLMEngineEvent)
        case flush(LLMEngineReceiver)
        case end(LLMEngineReceiver, (any Error)?)
    }

    /// What waits to be delivered, and whether the courier sleeps until it is woken.
    private let parcels = Mutex<(queued: [Parcel], asleep: Bool)>(([], true))
    private let wake = DeliveryWake()

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

    /// Queues `parcel` and wakes the courier if it sleeps.
    private func send(_ parcel: Parcel) {
        let wakes = parcels.withLock { parcels -> Bool in
            parcels.queued.append(parcel)
            defer { parcels.asleep = false }
            return parcels.asleep
        }
        if wakes { wake.signal() }
    }

    private func deliverForever() -> Never {
        var batch: [Parcel] = []
        var delivered = false
        while true {
            wake.wait(afterDelivering: delivered)
            parcels.withLock { parcels in
                swap(&batch, &parcels.queued)
                parcels.asleep = batch.isEmpty
            }
            delivered = !batch.isEmpty
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
