import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereBenchmarks

/// The runner's bookkeeping, driven by providers that report fixed numbers, fail, or wait to be
/// cancelled (the real LLM provider is exercised in the llama.cpp tests).
@Suite(.inProcessLane) struct BenchmarkRunnerTests {
    struct ScriptedProvider: BenchmarkScenarioProvider {
        let category = BenchmarkCategory.llm
        let failing: String
        let waitOn: String?

        func scenarios() -> [BenchmarkScenario] {
            ["One", "Two"].map { BenchmarkScenario(name: $0, category: .llm) }
        }

        func execute(scenario: BenchmarkScenario, model: ModelInfo, deviceInfo: BenchmarkDeviceInfo) async throws -> BenchmarkMetrics {
            if model.id == failing { throw SDKError(.modelLoadFailed, "cannot load \(model.id)") }
            if scenario.name == waitOn { try await Task.sleep(for: .seconds(60)) }
            return BenchmarkMetrics(tokensPerSecond: 10, endToEndLatencyMs: 5)
        }
    }

    func makeRuntime(_ folder: URL, models: [String]) throws -> RunAnywhereRuntime {
        let runtime = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(modelsDirectory: folder.appendingPathComponent("models"), dataDirectory: folder))
        for id in models {
            let file = folder.appendingPathComponent("\(id).gguf")
            try Data("stand-in".utf8).write(to: file)
            try runtime.registerModel(id: id, name: id, url: file, framework: .llamaCpp)
        }
        return runtime
    }

    func runner(_ runtime: RunAnywhereRuntime, _ store: BenchmarkStore, failing: String = "", waitOn: String? = nil) -> BenchmarkRunner {
        BenchmarkRunner(
            configuration: BenchmarkConfiguration(runtime: runtime, repetitions: 1),
            providers: [
                ScriptedProvider(failing: failing, waitOn: waitOn),
                VLMBenchmarkProvider(configuration: BenchmarkConfiguration(runtime: runtime)),
            ],
            store: store, appVersion: "test"
        )
    }

    @Test func aFailingItemIsRecordedAndTheRunGoesOn() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BenchmarkStore(dataDirectory: folder)
        let handle = runner(try makeRuntime(folder, models: ["alpha", "beta"]), store, failing: "alpha").start(categories: [
            .llm, .vlm, .tts,
        ])
        var events: [BenchmarkEvent] = []
        for await event in handle.events { events.append(event) }
        let run = await handle.run.value
        #expect(run.status == .completed)
        #expect(run.results.count == 4, "2 models × 2 scenarios")
        #expect(run.results.filter { $0.componentModelInfo.modelId == "alpha" }.allSatisfy { $0.metrics.error == "cannot load alpha" })
        #expect(
            run.results.filter { $0.componentModelInfo.modelId == "beta" }.allSatisfy {
                $0.metrics.error == nil && $0.metrics.tokensPerSecond == 10
            })
        #expect(events.contains(.skipped(.vlm, "No models available for Vision Language — download one first")))
        #expect(events.contains(.skipped(.tts, "No benchmark provider for Text-to-Speech in this build")))
        let progress = events.compactMap { if case .progress(let update) = $0 { update } else { nil } }
        #expect(progress.map(\.completedCount) == [0, 1, 2, 3] && progress.allSatisfy { $0.totalCount == 4 })
        #expect(progress.last?.progress == 0.75 && progress[1].currentScenario.hasPrefix("LLM: Two ("))
        #expect(try store.loadRuns().runs.first?.id == run.id, "saved when it ends")
    }

    @Test func cancellingKeepsTheFinishedResults() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = BenchmarkStore(dataDirectory: folder)
        let handle = runner(try makeRuntime(folder, models: ["alpha"]), store, waitOn: "Two").start(categories: [.llm])
        for await event in handle.events {
            if case .progress(let update) = event, update.completedCount == 1 { handle.run.cancel() }
        }
        let run = await handle.run.value
        #expect(run.status == .cancelled)
        #expect(run.results.map(\.scenarioName) == ["One"])
        #expect(try store.loadRuns().runs.first?.status == .cancelled, "a cancelled run is saved too")
    }

    @Test func nothingToRunIsAnEmptyCompletedRun() async throws {
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let handle = runner(try makeRuntime(folder, models: []), BenchmarkStore(dataDirectory: folder)).start(categories: [])
        var skipped = 0
        for await event in handle.events { if case .skipped = event { skipped += 1 } }
        let run = await handle.run.value
        #expect(run.status == .completed && run.results.isEmpty)
        #expect(skipped == BenchmarkCategory.allCases.count, "each category, with no model to run, is skipped")
    }
}
