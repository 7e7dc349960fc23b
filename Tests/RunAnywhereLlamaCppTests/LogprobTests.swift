import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// A request's `logprobs` on the default model, in this process and in an engine worker: each
/// answer token comes with its log-probability and its likeliest alternatives, in a `.logprobs`
/// event just before the text that shows it and in the result; a stop sequence's tokens have none;
/// what cannot be honoured is refused; a prompt's tokens after its first come with theirs when
/// asked (`promptLogprobs`), the same numbers a generation reports for the token it picks there.
/// (The normalizer is checked against a plain sum in
/// `TokenSampler`, the numbers against llama-cpp-python's in the OpenAI client check.)
extension LlamaTests {
    @Suite struct Logprobs {
        static let prompt = "Name three colours."

        /// The events, and the result, of one greedy generation asking for `top` alternatives.
        static func run(_ events: GenerationEvents) async throws -> (events: [GenerationEvent], result: LLMGenerationResult) {
            var seen: [GenerationEvent] = []
            for try await event in events {
                if case .completed(let result) = event { return (seen, result) }
                seen.append(event)
            }
            throw CancellationError()
        }

        /// Each answer token's bytes, in order, are the text; each has `top` alternatives,
        /// likeliest first, of which the greedy token is the first; every `.logprobs` event is
        /// followed by a `.text` piece, and the events' tokens are the result's.
        static func checkGreedy(_ events: [GenerationEvent], _ result: LLMGenerationResult, top: Int) throws {
            let logprobs = try #require(result.logprobs)
            #expect(logprobs.count == result.tokensUsed)
            #expect(logprobs.flatMap(\.bytes) == Array(result.text.utf8), "\(logprobs.map(\.text)) / \(result.text)")
            for token in logprobs {
                let values = token.topLogprobs.map(\.logprob)
                #expect(token.topLogprobs.count == top)
                #expect(values == values.sorted(by: >) && token.logprob <= 0)
                #expect(values.reduce(0) { $0 + exp($1) } <= 1.0001)
                if top > 0 { #expect(token.topLogprobs.first?.id == token.id && token.topLogprobs.first?.logprob == token.logprob) }
            }
            var fromEvents: [TokenLogprob] = []
            for (index, event) in events.enumerated() {
                guard case .logprobs(let tokens) = event else { continue }
                fromEvents += tokens
                guard index + 1 < events.count, case .text = events[index + 1] else {
                    Issue.record("a .logprobs event not followed by text: \(events)")
                    continue
                }
            }
            #expect(fromEvents == logprobs)
        }

        @Test func eachAnswerTokenComesWithItsLogprobInProcessAndInAWorker() async throws {
            let runtime = try await SharedModel.runtime.value
            var options = greedy(8)
            options.logprobs = 3
            let (events, result) = try await Self.run(try runtime.generateEvents(Self.prompt, options: options))
            try Self.checkGreedy(events, result, top: 3)
            #expect(try await runtime.generate(Self.prompt, options: greedy(2)).logprobs == nil, "none unless asked for")

            let isolated = EngineProcess.isolatedRuntime()
            options.logprobs = 0
            let (remoteEvents, remote) = try await Self.run(
                try await isolated.generateEvents(
                    Self.prompt, context: nil, options: options, model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions))
            try Self.checkGreedy(remoteEvents, remote, top: 0)
            await isolated.unloadAllModels()
        }

        /// The tokens a stop sequence cuts have none: those reported are the text's first tokens.
        @Test func aStopSequencesTokensHaveNone() async throws {
            let runtime = try await SharedModel.runtime.value
            var options = greedy(12, raw: true)
            options.logprobs = 1
            let whole = try await runtime.generate("Count: one, two, three, four,", options: options)
            let words = whole.text.split(separator: " ")
            try #require(words.count >= 3, "\(whole.text)")
            options.stopSequences = [String(words[2])]
            let cut = try await runtime.generate("Count: one, two, three, four,", options: options)
            let tokens = try #require(cut.logprobs)
            #expect(Array(cut.text.utf8).starts(with: tokens.flatMap(\.bytes)), "\(tokens.map(\.text)) / \(cut.text)")
            #expect(tokens.count < whole.logprobs?.count ?? 0 && tokens == Array(whole.logprobs?.prefix(tokens.count) ?? []))
        }

        @Test func moreThanTwentyAlternativesAreRefused() async throws {
            let runtime = try await SharedModel.runtime.value
            for count in [-1, 21] {
                for prompt in [false, true] {
                    var options = greedy(2)
                    if prompt { options.promptLogprobs = count } else { options.logprobs = count }
                    do {
                        _ = try await runtime.generate(Self.prompt, options: options)
                        Issue.record("logprobs \(count) was accepted")
                    } catch let error as SDKError {
                        let field = prompt ? "promptLogprobs" : "logprobs"
                        #expect(
                            error.code == .invalidInput && error.message.contains("\(field) must be between 0 and 20"), "\(error.message)")
                    }
                }
            }
        }

