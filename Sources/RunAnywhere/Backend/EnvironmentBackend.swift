import Foundation
import Logging
import Synchronization

/// The SDK's calls to its staging or production backend (the text-generation spec, 1.1–1.2),
/// started by the first API call after `initialize`, which itself stays free of network and disk:
///
/// - The device registers once: an identifier generated once for the installation, and the
///   backend's id for it, are kept in `<data>/backend/device.json`. A failed registration is
///   retried in the background with backoff.
/// - Every completed generation, transcription and synthesis the runtime publishes is written at
///   once to the outbox (``AnalyticsOutbox``), which survives restarts and offline periods. Once
///   registered, the outbox is sent in batches; an event leaves it only when the backend has
///   acknowledged its id, and the backend keeps each id once, so each event counts once.
///   Failures back off (``BackoffPolicy``) and keep the events queued.
///
/// Nothing here blocks or fails the app's own calls: failures are logged and retried.
package final class EnvironmentBackend: Sendable {
    /// The backend and how it is called.
    package let configuration: BackendConfiguration
    private let events: SDKEventBus
    private let logger: Logger
    private let outbox: AnalyticsOutbox
    private let devices: DeviceIdentityStore
    private let client: BackendClient
    private let state = Mutex(State())
    /// Held while events move from memory to the outbox, so a flush sends all recorded before it.
    private let writing = AsyncMutex()
    /// Held while registering and sending, so two senders never interleave.
    private let sending = AsyncMutex()

    private struct State {
        var started = false
        var closed = false
        var observation: Int?
        /// Events received and not yet in the outbox.
        var pending: [AnalyticsEvent] = []
        /// Wakes the writer: events are pending.
        var recorded: AsyncStream<Void>.Continuation?
        /// Wakes the sender: events were queued.
        var queued: AsyncStream<Void>.Continuation?
        var writer: Task<Void, Never>?
        var sender: Task<Void, Never>?
        /// The backend's id for the device, once known.
        var deviceID: String?
        var lastError: String?
    }

    /// A backend for the runtime whose events are `events` and whose data folder is `dataDirectory`.
    /// Nothing is read, written or sent before ``activate()``.
    package init(configuration: BackendConfiguration, dataDirectory: URL, events: SDKEventBus, logger: Logger) {
        self.configuration = configuration
        self.events = events
        self.logger = logger
        outbox = AnalyticsOutbox(dataDirectory: dataDirectory, logger: logger)
        devices = DeviceIdentityStore(dataDirectory: dataDirectory, logger: logger)
        client = BackendClient(configuration: configuration)
    }

    /// Starts, on the first call (later calls return at once): events are recorded from now on,
    /// and the device registers and the outbox is sent in the background.
    package func activate() {
        state.withLock { state in
            guard !state.started, !state.closed else { return }
            state.started = true
            let (recorded, recordedContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            let (queued, queuedContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            state.recorded = recordedContinuation
            state.queued = queuedContinuation
            state.observation = events.observe { [weak self] event in self?.receive(event) }
            state.writer = Task {
                for await _ in recorded {
                    try? await self.writePending()
                    queuedContinuation.yield()
                }
            }
            state.sender = Task { await self.sendInBackground(woken: queued) }
        }
    }

    /// Writes the events recorded so far to the outbox and sends the outbox now, registering the
    /// device first if needed; throws why the backend could not take them (they stay queued).
    package func flush() async throws {
        activate()
        try await writePending()
        try await sendQueued()
    }

    /// Stops: no event is recorded after it, those recorded are written to the outbox, which (if
    /// ``activate()`` was called) is sent for at most `limit` when it holds any, then closed. What
    /// is not sent stays queued for the next run. A second call does nothing.
    package func close(sendingFor limit: Duration = .zero) async {
        let (stopping, started) = state.withLock { state in
            defer { state.closed = true }
            return (!state.closed, state.started)
        }
        guard stopping else { return }
        guard started else { return await outbox.close() }
        let (observation, writer, sender) = state.withLock { state in
            defer {
                state.recorded?.finish()
                state.queued?.finish()
                (state.observation, state.writer, state.sender, state.recorded, state.queued) = (nil, nil, nil, nil, nil)
            }
            return (state.observation, state.writer, state.sender)
        }
        if let observation { events.stopObserving(observation) }
        await writer?.value
        try? await writePending()
        sender?.cancel()
        await sender?.value
        if limit > .zero, ((try? await outbox.count(target: configuration.target)) ?? 0) > 0 {
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await self.sendQueued() }
                    group.addTask {
                        try await Task.sleep(for: limit)
                        throw SDKError(.networkError, "Sending took longer than \(limit)")
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } catch {
                logger.info("Analytics stay queued for the next run", metadata: ["reason": "\(error)"])
            }
        }
        await outbox.close()
    }

    /// The device's registration and the events waiting; makes no network call.
    package func status() async -> BackendStatus {
        let contents = devices.contents()
        let queued = (try? await outbox.count(target: configuration.target)) ?? 0
        let (pending, lastError) = state.withLock { ($0.pending.count, $0.lastError) }
        return BackendStatus(
            environment: configuration.environment, baseURL: configuration.target, deviceIdentifier: contents?.deviceIdentifier,
            deviceID: contents?.registrations[configuration.target]?.deviceID, queuedEvents: queued + pending, lastError: lastError
        )
    }

    /// Called on the publisher's thread: keeps the analytics of `event` in memory and wakes the writer.
    private func receive(_ event: SDKEvent) {
        guard let analytics = AnalyticsEvent(event) else { return }
        state.withLock { state in
            guard !state.closed else { return }
            state.pending.append(analytics)
            state.recorded?.yield()
        }
    }

    /// Moves the pending events to the outbox; those that cannot be written are logged and dropped.
    private func writePending() async throws {
        try await writing.withLock {
            let events = state.withLock { state in
                defer { state.pending = [] }
                return state.pending
            }
            guard !events.isEmpty else { return }
            do {
                let dropped = try await outbox.append(events, target: configuration.target, capacity: configuration.outboxCapacity)
                if dropped > 0 {
                    logger.warning(
                        "The analytics outbox is full; its oldest events were dropped",
                        metadata: ["dropped": "\(dropped)", "capacity": "\(configuration.outboxCapacity)"])
                }
            } catch {
                logger.error(
                    "Analytics events could not be queued and are lost", metadata: ["count": "\(events.count)", "reason": "\(error)"])
                throw error
            }
        }
    }

    /// Registers, then sends whatever is queued whenever events are, backing off after failures
    /// until cancelled.
    private func sendInBackground(woken queued: AsyncStream<Void>) async {
        var failures = 0
        var wakes = queued.makeAsyncIterator()
        while !Task.isCancelled {
            do {
                try await sendQueued()
                failures = 0
                guard await wakes.next() != nil else { return }
            } catch {
                guard !Task.isCancelled else { return }
                failures += 1
                let delay = configuration.retry.delay(attempt: failures)
                // Being offline is expected now and then; a refused key or a wrong base URL needs the user.
                let unreachable = (error as? SDKError)?.code == .networkError
                logger.log(
                    level: unreachable ? .info : .warning, "The backend call failed; retrying",
                    metadata: [
                        "event": "\(SDKConstants.Events.backendFailed)", "reason": "\(error)",
                        "retryInSeconds": "\(delay.inSeconds.formatted(.number.precision(.fractionLength(1))))",
                    ])
                do { try await Task.sleep(for: delay) } catch { return }
            }
        }
    }

    /// Registers the device if it has not, then sends the outbox in batches until it is empty;
    /// throws the first failure. A backend that no longer knows the device gets it registered again once.
    private func sendQueued() async throws {
        try await sending.withLock {
            var registeredAgain = false
            var deviceID = try await registeredDevice()
            while true {
                let batch = try await outbox.batch(target: configuration.target, limit: configuration.batchSize)
                if batch.isEmpty { break }
                let result: AnalyticsBatchResult
                do throws(BackendFailure) {
                    result = try await client.send(AnalyticsBatch(deviceID: deviceID, events: batch))
                } catch .unknownDevice where !registeredAgain {
                    registeredAgain = true
                    try devices.forget(configuration.target)
                    state.withLock { $0.deviceID = nil }
                    deviceID = try await registeredDevice()
                    continue
                } catch {
                    throw failed(error)
                }
                for rejection in result.rejected {
                    logger.warning(
                        "The backend rejected an analytics event", metadata: ["id": "\(rejection.id)", "reason": "\(rejection.message)"])
                }
                let handled = Set(result.accepted).union(result.rejected.map(\.id))
                let acknowledged = batch.map(\.id).filter(handled.contains)
                try await outbox.remove(acknowledged)
                logger.debug(
                    "Analytics sent",
                    metadata: [
                        "event": "\(SDKConstants.Events.analyticsSent)", "stored": "\(result.stored)", "duplicates": "\(result.duplicates)",
                    ])
                guard !acknowledged.isEmpty else {
                    throw failed(.refused(status: 200, "the backend acknowledged none of \(batch.count) events"))
                }
            }
            state.withLock { $0.lastError = nil }
        }
    }

    /// The backend's id for the device, registering it when it has none.
    private func registeredDevice() async throws -> String {
        if let known = state.withLock({ $0.deviceID }) { return known }
        if let stored = devices.registration(for: configuration.target) {
            state.withLock { $0.deviceID = stored.deviceID }
            return stored.deviceID
        }
        let hardware = HardwareProfile.current()
        let registration = DeviceRegistration(
            deviceIdentifier: try devices.identifier(), platform: "linux", osVersion: hardware.operatingSystem,
            architecture: hardware.architecture,
            deviceModel: hardware.cpuModel, sdkVersion: RunAnywhere.version, environment: configuration.environment.rawValue
        )
        let result: DeviceRegistrationResult
        do {
            result = try await client.register(registration)
        } catch {
            throw failed(error)
        }
        try devices.store(result, for: configuration.target)
        state.withLock { $0.deviceID = result.deviceID }
        logger.info(
            "Device registered",
            metadata: [
                "event": "\(SDKConstants.Events.deviceRegistered)", "backend": "\(configuration.target)", "deviceID": "\(result.deviceID)",
            ])
        return result.deviceID
    }

    /// `failure` as an ``SDKError``, remembered as the last error.
    private func failed(_ failure: BackendFailure) -> SDKError {
        let error = failure.error(configuration)
        state.withLock { $0.lastError = error.message }
        return error
    }
}

/// The staging or production backend's state, as ``RunAnywhere/backendStatus()`` reports it.
public struct BackendStatus: Codable, Sendable, Equatable {
    /// Staging or production.
    public let environment: SDKEnvironment
    /// The backend's base URL.
    public let baseURL: String
    /// The identifier generated once for this installation; nil before the first registration attempt.
    public let deviceIdentifier: String?
    /// The backend's id for the device; nil until it has registered.
    public let deviceID: String?
    /// Events recorded and not yet acknowledged by the backend.
    public let queuedEvents: Int
    /// Why the last registration or send failed, until one succeeds.
    public let lastError: String?
}
