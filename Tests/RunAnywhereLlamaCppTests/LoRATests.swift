import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereLlamaCpp

/// LoRA adapters on the real default model, with a generated adapter (``GGUFWriter/loraFixture(for:seed:architecture:)``:
/// random weights, no training), on the batch-invariant context, where a request's numbers do
/// not depend on what shares the model: an adapter changes the answer, the same request without
/// it is the base model's again to the token, and requests with and without adapters share the
/// loaded model at once, each getting its lone answer.
extension LlamaTests {
    @Suite struct LoRA {
        static let load = BatchInvariance.load

        /// A fixture adapter for the default model, written into a new temporary folder.
        static func adapter(seed: UInt64 = 1, architecture: String = "llama") throws -> URL {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-lora-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("adapter-\(seed)-\(architecture).gguf")
            try GGUFWriter.loraFixture(for: try #require(TestEnvironment.defaultModelFile), seed: seed, architecture: architecture)
                .write(to: file)
            return file
        }

        static func options(_ adapters: [LoRAAdapter]?) -> LLMGenerationOptions {
            var options = greedy(12)
            options.loraAdapters = adapters
            return options
        }

        static let prompt = "Name three colours."

        @Test func anAdapterChangesTheAnswerAndTheBaseModelComesBackExactly() async throws {
            let runtime = try await makeRuntime(load: false)
            let file = try Self.adapter()
            let base = try await Batching.answer(runtime, Self.prompt, Self.options(nil), load: Self.load)
            let adapted = try await Batching.answer(runtime, Self.prompt, Self.options([LoRAAdapter(path: file.path)]), load: Self.load)
            #expect(!adapted.text.isEmpty && adapted.text != base.text, "the adapter changed nothing: \(base.text)")
            // The base model's memory of the prompt was not reused for it: the answer is the adapter's own.
            var uncached = Self.options([LoRAAdapter(path: file.path)])
            uncached.reusePromptCache = false
            let fresh = try await Batching.answer(runtime, Self.prompt, uncached, load: Self.load)
            #expect(adapted.text == fresh.text, "\(adapted.text) vs \(fresh.text)")
            // The sequence's memory now holds the prompt as the adapter computed it: not reused.
            let again = try await Batching.answer(runtime, Self.prompt, Self.options([]), load: Self.load)
            #expect(again.text == base.text, "\(again.text) vs \(base.text)")
            let unscaled = try await Batching.answer(
                runtime, Self.prompt, Self.options([LoRAAdapter(path: file.path, scale: 0)]), load: Self.load)
            #expect(unscaled.text == base.text, "\(unscaled.text) vs \(base.text)")
            let readded = try await Batching.answer(runtime, Self.prompt, Self.options([LoRAAdapter(path: file.path)]), load: Self.load)
            #expect(readded.text == adapted.text, "\(readded.text) vs \(adapted.text)")
        }

        /// A server's adapters (the runtime's defaults) apply to a request that chooses none,
        /// those made for another architecture left out; a request's own choice, even none,
        /// replaces them.
        /// An adapter for a llama of another width than the default model's.
        static func narrowAdapter() throws -> URL {
            let narrow = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-lora-narrow-\(UUID()).gguf")
            try GGUFWriter.loraFixture(embedding: 64, values: 64, layers: 2).write(to: narrow)
            return narrow
        }

        @Test func defaultAdaptersApplyWhereTheyFit() async throws {
            let runtime = try await makeRuntime(load: false)
            let (file, other) = (try Self.adapter(), try Self.adapter(architecture: "qwen2"))
            let adapted = try await Batching.answer(runtime, Self.prompt, Self.options([LoRAAdapter(path: file.path)]), load: Self.load)
            let base = try await Batching.answer(runtime, Self.prompt, Self.options([]), load: Self.load)
            // One for another architecture, one for another size of this one: left out, not failed.
            let narrow = try Self.narrowAdapter()
            runtime.defaultLoRAAdapters.withLock {
                $0 = [LoRAAdapter(path: other.path), LoRAAdapter(path: narrow.path), LoRAAdapter(path: file.path)]
            }
            defer { runtime.defaultLoRAAdapters.withLock { $0 = [] } }
            let defaulted = try await Batching.answer(runtime, Self.prompt, Self.options(nil), load: Self.load)
            #expect(defaulted.text == adapted.text, "\(defaulted.text) vs \(adapted.text)")
            let chosen = try await Batching.answer(runtime, Self.prompt, Self.options([]), load: Self.load)
            #expect(chosen.text == base.text, "\(chosen.text) vs \(base.text)")
        }

        /// A model made with an adapter (a Modelfile's `ADAPTER`) keeps its own copy and applies
        /// it to every request that chooses none: the same answer as asking for that file; a
        /// request's own choice of none is the base model's answer.
        @Test func aModelMadeWithAnAdapterAppliesItToRequestsThatChooseNone() async throws {
            let models = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-models-\(UUID())")
            defer { try? FileManager.default.removeItem(at: models) }
            let runtime = try await makeRuntime(load: false, models: models)
            let file = try Self.adapter()
            try runtime.registerModel(id: "base", name: "base", url: try #require(TestEnvironment.defaultModelFile), framework: .llamaCpp)
            let tuned = try runtime.copyModel("base", to: "tuned", adapters: [file])
            let kept = try #require(runtime.ownLoRAAdapters(of: tuned)?.first)
            #expect(kept.path.hasPrefix(models.path) && FileManager.default.contentsEqual(atPath: kept.path, andPath: file.path))
            func answer(_ adapters: [LoRAAdapter]?) async throws -> String {
                let generation = try await runtime.generateStream(
                    Self.prompt, context: nil, options: Self.options(adapters), model: "tuned", loadOptions: Self.load)
                for try await _ in generation.stream {}
                return try await generation.result.value.text
            }
            let (own, chosen, none) = (try await answer(nil), try await answer([LoRAAdapter(path: file.path)]), try await answer([]))
            #expect(own == chosen && own != none, "own: \(own), chosen: \(chosen), none: \(none)")
        }

        /// An adapter file rewritten in place is loaded again: the answer is the new file's.
        @Test func aRewrittenAdapterFileIsLoadedAgain() async throws {
            let runtime = try await makeRuntime(load: false)
            let (file, other) = (try Self.adapter(seed: 1), try Self.adapter(seed: 2))
            let second = try await Batching.answer(runtime, Self.prompt, Self.options([LoRAAdapter(path: other.path)]), load: Self.load)
            let first = try await Batching.answer(runtime, Self.prompt, Self.options([LoRAAdapter(path: file.path)]), load: Self.load)
            #expect(first.text != second.text, "the two adapters answer alike: \(first.text)")
            try FileManager.default.removeItem(at: file)
            try FileManager.default.copyItem(at: other, to: file)
            let rewritten = try await Batching.answer(runtime, Self.prompt, Self.options([LoRAAdapter(path: file.path)]), load: Self.load)
            #expect(rewritten.text == second.text, "\(rewritten.text) vs \(second.text)")
        }

        /// The adapters a request applies stay loaded while it runs; of those no request uses,
        /// only the ones used last are kept, the others freed.
        @Test func idleAdaptersBeyondThoseKeptAreFreed() async throws {
            let llama = try await StructuredOutput.llama.value
            let cache = LoRAAdapterCache(library: llama.library, model: llama.model)
            let files = try (1...(LoRAAdapterCache.idleKept + 3)).map { try Self.adapter(seed: UInt64($0)) }
            let busy = try cache.pin([LoRAAdapter(path: files[0].path)])
            for file in files.dropFirst() { cache.unpin(try cache.pin([LoRAAdapter(path: file.path, scale: 0.5)])) }
            #expect(cache.count == files.count)
            let taken = cache.takeIdle()
            cache.free(taken)
            #expect(taken.count == 2 && cache.count == LoRAAdapterCache.idleKept + 1)
            #expect(taken[busy[0].identity] == nil, "a pinned adapter is kept")
            // The two used first went; pinned again, they are loaded again.
            let again = try cache.pin([LoRAAdapter(path: files[1].path), LoRAAdapter(path: files[2].path)])
            #expect(cache.pointers(again).allSatisfy { $0 != nil } && cache.count == files.count)
            cache.unpin(again)
            cache.unpin(busy)
            await expectSDKError(.modelIncompatible, ["could not apply the LoRA adapter"]) {
                let narrow = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-lora-narrow-\(UUID()).gguf")
                try GGUFWriter.loraFixture(embedding: 64, values: 64, layers: 2).write(to: narrow)
                _ = try cache.pin([LoRAAdapter(path: files[3].path), LoRAAdapter(path: narrow.path)])
            }
            let rest = cache.takeIdle()
            cache.free(rest)
            #expect(rest.count == files.count - LoRAAdapterCache.idleKept, "a failed pin leaves nothing pinned")
        }

        /// Two adapters and none at once on one loaded model: the scheduler takes each set in
        /// turn, and every request answers as it does alone.
        @Test func requestsWithDifferentAdaptersShareTheModelAndKeepTheirLoneAnswers() async throws {
            let runtime = try await makeRuntime(load: false)
            let (first, second) = (try Self.adapter(seed: 1), try Self.adapter(seed: 2))
            let sets: [[LoRAAdapter]?] = [nil, [LoRAAdapter(path: first.path)], [LoRAAdapter(path: second.path, scale: 0.5)], nil]
            var alone: [String] = []
            for adapters in sets {
                alone.append(try await Batching.answer(runtime, Self.prompt, Self.options(adapters), load: Self.load).text)
            }
            let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, adapters) in sets.enumerated() {
                    group.addTask { (index, try await Batching.answer(runtime, Self.prompt, Self.options(adapters), load: Self.load).text) }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            for index in sets.indices {
                #expect(together[index] == alone[index], "request \(index): \(together[index] ?? "none") vs \(alone[index])")
            }
            #expect(Set(alone).count >= 2, "no adapter changed the answer: \(alone)")
            #expect(await runtime.loadedModels().count == 1)
        }

        @Test func adaptersThatDoNotFitAreRefusedClearly() async throws {
            let runtime = try await makeRuntime(load: false)
            let model = try #require(TestEnvironment.defaultModelFile)
            let answer = { (adapters: [LoRAAdapter]) in
                _ = try await Batching.answer(runtime, Self.prompt, Self.options(adapters), load: Self.load)
            }
            await expectSDKError(.fileNotFound, ["No LoRA adapter file at /nowhere/adapter.gguf"]) {
                try await answer([LoRAAdapter(path: "/nowhere/adapter.gguf")])
            }
            await expectSDKError(.modelIncompatible, ["was made for qwen2", "is llama"]) {
                try await answer([LoRAAdapter(path: try Self.adapter(architecture: "qwen2").path)])
            }
            await expectSDKError(.modelIncompatible, ["not a LoRA adapter"]) { try await answer([LoRAAdapter(path: model.path)]) }
            // The right architecture, the wrong width: llama.cpp's check of the tensors, made before the engine.
            let narrow = try Self.narrowAdapter()
            await expectSDKError(.modelIncompatible, ["does not fit", "in the model, 64×64 in the adapter", narrow.path]) {
                try await answer([LoRAAdapter(path: narrow.path)])
            }
            let file = try Self.adapter()
            await expectSDKError(.invalidInput, ["is given twice"]) {
                try await answer([LoRAAdapter(path: file.path), LoRAAdapter(path: file.path)])
            }
            await expectSDKError(.invalidInput, ["not a finite number"]) { try await answer([LoRAAdapter(path: file.path, scale: .nan)]) }
            // The model serves on after every refusal.
            #expect(!(try await Batching.answer(runtime, Self.prompt, Self.options(nil), load: Self.load).text.isEmpty))
        }
    }
}
