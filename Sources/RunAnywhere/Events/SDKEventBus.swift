import Synchronization

/// Something that happened in the SDK.
public enum SDKEvent: Sendable, Equatable {
    /// A model was loaded.
    case modelLoaded(modelId: String)
    /// A model was unloaded.
    case modelUnloaded(modelId: String)
    /// A language model moved to another lifecycle state.
    case modelStateChanged(modelId: String, state: ModelLifecycleState)
    /// A model was added to the registry.
    case modelRegistered(modelId: String)
    /// A model's files were deleted.
    case modelDeleted(modelId: String)
    /// A download moved on.
    case downloadProgress(DownloadProgress)
    /// A generation ended (finished, cut at its length, or cancelled), with its metrics.
    case generationCompleted(LLMGenerationResult)
    /// A transcription finished, with its model and timings.
    case transcriptionCompleted(TranscriptionMetadata)
    /// A synthesis finished, with its voice and timings, and the seconds of audio it made.
    case synthesisCompleted(TTSSynthesisMetadata, audioDuration: Double)
}

/// The SDK's event stream: every subscriber gets every event from the moment it subscribes.
public final class SDKEventBus: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<SDKEvent>.Continuation]>([:])
    private let observers = Mutex<[Int: @Sendable (SDKEvent) -> Void]>([:])
    private let nextID = Mutex(0)

    /// Creates a bus with no subscribers.
    package init() {}

    /// A stream of the events published from now on; it ends when the consumer stops iterating.
    public func subscribe() -> AsyncStream<SDKEvent> {
        let id = nextID.withLock { id in
            defer { id += 1 }
            return id
        }
        let (stream, continuation) = AsyncStream.makeStream(of: SDKEvent.self, bufferingPolicy: .bufferingNewest(1024))
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Sends `event` to every subscriber.
    package func publish(_ event: SDKEvent) {
        for observer in observers.withLock({ Array($0.values) }) { observer(event) }
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// Calls `handler` with every event published from now on, on the publisher's thread before
    /// ``publish(_:)`` returns, until ``stopObserving(_:)``: for a subscriber that must hold every
    /// event published before a given moment (the backend's outbox), or one that reads the
    /// publishing task's task-local values (the server's usage per API key). `handler` must be quick.
    package func observe(_ handler: @escaping @Sendable (SDKEvent) -> Void) -> Int {
        let id = nextID.withLock { id in
            defer { id += 1 }
            return id
        }
        observers.withLock { $0[id] = handler }
        return id
    }

    /// Stops calling the handler ``observe(_:)`` returned `id` for.
    package func stopObserving(_ id: Int) {
        _ = observers.withLock { $0.removeValue(forKey: id) }
    }
}
