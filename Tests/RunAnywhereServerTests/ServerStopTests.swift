import Foundation
import Logging
import RunAnywhere
import RunAnywhereServer
import RunAnywhereTestSupport
import Testing

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
