import Foundation
import Logging
import RunAnywhere
import RunAnywhereTelemetry
import RunAnywhereTestSupport
import Testing

/// The environment switcher end to end on loopback: the SDK in staging, initialized from the
/// `EnvironmentStore` as `runanywhere env use staging` leaves it, against a real collector
/// (`telemetry serve`'s routes over SQLite) with its API key. Scripted engines make the
/// generations and transcriptions, so that only the backend's behaviour is under test.
@Suite(.inProcessLane, .serialized)
struct EnvironmentBackendTests {
    static let key = "staging-key-0123456789"

    /// The app-data folder every SDK start in `folder` shares.
    static func dataDirectory(_ folder: URL) -> URL { folder.appendingPathComponent("data") }

    /// Initializes the SDK from `environments` as an app would, over the shared data folder and
    /// models of its own (`run`), and plugs the scripted engines in: no API call yet.
    static func initializeSDK(_ folder: URL, _ environments: EnvironmentStore, run: String) throws {
        let configuration = RuntimeConfiguration(
            modelsDirectory: folder.appendingPathComponent("\(run)/models"), dataDirectory: dataDirectory(folder))
        try RunAnywhere.initialize(from: environments, configuration: configuration)
        try RunAnywhere.registerFrameworkAdapter(ScriptedAdapter())
    }

    /// The app's work: registers and loads the scripted models (the first API calls), then
    /// `generations` answers (the last one streamed) and `transcriptions` transcriptions.
    static func work(_ folder: URL, run: String, generations: Int, transcriptions: Int = 0) async throws {
        let file = folder.appendingPathComponent("\(run)/scripted.gguf")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try GGUFWriter.tinyLlama().write(to: file)
        try RunAnywhere.runtime().registerModel(id: "scripted", name: "scripted", url: file, framework: .llamaCpp)
        try await RunAnywhere.loadModel("scripted")
        for index in 0..<generations {
            if index == generations - 1 {
                let streaming = try await RunAnywhere.generateStream("stream \(index) please", options: LLMGenerationOptions(maxTokens: 8))
                for try await _ in streaming.stream {}
                _ = try await streaming.result.value
            } else {
                _ = try await RunAnywhere.generate("answer \(index) please", options: LLMGenerationOptions(maxTokens: 8))
            }
        }
        guard transcriptions > 0 else { return }
        try addScriptedSpeech(to: RunAnywhere.runtime())
        try await RunAnywhere.loadSTTModel("scripted-stt")
        let wav = try AudioSamples(samples: [Float](repeating: 0.1, count: 16_000), sampleRate: 16_000).wavData
        for _ in 0..<transcriptions { _ = try await RunAnywhere.transcribeWithOptions(wav, options: STTOptions(audioFormat: .wav)) }
    }

    /// Waits until `condition` holds, looking every 50 ms; gives up (failing) after a minute, a
    /// bound against hanging rather than a timing expectation.
    static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("never happened: \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func stagingRegistersOnTheFirstCallAndSendsEachEventOnce() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        let collector = LiveCollector(folder: folder, apiKey: Self.key)
        try await collector.start()
        let environments = EnvironmentStore(dataDirectory: Self.dataDirectory(folder))
        try environments.use(.staging, baseURL: await collector.baseURL, apiKey: Self.key)
        try Self.initializeSDK(folder, environments, run: "first")
        #expect(
            !FileManager.default.fileExists(atPath: Self.dataDirectory(folder).appendingPathComponent("backend").path),
            "initializing wrote nothing")
        #expect(try await collector.devices().isEmpty, "initializing called nothing")

        try await Self.work(folder, run: "first", generations: 3, transcriptions: 2)
        try await Self.eventually("the device registers after the first API call") { try await collector.devices().count == 1 }
        try await RunAnywhere.flushAnalytics()
        let events = try await collector.events()
        #expect(events.filter { $0.type == "generation" }.count == 3)
        #expect(events.filter { $0.type == "transcription" }.count == 2)
        #expect(events.count == 5 && Set(events.map(\.id)).count == 5)
        let device = try #require(try await collector.devices().first)
        #expect(events.allSatisfy { $0.deviceID == device.deviceID })
        let status = try #require(try await RunAnywhere.backendStatus())
        #expect(status.environment == .staging && status.deviceID == device.deviceID && status.deviceIdentifier == device.deviceIdentifier)
        #expect(status.queuedEvents == 0 && status.lastError == nil)

