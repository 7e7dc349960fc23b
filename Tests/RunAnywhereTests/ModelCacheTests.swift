import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// The runtime's cache of language models, over the scripted engine: loading on demand, states
/// on the event bus, keep-alive, the memory budget with least-recently-used eviction, and
/// models in use never unloaded.
@Suite(.timeLimit(.minutes(1))) struct ModelCacheTests {
    /// A request of `words` words to `model`; the scripted engine answers with them, all of them
    /// (a request meant to hold its model for a while must not end at the default 100 tokens).
    static func start(_ runtime: RunAnywhereRuntime, _ model: String, words: Int = 2, keepAlive: KeepAlive? = nil) async throws
        -> LLMStreamingResult
    {
        let prompt = (1...words).map { "w\($0)" }.joined(separator: " ")
        let options = LLMGenerationOptions(maxTokens: words)
        return try await runtime.generateStream(
            prompt, context: nil, options: options, model: model, loadOptions: ModelLoadOptions(), keepAlive: keepAlive)
    }

    /// A whole answer; the stream is read to its end (dropping it unread would cancel the request).
    static func generate(_ runtime: RunAnywhereRuntime, _ model: String, keepAlive: KeepAlive? = nil) async throws -> LLMGenerationResult {
        let generation = try await start(runtime, model, keepAlive: keepAlive)
        for try await _ in generation.stream {}
        return try await generation.result.value
    }

    static func loaded(_ runtime: RunAnywhereRuntime) async -> [String] {
        await runtime.loadedModels().filter { $0.state == .loaded }.map(\.modelId)
    }

    @Test func requestsLoadTheirModelAndKeepItForItsKeepAlive() async throws {
        let runtime = try scriptedRuntime(ids: ["a", "b"])
        #expect(await runtime.loadedModels().isEmpty)
        #expect(try await Self.generate(runtime, "a", keepAlive: .forever).text == "w1 w2")
        _ = try await Self.generate(runtime, "b", keepAlive: KeepAlive(parsing: "1m"))
        let statuses = await runtime.loadedModels()
        #expect(statuses.map(\.modelId) == ["a", "b"])
        #expect(statuses.allSatisfy { $0.state == .loaded && $0.activeRequests == 0 && $0.memoryBytes == 1 << 20 })
        #expect(statuses[0].keepAliveSeconds == nil && statuses[0].expiresAt == nil, "kept for ever")
        #expect(statuses[1].keepAliveSeconds == 60)
        #expect((statuses[1].expiresAt?.timeIntervalSinceNow ?? 0) > 50)
        _ = try await Self.generate(runtime, "b", keepAlive: KeepAlive(seconds: 0))
        #expect(await Self.loaded(runtime) == ["a"], "keep_alive 0 unloads the model once its request ends")
        _ = try await Self.generate(runtime, "a")
        #expect(await runtime.loadedModels().first?.keepAliveSeconds == nil, "a request without keep_alive keeps the model's")
    }

    @Test func anIdleModelIsUnloadedWhenItsKeepAliveRunsOut() async throws {
        let runtime = try scriptedRuntime()
        let events = runtime.events.subscribe()
        _ = try await Self.generate(runtime, "scripted", keepAlive: .duration(.milliseconds(50)))
        var states: [ModelLifecycleState] = []
        for await event in events {
            guard case .modelStateChanged("scripted", let state) = event else { continue }
            states.append(state)
            if state == .notLoaded { break }
        }
        #expect(states == [.loading, .loaded, .unloading, .notLoaded])
        #expect(await runtime.loadedModels().isEmpty)
    }

    @Test func requestsForAModelBeingLoadedShareTheLoad() async throws {
        let runtime = try scriptedRuntime()
        let events = runtime.events.subscribe()
        let texts = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { try await Self.generate(runtime, "scripted").text } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(texts == Array(repeating: "w1 w2", count: 4))
        await runtime.unloadAllModels()
        var loads = 0
        for await event in events {
            if case .modelLoaded = event { loads += 1 }
            if case .modelUnloaded = event { break }
        }
        #expect(loads == 1)
    }

    @Test func leastRecentlyUsedIdleModelsMakeRoomAndModelsInUseStay() async throws {
        // Each scripted model takes 1 MiB; the budget holds two and a half.
        // Two-word answers end; longer ones write two words and hold their model until cancelled.
        let runtime = try scriptedRuntime(ids: ["a", "b", "c"], adapter: ScriptedAdapter(stallAfter: 2), budget: 5 << 19)
        _ = try await Self.generate(runtime, "a")
        _ = try await Self.generate(runtime, "b")
        _ = try await Self.generate(runtime, "a")
        _ = try await Self.generate(runtime, "c")
        #expect(await Self.loaded(runtime) == ["a", "c"], "b, used least recently, made room for c")

        // Requests that hold their model until cancelled.
        let onC = try await Self.start(runtime, "c", words: 1000)
        _ = try await Self.generate(runtime, "b")
        #expect(await Self.loaded(runtime) == ["b", "c"], "a, idle, made room; c is in use")
        let onB = try await Self.start(runtime, "b", words: 1000)
        await #expect(throws: SDKError.self) { try await Self.generate(runtime, "a") }
        #expect(await runtime.loadedModels().first { $0.modelId == "c" }?.activeRequests == 1)

        onC.result.cancel()
        onB.result.cancel()
        #expect(try await onC.result.value.stopReason == .cancelled)
        #expect(try await onB.result.value.stopReason == .cancelled)
        _ = try await Self.generate(runtime, "a")
        #expect(await runtime.loadedModels().allSatisfy { $0.activeRequests == 0 })
    }

    /// A model evicted to make room has freed its memory before the next load starts (as ollama
    /// waits for a runner to exit), so the budget holds; `unloadModel(id:)` returns once it has.
    @Test func theNextLoadWaitsUntilAnUnloadHasFreedItsMemory() async throws {
        let log = ScriptedLog()
        let runtime = try scriptedRuntime(
            ids: ["a", "b"], adapter: ScriptedAdapter(unloadDelay: .milliseconds(300), log: log), budget: 3 << 19)
        _ = try await Self.generate(runtime, "a")
        _ = try await Self.generate(runtime, "b")
        #expect(log.all == ["load a", "unloaded a", "load b"])
        await runtime.unloadModel(id: "b")
        #expect(log.all.last == "unloaded b", "unloadModel(id:) returned before the engine freed its memory")
    }

    /// A handle holds its model: never evicted while held, then back under its keep-alive.
    @Test func aHeldModelStaysUntilItsHandleIsReleased() async throws {
        let runtime = try scriptedRuntime(ids: ["a", "b"], budget: 3 << 19)
        let handle = try await runtime.hold("a")
        let held = try await handle.generate("held words")
        #expect(held.text == "held words")
        await #expect(throws: SDKError.self) { try await Self.generate(runtime, "b") }  // a is held: no room
        await #expect(throws: SDKError.self) { try await handle.transcribe(AudioSamples(pcm16: Data(count: 3_200), sampleRate: 16_000)) }
        await handle.release()
        await #expect(throws: SDKError.self) { try await handle.generate("after release") }
        _ = try await Self.generate(runtime, "b")
        #expect(await Self.loaded(runtime) == ["b"], "a, released and idle, made room")
    }

    @Test func unloadingWaitsForTheRequestsUsingTheModel() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(tokenDelay: .milliseconds(5)))
        let running = try await Self.start(runtime, "scripted", words: 40)
        await runtime.unloadModel(id: "scripted")
        let result = try await running.result.value
        #expect(result.stopReason == .stop, "the request finished its answer")
        #expect(result.tokensUsed == 40)
        #expect(await runtime.loadedModels().isEmpty)
    }

    @Test func aLoadThatFailsIsReportedAndRetried() async throws {
        let runtime = try scriptedRuntime()
        let file = try #require(try runtime.model(id: "scripted").localPath)
        let good = try Data(contentsOf: file)
        try Data("not a model".utf8).write(to: file)
        await #expect(throws: SDKError.self) { try await Self.generate(runtime, "scripted") }
        let failed = await runtime.loadedModels()
        #expect(failed.map(\.state) == [.failed])
        #expect(failed.first?.error?.contains("GGUF") == true, "\(failed)")
        try good.write(to: file)
        #expect(try await Self.generate(runtime, "scripted").text == "w1 w2")
        #expect(await runtime.loadedModels().map(\.state) == [.loaded])
    }
}
