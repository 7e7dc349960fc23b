import Foundation
import Logging
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// The backend's parts that need no network: the backoff's bounds and jitter, the outbox's
/// durability, order and bounds, the device identity, and what an event carries.
struct BackendOutboxTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func event(_ id: String) -> AnalyticsEvent {
        AnalyticsEvent(id: id, type: "generation", occurredAt: "2026-01-02T03:04:05.678Z", properties: ["output_tokens": .integer(3)])
    }

    @Test func backoffDoublesWithJitterUpToItsMaximum() {
        let policy = BackoffPolicy(initial: .seconds(1), maximum: .seconds(60))
        var generator = SeededGenerator(seed: 7)
        for attempt in 1...12 {
            let ceiling = min(60, pow(2, Double(attempt - 1)))
            let delays = (0..<50).map { _ in policy.delay(attempt: attempt, using: &generator).inSeconds }
            #expect(delays.allSatisfy { (ceiling / 2...ceiling).contains($0) }, "attempt \(attempt): \(delays)")
            #expect(Set(delays).count > 1, "jitter spreads retries")
        }
        #expect(policy.delay(attempt: 10_000, using: &generator) <= .seconds(60))
        #expect(
            BackoffPolicy(initial: .seconds(5), maximum: .seconds(1)).maximum == .seconds(5), "the maximum is never below the first delay")
    }

    @Test func theOutboxKeepsEventsInOrderAcrossReopeningUntilRemoved() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        let outbox = AnalyticsOutbox(dataDirectory: folder, logger: Self.logger)
        #expect(try await outbox.count(target: "https://a") == 0)
        #expect(!FileManager.default.fileExists(atPath: outbox.url.path), "nothing is created before the first event")
        try await outbox.append([Self.event("1"), Self.event("2"), Self.event("3")], target: "https://a", capacity: 100)
        try await outbox.append([Self.event("2"), Self.event("4")], target: "https://a", capacity: 100)
        try await outbox.append([Self.event("9")], target: "https://b", capacity: 100)
        await outbox.close()

        let reopened = AnalyticsOutbox(dataDirectory: folder, logger: Self.logger)
        #expect(try await reopened.batch(target: "https://a", limit: 10).map(\.id) == ["1", "2", "3", "4"], "each id once, oldest first")
        #expect(try await reopened.batch(target: "https://a", limit: 2) == [Self.event("1"), Self.event("2")])
        try await reopened.remove(["1", "3"])
        #expect(try await reopened.batch(target: "https://a", limit: 10).map(\.id) == ["2", "4"])
        #expect(try await reopened.count(target: "https://b") == 1, "each backend has its own events")
        await reopened.close()
    }

    @Test func aFullOutboxDropsItsOldestEvents() async throws {
        let outbox = AnalyticsOutbox(dataDirectory: try TestEnvironment.temporaryDirectory(), logger: Self.logger)
        #expect(try await outbox.append((1...5).map { Self.event("\($0)") }, target: "https://a", capacity: 3) == 2)
        #expect(try await outbox.batch(target: "https://a", limit: 10).map(\.id) == ["3", "4", "5"])
        await outbox.close()
    }

    @Test func theDeviceIdentifierIsMadeOnceAndRegistrationsKeptPerBackend() throws {
        let folder = try TestEnvironment.temporaryDirectory()
        let store = DeviceIdentityStore(dataDirectory: folder, logger: Self.logger)
        #expect(store.contents() == nil)
        let identifier = try store.identifier()
        #expect(try DeviceIdentityStore(dataDirectory: folder, logger: Self.logger).identifier() == identifier)
        try store.store(DeviceRegistrationResult(deviceID: "staging-id", registeredAt: "2026-01-01T00:00:00Z"), for: "https://staging")
        #expect(store.registration(for: "https://staging")?.deviceID == "staging-id")
        #expect(store.registration(for: "https://production") == nil)
        try store.forget("https://staging")
        #expect(store.registration(for: "https://staging") == nil && store.contents()?.deviceIdentifier == identifier)

        try Data("{not json".utf8).write(to: store.url)
        #expect(try store.identifier() != identifier, "an unreadable file is moved aside and a new identity made")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: store.url.deletingLastPathComponent().path).contains {
                $0.hasPrefix("device.json.corrupt-")
            })
    }

    @Test func eventsCarryMeasurementsNeverText() throws {
        let result = LLMGenerationResult(
            text: "the secret answer", thinkingContent: "private thoughts", inputTokens: 12, tokensUsed: 5, modelUsed: "smollm2",
            latencyMs: 250,
            framework: "llama.cpp", backend: "cpu", tokensPerSecond: 20, timeToFirstTokenMs: 40, thinkingTokens: 2, responseTokens: 3,
            promptTokensPerSecond: .infinity
        )
        let event = try #require(AnalyticsEvent(.generationCompleted(result)))
        #expect(event.type == "generation" && UUID(uuidString: event.id) != nil)
        #expect(
            event.properties["model_id"] == .text("smollm2") && event.properties["output_tokens"] == .integer(5)
                && event.properties["latency_ms"] == .number(250))
        #expect(event.properties["prompt_tokens_per_second"] == nil, "JSON has no infinity")
        let json = String(decoding: try JSONEncoder().encode(event), as: UTF8.self)
        #expect(!json.contains("secret") && !json.contains("private"))
        #expect(AnalyticsEvent(.modelLoaded(modelId: "smollm2")) == nil)
        #expect(AnalyticsEvent(.generationCompleted(result))?.id != event.id, "every event has an id of its own")

        let synthesis = try #require(
            AnalyticsEvent(
                .synthesisCompleted(
                    TTSSynthesisMetadata(voice: "joe", language: "en", processingTime: 0.5, characterCount: 40, charactersPerSecond: 80),
                    audioDuration: 2.5
                )))
        #expect(
            synthesis.type == "synthesis" && synthesis.properties["audio_seconds"] == .number(2.5)
                && synthesis.properties["processing_ms"] == .number(500))
    }
}
