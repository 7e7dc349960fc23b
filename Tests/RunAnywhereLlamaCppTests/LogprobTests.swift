import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// A request's `logprobs` on the default model, in this process and in an engine worker: each
/// answer token comes with its log-probability and its likeliest alternatives, in a `.logprobs`
/// event just before the text that shows it and in the result; a stop sequence's tokens have none;
/// what cannot be honoured is refused. (The normalizer is checked against a plain sum in
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
                var options = greedy(2)
                options.logprobs = count
                do {
                    _ = try await runtime.generate(Self.prompt, options: options)
                    Issue.record("logprobs \(count) was accepted")
                } catch let error as SDKError {
                    #expect(error.code == .invalidInput && error.message.contains("logprobs must be between 0 and 20"), "\(error.message)")
                }
            }
        }
    }
}