        try await RunAnywhere.flushAnalytics()
        #expect(try await collector.events() == events, "nothing is sent twice")
        await RunAnywhere.shutdown()
        await collector.stop()
    }

    /// The collector is down: the app's calls go on, registration and sending back off in the
    /// background, and the events wait in the outbox; once it is back on the same port they
    /// arrive, each once, with no call from the app.
    @Test func eventsWaitWhileTheCollectorIsDownAndArriveWhenItIsBack() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        let collector = LiveCollector(folder: folder, apiKey: Self.key)
        try await collector.start()
        await collector.stop()
        let runtime = try scriptedRuntime()
        var configuration = try #require(
            BackendConfiguration(environment: .staging, baseURL: URL(string: await collector.baseURL), apiKey: Self.key))
        configuration.retry = BackoffPolicy(initial: .milliseconds(20), maximum: .milliseconds(200))
        let backend = EnvironmentBackend(
            configuration: configuration, dataDirectory: runtime.configuration.dataDirectory, events: runtime.events,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        backend.activate()
        try await runtime.loadModel("scripted")
        for index in 0..<4 { _ = try await runtime.generate("offline answer \(index)", options: LLMGenerationOptions(maxTokens: 4)) }
        let failure = await #expect(throws: SDKError.self) { try await backend.flush() }
        #expect(failure?.code == .networkError)
        let waiting = await backend.status()
        #expect(waiting.queuedEvents == 4 && waiting.deviceID == nil && waiting.lastError != nil)

        try await collector.start()
        try await Self.eventually("the queued events arrive") { try await collector.events().count == 4 }
        try await Self.eventually("the outbox empties") { await backend.status().queuedEvents == 0 }
        #expect(Set(try await collector.events().map(\.id)).count == 4)
        #expect(try await collector.devices().count == 1)
        await backend.close()
        await collector.stop()
    }

    /// Events queued while the collector is down survive the app stopping: a new runtime over
    /// the same data folder sends them, from the same device.
    @Test func anSDKRestartKeepsAndSendsTheOutbox() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        let collector = LiveCollector(folder: folder, apiKey: Self.key)
        try await collector.start()
        await collector.stop()
        let environments = EnvironmentStore(dataDirectory: Self.dataDirectory(folder))
        try environments.use(.staging, baseURL: await collector.baseURL, apiKey: Self.key)
        try Self.initializeSDK(folder, environments, run: "first")
        try await Self.work(folder, run: "first", generations: 2)
        await #expect(throws: SDKError.self) { try await RunAnywhere.flushAnalytics() }
        let before = try #require(try await RunAnywhere.backendStatus())
        #expect(before.queuedEvents == 2 && before.deviceID == nil)
        await RunAnywhere.shutdown()

        try await collector.start()
        try Self.initializeSDK(folder, environments, run: "second")
        #expect(try await RunAnywhere.backendStatus()?.queuedEvents == 2, "the outbox is on disk")
        try await RunAnywhere.flushAnalytics()
        #expect(try await collector.events().count == 2)
        let devices = try await collector.devices()
        #expect(devices.count == 1 && devices.first?.deviceIdentifier == before.deviceIdentifier)
        #expect(try await RunAnywhere.backendStatus()?.queuedEvents == 0)
        await RunAnywhere.shutdown()
        await collector.stop()
    }

    /// A wrong API key is refused: nothing is registered or stored, and the events stay queued
    /// until the right key is stored with the switcher.
    @Test func aWrongKeyIsRefusedAndTheEventsStayQueued() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        let collector = LiveCollector(folder: folder, apiKey: Self.key)
        try await collector.start()
        let environments = EnvironmentStore(dataDirectory: Self.dataDirectory(folder))
        try environments.use(.staging, baseURL: await collector.baseURL, apiKey: "wrong-key-0123456789")
        try Self.initializeSDK(folder, environments, run: "first")
        try await Self.work(folder, run: "first", generations: 2, transcriptions: 1)
        let refusal = await #expect(throws: SDKError.self) { try await RunAnywhere.flushAnalytics() }
        #expect(refusal?.code == .unauthorized)
        #expect(try await RunAnywhere.backendStatus()?.queuedEvents == 3)
        #expect(try await collector.devices().isEmpty)
        #expect(try await collector.events().isEmpty)
        await RunAnywhere.shutdown()

        try environments.use(.staging, apiKey: Self.key)
        try Self.initializeSDK(folder, environments, run: "second")
        try await RunAnywhere.flushAnalytics()
        #expect(try await collector.events().count == 3)
        await RunAnywhere.shutdown()
        await collector.stop()
    }

    /// Development makes no network call, even with a base URL stored, and writes no outbox.
    @Test func developmentCallsNothingAndQueuesNothing() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        let listener = try await TestHTTPServer.start(routes: [:])
        let environments = EnvironmentStore(dataDirectory: Self.dataDirectory(folder))
        try environments.use(.development, baseURL: listener.url("/").absoluteString)
        try Self.initializeSDK(folder, environments, run: "first")
        try await Self.work(folder, run: "first", generations: 2, transcriptions: 1)
        try await RunAnywhere.flushAnalytics()
        #expect(try await RunAnywhere.backendStatus() == nil)
        await RunAnywhere.shutdown()
        #expect(listener.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: Self.dataDirectory(folder).appendingPathComponent("backend").path))
        try await listener.shutdown()
    }
}