        /// A raw prompt's tokens after the first (the default model adds no BOS token) show its
        /// text after the first token, each with its alternatives; the prompt is read whole even
        /// when it was just read (nothing cached); its last token has the log-probability a
        /// generation from the text before it gives the token it picks there; the prompt's token
        /// ids score as its text does (an id past the vocabulary is refused); a worker reports the
        /// same tokens.
        @Test func aPromptsTokensComeWithTheirLogprobs() async throws {
            let runtime = try await SharedModel.runtime.value
            let context = "The capital of France is"
            var options = greedy(1, raw: true)
            options.logprobs = 0
            let next = try #require(try await runtime.generate(context, options: options).logprobs?.first)
            let prompt = context + next.text
            options.logprobs = nil
            options.promptLogprobs = 2
            let (events, scored) = try await Self.run(try runtime.generateEvents(prompt, options: options))
            let again = try await runtime.generate(prompt, options: options)
            let tokens = try #require(scored.promptLogprobs)
            #expect(tokens.count == scored.inputTokens - 1 && again.cachedInputTokens == 0 && again.promptLogprobs?.count == tokens.count)
            let shown = tokens.flatMap(\.bytes)
            #expect(shown.count < prompt.utf8.count && Array(prompt.utf8).suffix(shown.count) == shown, "\(tokens.map(\.text))")
            #expect(events.first == .promptLogprobs(tokens))
            for token in tokens {
                #expect(token.topLogprobs.count == 2 && token.logprob <= 0 && token.logprob <= token.topLogprobs[0].logprob)
            }
            let last = try #require(tokens.last)
            #expect(last.id == next.id && abs(last.logprob - next.logprob) < 0.01, "\(last) / \(next)")

            // The prompt as its token ids, read as they are: the same tokens, scored alike.
            let ids = try await runtime.tokenize(prompt)
            let (_, byIDs) = try await Self.run(
                try await runtime.generateEvents(
                    tokens: ids, options: options, model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions))
            #expect(byIDs.inputTokens == ids.count && byIDs.promptLogprobs?.map(\.id) == tokens.map(\.id))
            #expect(zip(byIDs.promptLogprobs ?? [], tokens).allSatisfy { abs($0.logprob - $1.logprob) < 1e-4 })
            await #expect(throws: SDKError.self) {
                try await runtime.generateEvents(
                    tokens: [1 << 30], options: options, model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions)
            }

            let isolated = EngineProcess.isolatedRuntime()
            let (_, remote) = try await Self.run(
                try await isolated.generateEvents(
                    prompt, context: nil, options: options, model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions))
            await isolated.unloadAllModels()
            let remoteTokens = try #require(remote.promptLogprobs)
            #expect(remoteTokens.map(\.id) == tokens.map(\.id) && remoteTokens.map(\.bytes) == tokens.map(\.bytes))
            #expect(zip(remoteTokens, tokens).allSatisfy { abs($0.logprob - $1.logprob) < 0.01 })
        }
    }
}
