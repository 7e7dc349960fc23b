import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Filling in the middle on the fixture scripts/setup --tests writes (SmolLM2's tokenizer with
/// Qwen2.5-Coder's fill-in-the-middle tokens, random weights: what it writes in the gap is
/// noise, so these tests check the prompt it reads, token by token, through its log-probabilities).
extension LlamaTests {
    @Suite(.enabled(if: TestEnvironment.infillFixture != nil, "needs the fill-in-the-middle fixture: run scripts/setup --tests"))
    struct FillInTheMiddle {
        static let fixtureID = SDKConstants.Models.infillFixtureID

        /// The ids the runtime reads for `gap` on `runtime`, and the result (the first id, which
        /// nothing predicts, has no log-probability: it is the prompt's first).
        static func read(_ gap: Infill, on runtime: RunAnywhereRuntime, maxTokens: Int = 3) async throws
            -> (ids: [Int32], result: LLMGenerationResult)
        {
            var options = greedy(maxTokens, raw: true)
            options.promptLogprobs = 0
            let (_, result) = try await Logprobs.run(
                try await runtime.generateEvents(infill: gap, options: options, model: fixtureID, loadOptions: testLoadOptions))
            return (try #require(result.promptLogprobs).map(\.id), result)
        }

        /// The fixture's token for a special token's text, read from its vocabulary.
        static func mark(_ text: String, on runtime: RunAnywhereRuntime) async throws -> Int32 {
            let tokens = try await runtime.tokenize(
                text, model: fixtureID, addSpecial: false, parseSpecial: true, loadOptions: testLoadOptions)
            return try #require(tokens.count == 1 ? tokens.first : nil, "\(text) is one token")
        }

        static func plain(_ text: String, on runtime: RunAnywhereRuntime) async throws -> [Int32] {
            try await runtime.tokenize(text, model: fixtureID, addSpecial: false, parseSpecial: false, loadOptions: testLoadOptions)
        }

        /// The gap is read as `<|fim_prefix|>prefix<|fim_suffix|>suffix<|fim_middle|>` in the
        /// model's own tokens (special-token text in the code read as text), with the project's
        /// files before it under `<|repo_name|>` and `<|file_sep|>`; an engine worker reads the
        /// same; a model not trained for it is refused.
        @Test func aGapIsReadInTheModelsOwnFormat() async throws {
            let runtime = try await makeRuntime(load: false)
            let (pre, suf, mid) = (
                try await Self.mark("<|fim_prefix|>", on: runtime), try await Self.mark("<|fim_suffix|>", on: runtime),
                try await Self.mark("<|fim_middle|>", on: runtime)
            )
            let (rep, sep) = (try await Self.mark("<|repo_name|>", on: runtime), try await Self.mark("<|file_sep|>", on: runtime))
            let prefix = "def area(r):\n    return "
            let suffix = "\n\nprint(area(2))  # <|fim_middle|> stays text\n"
            let gap = Infill(prefix: prefix, suffix: suffix)
            let (ids, result) = try await Self.read(gap, on: runtime)
            let expected = [pre] + (try await Self.plain(prefix, on: runtime)) + [suf] + (try await Self.plain(suffix, on: runtime)) + [mid]
            #expect([pre] + ids == expected && result.inputTokens == expected.count, "\(ids)")
            #expect(result.tokensUsed > 0 && result.tokensUsed <= 3 && result.modelUsed == Self.fixtureID)

            let project = Infill(
                prefix: prefix, suffix: suffix, files: [.init(path: "geometry/constants.py", text: "PI = 3.14159\n")],
                path: "geometry/area.py", repository: "geometry")
            let (withFiles, _) = try await Self.read(project, on: runtime)
            let header =
                [rep] + (try await Self.plain("geometry\n", on: runtime)) + [sep]
                + (try await Self.plain("geometry/constants.py\nPI = 3.14159\n", on: runtime)) + [sep]
                + (try await Self.plain("geometry/area.py\n", on: runtime))
            #expect([rep] + withFiles == header + expected, "\(withFiles)")

            let isolated = EngineProcess.isolatedRuntime()
            var options = greedy(3, raw: true)
            options.promptLogprobs = 0
            let (_, remote) = try await Logprobs.run(
                try await isolated.generateEvents(infill: project, options: options, model: Self.fixtureID, loadOptions: testLoadOptions))
            await isolated.unloadAllModels()
            #expect(remote.promptLogprobs?.map(\.id) == withFiles, "an engine worker tells the runtime the model's marks")

            let error = await #expect(throws: SDKError.self) {
                try await runtime.generateEvents(
                    infill: gap, options: greedy(3), model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions)
            }
            #expect(error?.code == .modelIncompatible && error?.message.contains("fill in the middle") == true)
            await runtime.unloadAllModels()
        }

        /// A prefix and suffix longer than the context keep the prefix's end and the suffix's
        /// start, leaving the answer its room; a file that does not fit is left out first.
        @Test func aLongGapKeepsWhatIsNearTheCursor() async throws {
            let runtime = try await makeRuntime(load: false)
            let line = "value = compute(value) + 1\n"
            let prefix = String(repeating: line, count: 200) + "# CURSOR"
            let suffix = "# AFTER\n" + String(repeating: line, count: 200)
            let gap = Infill(prefix: prefix, suffix: suffix, files: [.init(path: "big.py", text: String(repeating: line, count: 10))])
            let (ids, result) = try await Self.read(gap, on: runtime, maxTokens: 8)
            let context = try #require(testLoadOptions.contextLength)
            #expect(result.inputTokens <= context - 8 && result.inputTokens > context / 2, "\(result.inputTokens)")
            let text = try await runtime.detokenize([try await Self.mark("<|repo_name|>", on: runtime)] + ids, model: Self.fixtureID)
            let header = "<|repo_name|>myproject\n<|file_sep|>filename\n<|fim_prefix|>"
            #expect(text.hasPrefix(header) && !text.contains("big.py"), "the file went first: \(text.prefix(80))")
            let parts = text.dropFirst(header.count).components(separatedBy: "<|fim_suffix|>")
            let (before, after) = (parts[0], String(parts[1].dropLast("<|fim_middle|>".count)))
            #expect(parts.count == 2 && text.hasSuffix("<|fim_middle|>"))
            #expect(prefix.hasSuffix(before) && before.hasSuffix("# CURSOR") && before.count < prefix.count, "the prefix's end")
            #expect(suffix.hasPrefix(after) && after.hasPrefix("# AFTER") && after.count < suffix.count, "the suffix's start")
            #expect(before.count > 2 * after.count, "three quarters for the prefix: \(before.count) / \(after.count)")
            await runtime.unloadAllModels()
        }
    }
}
