import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereLlamaCpp

/// Speculative decoding by prompt lookup on the real default model: guesses are kept only where
/// they are the tokens the request draws, so on the batch-invariant context (where a token's
/// numbers do not depend on the decode call it is in) an answer is token for token the one
/// without speculation, greedy or seeded, alone or among other speculating streams.
extension LlamaTests {
    @Suite struct Speculation {
        static let load = BatchInvariance.load
        /// A task that repeats its input, where guesses from the prompt are right.
        static let copy = """
            Copy this sentence exactly, word for word: "The little grey cat sat on the warm stone wall and watched the \
            boats come home across the quiet harbour."
            """

        static func answer(_ runtime: RunAnywhereRuntime, _ prompt: String, _ options: LLMGenerationOptions, _ speculation: LLMSpeculation)
            async throws -> LLMGenerationResult
        {
            var options = options
            options.speculation = speculation
            return try await Batching.answer(runtime, prompt, options, load: load)
        }

        @Test func greedyAndSeededAnswersAreTheSameWithGuessesAndACopyGuesses() async throws {
            let runtime = try await makeRuntime(load: false)
            for (prompt, options) in [(Self.copy, greedy(40)), (longPrompt, greedy(40)), (Self.copy, Batching.sampled(seed: 7))] {
                let plain = try await Self.answer(runtime, prompt, options, .off)
                let guessed = try await Self.answer(runtime, prompt, options, .promptLookup(maxDraftTokens: 8))
                #expect(plain.draftTokens == nil && !plain.text.isEmpty)
                #expect(guessed.text == plain.text && guessed.tokensUsed == plain.tokensUsed, "\(guessed.text) vs \(plain.text)")
                let drafted = try #require(guessed.draftTokens)
                let kept = try #require(guessed.acceptedDraftTokens)
                #expect(kept <= drafted)
                // The first size of call not measured yet is tried whatever it costs, so a copy guesses.
                if options.temperature == 0, prompt == Self.copy { #expect(drafted > 0, "a copy guessed nothing: \(guessed.text)") }
            }
        }

        @Test func speculatingStreamsShareTheBatchAndKeepTheirLoneAnswers() async throws {
            let runtime = try await makeRuntime(load: false)
            let requests: [(String, LLMGenerationOptions)] = [
                (Self.copy, greedy(32)), (longPrompt, greedy(32)), (Self.copy, Batching.sampled(seed: 3)), ("Count to ten.", greedy(32)),
            ]
            var alone: [String] = []
            for (prompt, options) in requests { alone.append(try await Self.answer(runtime, prompt, options, .off).text) }
            let together = try await withThrowingTaskGroup(of: (Int, LLMGenerationResult).self) { group in
                for (index, (prompt, options)) in requests.enumerated() {
                    group.addTask { (index, try await Self.answer(runtime, prompt, options, .promptLookup(maxDraftTokens: 6))) }
                }
                return try await group.reduce(into: [Int: LLMGenerationResult]()) { $0[$1.0] = $1.1 }
            }
            for index in requests.indices {
                let result = try #require(together[index])
                #expect(result.text == alone[index], "request \(index) answered \(result.text), alone \(alone[index])")
                #expect(result.draftTokens != nil)
            }
        }

        /// Guesses go through the request's grammar like drawn tokens: a JSON answer copied from
        /// the prompt is the same with them, and valid.
        @Test func aConstrainedAnswerIsTheSameWithGuesses() async throws {
            let runtime = try await makeRuntime(load: false)
            var options = greedy(40)
            options.structuredOutput = .jsonObject
            let prompt = #"Repeat this JSON object exactly: {"city": "Paris", "country": "France", "population": 2100000}"#
            let plain = try await Self.answer(runtime, prompt, options, .off)
            let guessed = try await Self.answer(runtime, prompt, options, .promptLookup(maxDraftTokens: 8))
            #expect(guessed.text == plain.text, "\(guessed.text) vs \(plain.text)")
            #expect((try? JSONSerialization.jsonObject(with: Data(guessed.text.utf8))) is [String: Any] || plain.stopReason == .length)
            #expect(guessed.draftTokens != nil)
        }

        /// A speculating stream cancelled part way ends as cancelled, and the sequence's memory
        /// (guesses forgotten as they are refused) serves the next request: it answers as a fresh
        /// model does.
        @Test func aCancelledSpeculatingStreamLeavesTheSequenceUsable() async throws {
            let runtime = try await makeRuntime(load: false)
            var options = greedy(64)
            options.speculation = .promptLookup(maxDraftTokens: 8)
            let streaming = try await Batching.start(runtime, Self.copy, options, load: Self.load)
            let cancelled = try await cancelConsumer(of: streaming, after: 3)
            #expect(cancelled.stopReason == .cancelled)
            let after = try await Self.answer(runtime, Self.copy, greedy(24), .promptLookup(maxDraftTokens: 8))
            let fresh = try await Self.answer(try await makeRuntime(load: false), Self.copy, greedy(24), .off)
            #expect(after.text == fresh.text, "after a cancelled stream: \(after.text); fresh: \(fresh.text)")
        }

        /// A request that decodes alone to keep its reproducibility promise (the context is not
        /// batch-invariant without flash attention) does not speculate: larger decode calls
        /// would change its numbers.
        @Test func aRequestDecodingAloneDoesNotSpeculate() async throws {
            let runtime = try await makeRuntime()
            var options = greedy(8)
            options.speculation = .promptLookup()
            let result = try await runtime.generate(Self.copy, options: options)
            #expect(result.draftTokens == nil && result.tokensUsed > 0)
        }

        /// No second model of the default's family can be installed here (set-up reaches PyPI
        /// and Debian only), so the default model drafts for itself: the real draft path, whose
        /// greedy guesses the model mostly keeps.
        static func selfDraft(_ runtime: RunAnywhereRuntime) throws -> String {
            try #require(try runtime.model(id: RunAnywhere.defaultModelID).primaryFile).path
        }

        /// A draft's guess and its confidence: the row's first largest entry and its softmax.
        @Test func aDraftsGuessIsTheLikeliestTokenWithItsProbability() {
            var generator = SystemRandomNumberGenerator()
            var row = (0..<49_157).map { _ in Float.random(in: -20...20, using: &generator) }
            row[7] = 31
            row[40_000] = 31
            let (token, confidence) = row.withUnsafeBufferPointer { DraftModel.best($0) }
            let total = row.reduce(0.0) { $0 + exp(Double($1) - 31) }
            #expect(token == 7 && abs(Double(confidence) - 1 / total) < 1e-6, "\(token) \(confidence) \(1 / total)")
            #expect(DraftModel.best(UnsafeBufferPointer(start: nil, count: 0)) == (0, 0))
        }

        @Test func aDraftModelGivesTheSameAnswersGreedyAndSeeded() async throws {
            let runtime = try await makeRuntime(load: false)
            for (prompt, options) in [(longPrompt, greedy(32)), (Self.copy, Batching.sampled(seed: 11))] {
                let plain = try await Self.answer(runtime, prompt, options, .off)
                let drafted = try await Self.answer(
                    runtime, prompt, options, .draftModel(model: RunAnywhere.defaultModelID, maxDraftTokens: 6))
                #expect(drafted.text == plain.text && drafted.tokensUsed == plain.tokensUsed, "\(drafted.text) vs \(plain.text)")
                let guessed = try #require(drafted.draftTokens)
                let kept = try #require(drafted.acceptedDraftTokens)
                #expect(kept <= guessed)
                // The model agrees with itself wherever it guesses at all.
                if options.temperature == 0 { #expect(guessed > 0 && kept == guessed, "guessed \(guessed), kept \(kept)") }
            }
        }

        @Test func streamsDraftingTogetherKeepTheirLoneAnswers() async throws {
            let runtime = try await makeRuntime(load: false)
            let requests: [(String, LLMGenerationOptions)] = [
                (Self.copy, greedy(24)), (longPrompt, greedy(24)), ("Count to ten.", Batching.sampled(seed: 5)),
            ]
            let draft = try Self.selfDraft(runtime)
            var alone: [String] = []
            for (prompt, options) in requests { alone.append(try await Self.answer(runtime, prompt, options, .off).text) }
            let together = try await withThrowingTaskGroup(of: (Int, LLMGenerationResult).self) { group in
                for (index, (prompt, options)) in requests.enumerated() {
                    group.addTask { (index, try await Self.answer(runtime, prompt, options, .draftModel(model: draft, maxDraftTokens: 4))) }
                }
                return try await group.reduce(into: [Int: LLMGenerationResult]()) { $0[$1.0] = $1.1 }
            }
            for index in requests.indices {
                let result = try #require(together[index])
                #expect(result.text == alone[index], "request \(index) answered \(result.text), alone \(alone[index])")
                #expect(result.draftTokens != nil)
            }
        }

        /// A draft whose vocabulary is not the model's, or that is no language model, is refused
        /// with what is wrong, per request and as a load's default; the model still answers.
        @Test func draftsThatCannotDraftAreRefusedClearly() async throws {
            let runtime = try await makeRuntime(load: false)
            let fixture = TestEnvironment.installedModelsDirectory.appendingPathComponent("smolvlm-fixture/SmolVLM-fixture.gguf").path
            let cases: [(String, ErrorCode, String)] = [
                (fixture, .modelIncompatible, "vocabulary differs"),
                (SDKConstants.Models.defaultSpeechRecognitionModelID, .modelIncompatible, "a draft is a GGUF language model"),
                ("no-such-draft", .modelNotFound, "no model has that id"),
            ]
            for (draft, code, words) in cases {
                await expectSDKError(code, [words]) {
                    _ = try await Self.answer(runtime, Self.copy, greedy(4), .draftModel(model: draft))
                }
            }
            var load = Self.load
            load.speculation = .draftModel(model: fixture, maxDraftTokens: 4)
            let unloaded = try await makeRuntime(load: false)
            await expectSDKError(.modelIncompatible, ["vocabulary differs"]) {
                _ = try await Batching.answer(unloaded, Self.copy, greedy(4), load: load)
            }
            await expectSDKError(.fileNotFound, ["No draft model file"]) {
                _ = try await Self.answer(runtime, Self.copy, greedy(4), .draftModel(model: "/nowhere/draft.gguf"))
            }
            #expect(try await Self.answer(runtime, Self.copy, greedy(4), .off).tokensUsed > 0)
        }

        /// A model loaded with a draft by default speculates with it, and a server's default
        /// (``RunAnywhereRuntime/defaultDraftModels``) applies to the model it names.
        @Test func aDefaultDraftModelApplies() async throws {
            let runtime = try await makeRuntime(load: false)
            var load = Self.load
            load.speculation = .draftModel(model: try Self.selfDraft(runtime), maxDraftTokens: 4)
            let loaded = try await Batching.answer(runtime, longPrompt, greedy(12), load: load)
            #expect((loaded.draftTokens ?? 0) > 0)
            let served = try await makeRuntime(load: false)
            served.defaultDraftModels.withLock { $0[RunAnywhere.defaultModelID] = RunAnywhere.defaultModelID }
            let result = try await Batching.answer(served, longPrompt, greedy(12), load: Self.load)
            #expect((result.draftTokens ?? 0) > 0)
            #expect(result.text == loaded.text)
        }

        /// A draft model loaded for requests counts in its model's memory (the budget's and
        /// `loadedModels()`'), in this process and in an engine process alike.
        @Test func aDraftModelCountsInItsModelsMemory() async throws {
            let workers = EngineWorkers.runtime()
            workers.frameworks.register(LlamaCppAdapter())
            for runtime in [try await makeRuntime(load: false), workers] {
                _ = try await Self.answer(runtime, Self.copy, greedy(2), .off)
                let before = try #require(await runtime.loadedModels().first?.memoryBytes)
                _ = try await Self.answer(runtime, Self.copy, greedy(2), .draftModel(model: RunAnywhere.defaultModelID))
                let after = try #require(await runtime.loadedModels().first?.memoryBytes)
                let size = try #require(FileIdentity(path: try Self.selfDraft(runtime))).size
                #expect(after - before >= size, "\(before) bytes before the draft, \(after) after; its file has \(size)")
                await runtime.unloadAllModels()
            }
        }

        @Test func aModelsDefaultSpeculationAppliesAndBadDraftLengthsAreRefused() async throws {
            var load = Self.load
            load.speculation = .promptLookup(maxDraftTokens: 4)
            let runtime = try await makeRuntime(load: false)
            let result = try await Batching.answer(runtime, Self.copy, greedy(16), load: load)
            #expect(result.draftTokens != nil)
            for count in [0, LLMSpeculation.maxDraftTokens + 1] {
                var options = greedy(4)
                options.speculation = .promptLookup(maxDraftTokens: count)
                await #expect(throws: SDKError.self) { try await Batching.answer(runtime, Self.copy, options, load: load) }
                var bad = Self.load
                bad.speculation = .promptLookup(maxDraftTokens: count)
                #expect(throws: SDKError.self) { try bad.validate() }
            }
        }
    }
}

/// The drafter alone, on made-up token sequences.
@Suite struct PromptLookupTests {
    @Test func theLatestOccurrenceOfTheLongestRecurringTailIsContinued() {
        // Tail [7, 8] recurs at 1 and 5; the latest, at 5, continues with 9, 1.
        #expect(PromptLookup.draft(after: [0, 7, 8, 2, 3, 7, 8, 9, 1, 7, 8], count: 3) == [9, 1, 7])
        // The 3-gram [2, 7, 8] beats the later 2-gram [7, 8].
        #expect(PromptLookup.draft(after: [2, 7, 8, 5, 6, 7, 8, 4, 2, 7, 8], count: 3) == [5, 6, 7])
        #expect(PromptLookup.draft(after: [1, 2, 3, 4, 5], count: 8).isEmpty, "nothing recurs")
        #expect(PromptLookup.draft(after: [1, 2, 9, 1, 2], count: 1) == [9], "the count bounds the guess")
        #expect(PromptLookup.draft(after: [1, 2, 9, 1, 2], count: 8) == [9, 1, 2], "a continuation ends with the history")
        #expect(PromptLookup.draft(after: [1, 2, 9, 1, 2], count: 0).isEmpty)
        #expect(PromptLookup.draft(after: [4, 1, 5, 1], count: 8).isEmpty, "one recurring token is no clue")
    }
}

/// The speculation cost model on made-up timings.
@Suite struct DecodeCostTests {
    @Test func sizesNeverMeasuredLookCheapSoTheyGetTried() {
        var cost = DecodeCost(capacity: 64)
        #expect(cost.estimate(rows: 1) == nil)
        #expect(cost.guesses(available: 8, rows: 1, tokens: 1, kept: 0.1) == 8, "before any call, every guess is tried")
        cost.record(rows: 9, seconds: 0.030)
        #expect(cost.estimate(rows: 3) == 0.010, "below the smallest measured, in proportion")
        cost.record(rows: 1, seconds: 0.005)
        #expect(abs((cost.estimate(rows: 5) ?? 0) - 0.0175) < 1e-9, "between two measured sizes, interpolated")
        #expect(cost.estimate(rows: 20) == 0.030, "above the largest, as long as it")
    }

    @Test func guessesAreAddedOnlyWhereTheyPay() throws {
        // A few CPU cores: every further row costs 60% of what the first does.
        var cpu = DecodeCost(capacity: 64)
        for rows in 1...9 { cpu.record(rows: rows, seconds: 0.005 + 0.003 * Double(rows - 1)) }
        #expect(cpu.guesses(available: 8, rows: 1, tokens: 1, kept: 0.5) == 0)
        #expect(cpu.guesses(available: 8, rows: 1, tokens: 1, kept: 0.99) > 0)
        // A GPU: a few more rows cost almost nothing.
        var gpu = DecodeCost(capacity: 64)
        for rows in 1...9 { gpu.record(rows: rows, seconds: 0.005 + 0.0001 * Double(rows)) }
        #expect(gpu.guesses(available: 8, rows: 1, tokens: 1, kept: 0.5) >= 4)
        #expect(gpu.guesses(available: 0, rows: 1, tokens: 1, kept: 0.9) == 0)
        // Averages move towards new measurements.
        gpu.record(rows: 2, seconds: 1)
        #expect(try #require(gpu.estimate(rows: 2)) > 0.1)
    }
}
