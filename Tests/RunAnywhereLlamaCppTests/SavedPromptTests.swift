import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereLlamaCpp

/// Long prompts' states saved to disk (``SavedPrompts``) and restored by a new runtime, as after a
/// restart, on the batch-invariant context, where a restored state must answer exactly as a fresh
/// model does; damaged, foreign and surplus files are never used.
extension LlamaTests {
    @Suite struct SavedPromptStates {
        static func load(_ folder: URL, maxBytes: Int64 = 1 << 30) -> ModelLoadOptions {
            var load = BatchInvariance.load
            load.savedPrompts = SavedPrompts(directory: folder, maxBytes: maxBytes, minTokens: 64)
            return load
        }

        /// A first run with the long prompt, its state saved when the model unloads at the latest.
        static func firstRun(_ folder: URL, prompt: String = longPrompt, maxBytes: Int64 = 1 << 30) async throws -> LLMGenerationResult {
            let runtime = try await makeRuntime(load: false)
            let result = try await Batching.answer(runtime, prompt, greedy(8, raw: true), load: load(folder, maxBytes: maxBytes))
            await runtime.unloadAllModels()
            return result
        }

        static func states(in folder: URL) -> [URL] {
            let paths = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
            return paths.filter { $0.hasSuffix(".state") }.map { folder.appendingPathComponent($0) }
        }

        @Test func aPromptSavedBeforeARestartIsRestoredAndAnswersAsAFreshModelDoes() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let first = try await Self.firstRun(folder)
            #expect(Self.states(in: folder).count == 1)
            let second = longPrompt + first.text + "\nOne more fact:"
            let restored = try await Batching.answer(
                try await makeRuntime(load: false), second, greedy(8, raw: true), load: Self.load(folder))
            #expect(
                restored.cachedInputTokens >= first.inputTokens,
                "\(restored.cachedInputTokens) restored of \(first.inputTokens) + the answer")
            let fresh = try await Batching.answer(
                try await makeRuntime(load: false), second, greedy(8, raw: true), load: BatchInvariance.load)
            #expect(fresh.cachedInputTokens == 0 && restored.text == fresh.text, "restored \(restored.text), fresh \(fresh.text)")
        }

        /// A request that does not reuse cached prompts (`cache_prompt: false`) leaves nothing on
        /// disk: a client's way to keep one prompt out of the saved states.
        @Test func aRequestThatReusesNoCacheIsNotSaved() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let runtime = try await makeRuntime(load: false)
            var options = greedy(8, raw: true)
            options.reusePromptCache = false
            _ = try await Batching.answer(runtime, longPrompt, options, load: Self.load(folder))
            await runtime.unloadAllModels()
            #expect(Self.states(in: folder).isEmpty)
        }

        @Test func damagedForeignAndStrayFilesAreIgnoredAndDeleted() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            _ = try await Self.firstRun(folder)
            let saved = try #require(Self.states(in: folder).first)
            // One byte of the state changed: its checksum no longer matches.
            var bytes = try Data(contentsOf: saved)
            bytes[bytes.count - 10] ^= 0xFF
            try bytes.write(to: saved)
            // A stray file where the states are, and one that is not a state at all.
            let stray = saved.deletingLastPathComponent().appendingPathComponent("stray.state")
            try Data("RASTATE1".utf8 + [4, 0, 0, 0] + Array("{}{}".utf8)).write(to: stray)
            let noise = saved.deletingLastPathComponent().appendingPathComponent("noise.state")
            try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: noise)
            let again = try await Batching.answer(
                try await makeRuntime(load: false), longPrompt, greedy(8, raw: true), load: Self.load(folder))
            #expect(again.cachedInputTokens == 0, "a damaged state was used")
            #expect(!FileManager.default.fileExists(atPath: stray.path) && !FileManager.default.fileExists(atPath: noise.path))
            #expect((try? Data(contentsOf: saved)) != bytes, "the damaged state is still there")
            let fresh = try await Batching.answer(
                try await makeRuntime(load: false), longPrompt, greedy(8, raw: true), load: BatchInvariance.load)
            #expect(again.text == fresh.text)
        }

        /// A whole file with a true checksum whose state llama.cpp refuses (half of it): the
        /// sequence it was being restored into, which held the start of the prompt, starts
        /// again from nothing.
        @Test func aStateLlamaCppRefusesLeavesTheRequestToReadItsPrompt() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            _ = try await Self.firstRun(folder)
            let saved = try #require(Self.states(in: folder).first)
            let (header, state) = try PromptStateStore.parse(try Data(contentsOf: saved))
            try PromptStateStore.file(key: header.key, tokens: header.tokens, state: state.prefix(state.count / 2)).write(to: saved)
            let runtime = try await makeRuntime(load: false)
            _ = try await Batching.answer(runtime, String(longPrompt.prefix(60)), greedy(2, raw: true), load: Self.load(folder))
            let again = try await Batching.answer(runtime, longPrompt, greedy(8, raw: true), load: Self.load(folder))
            let fresh = try await Batching.answer(
                try await makeRuntime(load: false), longPrompt, greedy(8, raw: true), load: BatchInvariance.load)
            #expect(
                again.cachedInputTokens == 0 && again.text == fresh.text,
                "\(again.cachedInputTokens) cached: \(again.text) vs \(fresh.text)")
        }

        /// A chat continued by another process restores the conversation so far instead of
        /// reading it again.
        @Test func aConversationResumedAfterARestartDoesNotReadItsHistoryAgain() async throws {
            let (folder, states) = (try TestEnvironment.temporaryDirectory(), try TestEnvironment.temporaryDirectory())
            defer { [folder, states].forEach { try? FileManager.default.removeItem(at: $0) } }
            let first = try await makeRuntime(options: Self.load(states))
            let before = ChatService(runtime: first, store: ConversationStore(dataDirectory: folder), settings: .greedy(12))
            _ = try await before.send(longPrompt).message.value
            let id = await before.conversation.id
            await first.unloadAllModels()

            let restarted = try await makeRuntime(options: Self.load(states))
            var events = restarted.events.subscribe().makeAsyncIterator()
            let store = ConversationStore(dataDirectory: folder)
            let after = ChatService(runtime: restarted, store: store, settings: .greedy(4), conversation: try store.load(id: id))
            _ = try await after.send("Which of these facts is the strangest?").message.value
            var result: LLMGenerationResult?
            while result == nil, let event = await events.next() {
                if case .generationCompleted(let completed) = event { result = completed }
            }
            let resumed = try #require(result)
            #expect(resumed.cachedInputTokens > resumed.inputTokens / 2, "\(resumed.cachedInputTokens) of \(resumed.inputTokens) restored")
        }

        @Test func beyondTheLimitTheLeastRecentlyUsedStateGoes() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            _ = try await Self.firstRun(folder)
            let first = try #require(Self.states(in: folder).first)
            let size = try #require(try first.resourceValues(forKeys: [.fileSizeKey]).fileSize)
            let other = "A different text entirely. " + String(repeating: "Dogs bark at the postman every morning. ", count: 12)
            _ = try await Self.firstRun(folder, prompt: other, maxBytes: Int64(size) * 3 / 2)
            let left = Self.states(in: folder)
            #expect(left.count == 1 && left.first != first, "\(left.map(\.lastPathComponent))")
        }
    }
}
