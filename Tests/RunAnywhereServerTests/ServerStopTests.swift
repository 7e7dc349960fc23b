import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereServer

/// A server run in process and stopped leaves its runtime as it found it, for the app that goes
/// on using the runtime: the draft models it made the defaults no longer apply.
@Suite struct ServerStopTests {
    @Test func aStoppedServerLeavesNoDefaultsOnItsRuntime() async throws {
        let runtime = try scriptedRuntime()
        var configuration = ServerConfiguration(port: 0, logger: Logger(label: "test"))
        configuration.draftModels = ["a-model": "a-draft"]
        let server = RunAnywhereServer(runtime: runtime, configuration: configuration)
        let (running, started) = AsyncStream.makeStream(of: Int.self)
        let serving = Task { try await server.run { started.yield($0) } }
        for await _ in running { break }
        #expect(runtime.defaultDraftModels.withLock { $0 } == ["a-model": "a-draft"])
        serving.cancel()
        _ = try? await serving.value
        #expect(runtime.defaultDraftModels.withLock { $0 }.isEmpty && runtime.defaultLoRAAdapters.withLock { $0 }.isEmpty)
    }
}

/// `GET /ready`, which a load balancer probes: ready with an engine, a writable data folder and
/// readable databases; otherwise a 503 that says what is missing. Open without a key, as `/health` is.
@Suite struct ReadinessTests {
    @Test func readyWhenItsEnginesAndDataAreThereAndSaysWhatIsMissingOtherwise() async throws {
        let runtime = try scriptedRuntime()
        _ = try await APIKeyStore(dataDirectory: runtime.configuration.dataDirectory, logger: Logger(label: "test"))
            .create(name: "ops", account: "ops", scopes: [.admin])
        // However loaded the machine, the stores answer this probe: no time limit is under test here.
        var patient = ServerConfiguration(port: 0, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        patient.readinessLimit = .seconds(600)
        try await RunAnywhereServer(runtime: runtime, configuration: patient).checkedApplication().test(.router) { client in
            let ready = try await client.execute(uri: "/ready", method: .get)
            #expect(ready.status == .ok, "\(String(buffer: ready.body))")
        }
        // A data folder that is a file: nothing can be written nor read there.
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("data")
        try Data("not a folder".utf8).write(to: file)
        var configuration = RuntimeConfiguration(modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: file)
        configuration.modelMemoryBudget = 0
        let broken = RunAnywhereRuntime(configuration: configuration)
        try await OpenAIRouteTests.server(broken).checkedApplication().test(.router) { client in
            let unready = try await client.execute(uri: "/ready", method: .get)
            let problems = try #require(try OpenAIRouteTests.json(unready.body)["problems"] as? [String])
            #expect(unready.status == .serviceUnavailable)
            #expect(
                problems.contains("no engine here can run a language model") && problems.contains("the data folder cannot be written"),
                "\(problems)")
        }
    }
}
