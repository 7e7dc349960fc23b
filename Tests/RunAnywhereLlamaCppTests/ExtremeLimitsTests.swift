import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Limits a client may send far beyond any model (issue 38: numbers from outside must not trap)
/// reach llama.cpp's C ints clamped to what they mean.
extension LlamaTests {
    @Suite struct ExtremeLimits {
        @Test func aTopKBeyondAnyVocabularyKeepsEveryToken() async throws {
            let runtime = try await SharedModel.runtime.value
            let options = LLMGenerationOptions(maxTokens: 4, temperature: 0.8, topK: .max, seed: 7, threads: 1)
            let result = try await runtime.generate("Name a colour.", options: options)
            #expect(result.tokensUsed > 0)
        }

        @Test func theLargestMaxTokensStopsAtTheContext() async throws {
            let runtime = try await SharedModel.runtime.value
            let result = try await runtime.generate("Name a colour.", options: greedy(.max))
            #expect(result.tokensUsed > 0 && result.inputTokens + result.tokensUsed <= testLoadOptions.contextLength ?? 0)
        }
    }
}
