import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// A request's logit bias, penalties and min-p reach the sampler of the default model, in this
/// process and in an engine worker (the sampler's arithmetic is checked against llama.cpp's own
/// samplers in `TokenSampler`): each changes the answer as it says, and what no sampler can honour
/// is refused with a clear error.
extension LlamaTests {
    @Suite struct SamplingControls {
        static let prompt = "Name three colours."

        /// A bias of 100 on one token makes greedy decoding write nothing else, in this process
        /// and in a worker.
        @Test func aLogitBiasOf100ForcesItsToken() async throws {
            let runtime = try await SharedModel.runtime.value
            let token = try #require(try await runtime.tokenize(" banana", addSpecial: false, parseSpecial: false).first)
            let expected = try await runtime.detokenize([token, token, token])
            var options = greedy(3)
            options.logitBias = [token: 100]
            #expect(try await runtime.generate(Self.prompt, options: options).text == expected)

            let isolated = EngineProcess.isolatedRuntime()
            let streaming = try await isolated.generateStream(
                Self.prompt, context: nil, options: options, model: RunAnywhere.defaultModelID, loadOptions: testLoadOptions)
            for try await _ in streaming.stream {}
            #expect(try await streaming.result.value.text == expected, "the bias travels to the worker")
            await isolated.unloadAllModels()
        }

        /// Banning every token of the greedy answer, or penalizing every token already seen
        /// (the prompt's included) beyond any logit, changes the greedy answer.
        @Test func aBanOrAPresencePenaltyChangesTheGreedyAnswer() async throws {
            let runtime = try await SharedModel.runtime.value
            let plain = try await runtime.generate(Self.prompt, options: greedy(8))
            var banned = greedy(8)
            banned.logitBias = Dictionary(
                try await runtime.tokenize(plain.text, addSpecial: false, parseSpecial: false).map { ($0, Float(-100)) },
                uniquingKeysWith: { $1 })
            let unlike = try await runtime.generate(Self.prompt, options: banned)
            #expect(unlike.text != plain.text, "\(plain.text)")

            let repeating = "the the the the the the the the"
            let echo = try await runtime.generate(repeating, options: greedy(6, raw: true))
            var penalized = greedy(6, raw: true)
            penalized.presencePenalty = 100
            let fresh = try await runtime.generate(repeating, options: penalized)
            #expect(echo.text.contains("the") && fresh.text != echo.text, "\(echo.text) / \(fresh.text)")
        }

        /// With min-p 1 only the most likely token is left, so an unseeded draw at a high
        /// temperature writes the greedy answer.
        @Test func minP1DrawsTheGreedyAnswer() async throws {
            let runtime = try await SharedModel.runtime.value
            let plain = try await runtime.generate(Self.prompt, options: greedy(8))
            var options = LLMGenerationOptions(maxTokens: 8, temperature: 1.8, topK: 0, minP: 1, threads: 1)
            options.topP = 1
            #expect(try await runtime.generate(Self.prompt, options: options).text == plain.text)
        }

        @Test func settingsNoSamplerCanHonourAreRefused() async throws {
            let runtime = try await SharedModel.runtime.value
            let cases: [(LLMGenerationOptions, String)] = [
                (LLMGenerationOptions(maxTokens: 2, minP: 1.5, threads: 1), "minP must be between 0 and 1"),
                (LLMGenerationOptions(maxTokens: 2, repeatPenalty: 0, threads: 1), "repeatPenalty must be more than 0"),
                (LLMGenerationOptions(maxTokens: 2, presencePenalty: .nan, threads: 1), "presencePenalty must be a finite number"),
                (LLMGenerationOptions(maxTokens: 2, penaltyLastN: -2, threads: 1), "penaltyLastN must be 0 or more"),
                (LLMGenerationOptions(maxTokens: 2, logitBias: [-1: 5], threads: 1), "token ids start at 0"),
                (LLMGenerationOptions(maxTokens: 2, logitBias: [7: .infinity], threads: 1), "must be finite"),
                (LLMGenerationOptions(maxTokens: 2, logitBias: [49_152: 5], threads: 1), "the model's vocabulary has 49152 tokens"),
            ]
            for (options, message) in cases {
                do {
                    _ = try await runtime.generate(Self.prompt, options: options)
                    Issue.record("accepted: \(message)")
                } catch let error as SDKError {
                    #expect(error.code == .invalidInput && error.message.contains(message), "\(error.message)")
                }
            }
        }
    }
}
