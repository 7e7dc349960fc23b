import Foundation
import RunAnywhereEspeak
import RunAnywhereSherpaOnnx
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// Engines that serve one request at a time take turns per model in the model cache: a model's
/// requests run one after another in the order they came, and another model of the same kind
/// (here a second voice) does not wait for them.
@Suite(
    .inProcessLane, .serialized,
    .enabled(if: TestEnvironment.speechInstalled, "needs the speech engines and models: run scripts/setup --tests --build tests"))
struct ModelTurnsTests {
    /// What happened, in order.
    actor Log {
        var entries: [String] = []
        func add(_ entry: String) { entries.append(entry) }
    }

    @Test func aModelsRequestsTakeTurnsInOrderAndAnotherModelDoesNotWait() async throws {
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: try TestEnvironment.temporaryDirectory()))
        runtime.frameworks.register(SherpaOnnxAdapter(phonemizer: EspeakPhonemizer()))
        runtime.frameworks.register(EspeakAdapter())
        let models = SDKConstants.Models.self
        let load = ModelLoadOptions(threads: 1)
        let voice = try runtime.model(id: models.defaultVoiceID)
        let other = try runtime.model(id: "espeak-ng-en-us")
        let voiceLease = try await runtime.acquire(voice, as: .speechSynthesis, options: load, keepAlive: nil)
        let otherLease = try await runtime.acquire(other, as: .speechSynthesis, options: load, keepAlive: nil)

        let log = Log()
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let first = Task {
            try await runtime.inTurn(on: voice.id) {
                await log.add("first in")
                for await _ in gate { break }
                await log.add("first out")
            }
        }
        while await log.entries.isEmpty { await Task.yield() }
        let second = Task { try await runtime.inTurn(on: voice.id) { await log.add("second") } }
        while await runtime.waitingForTurns(voice.id) < 1 { await Task.yield() }
        let third = Task { try await runtime.inTurn(on: voice.id) { await log.add("third") } }
        while await runtime.waitingForTurns(voice.id) < 2 { await Task.yield() }

        try await runtime.inTurn(on: other.id) { await log.add("other voice") }
        #expect(await log.entries == ["first in", "other voice"], "the other voice waited, or the voice served two at once")
        open.yield()
        try await first.value
        try await second.value
        try await third.value
        #expect(await log.entries == ["first in", "other voice", "first out", "second", "third"])
        #expect(await runtime.waitingForTurns(voice.id) == 0)

        await runtime.release(voiceLease)
        await runtime.release(otherLease)
        await runtime.unloadAllModels()
    }
}

extension RunAnywhereRuntime {
    /// Requests waiting for model `id`'s turn.
    fileprivate func waitingForTurns(_ id: String) -> Int { cache[id]?.turnWaiters.count ?? 0 }
}
