import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Real generation on the default model (SmolLM2 135M) through llama.cpp. Serialized: two model
/// runs at once on 2 cores would distort each other.
extension LlamaTests {
    @Suite struct Generation {
        /// Seeded sampling and greedy decoding give the same text whatever the KV cache holds:
        /// (a) in a fresh runtime, (b) after a different prompt, (c) after the same prompt, when whole
        /// chunks come from the cache, also after unseeded runs that reused more, and after a shorter
        /// prompt it extends, as in a chat. The short
        /// prompt is the one whose seeded repeat drifted on AMD EPYC before prompts had fixed chunks.
        @Test(
            arguments: [
                LLMGenerationOptions(maxTokens: 16, temperature: 0.9, seed: 1234, threads: 1),
                greedy(16),
            ], [longPrompt, "Tell me about cats."])
        func outputDoesNotDependOnTheCache(options: LLMGenerationOptions, prompt: String) async throws {
            let extended = prompt + " Which of these facts surprised you most?"
            let fresh = try await makeRuntime()
            let reference = try await fresh.generate(prompt, options: options)
            let extendedReference = try await fresh.generate(extended, options: options)
            #expect(reference.cachedInputTokens == 0)
            #expect(extendedReference.cachedInputTokens == reference.inputTokens / testChunk * testChunk)

            let runtime = try await SharedModel.runtime.value
            _ = try await runtime.generate("Name three colors.", options: options)
            let afterOther = try await runtime.generate(prompt, options: options)
            // A randomly sampled run reuses all it shares with memory and leaves its own tokens there.
            let unseeded = LLMGenerationOptions(maxTokens: 8, temperature: 0.9, threads: 1)
            _ = try await runtime.generate(extended, options: unseeded)
            let sampled = try await runtime.generate(extended, options: unseeded)
            #expect(sampled.cachedInputTokens == sampled.inputTokens - 1)
            let again = try await runtime.generate(prompt, options: options)
            let extendedAfter = try await runtime.generate(extended, options: options)
            #expect(
                again.cachedInputTokens == (again.inputTokens - 1) / testChunk * testChunk, "whole chunks of the repeated prompt are reused"
            )
            #expect(!reference.text.isEmpty)
            #expect(afterOther.text == reference.text)
            #expect(again.text == reference.text)
            #expect(extendedAfter.text == extendedReference.text)
        }

        @Test func streamedTextEqualsNonStreamedText() async throws {
            let runtime = try await SharedModel.runtime.value
            let whole = try await runtime.generate("Write one sentence about the sea.", options: greedy(32))
            let streaming = try await runtime.generateStream("Write one sentence about the sea.", options: greedy(32))
            var pieces: [String] = []
            for try await piece in streaming.stream { pieces.append(piece) }
            let result = try await streaming.result.value
            #expect(pieces.count > 1)
            #expect(pieces.joined() == whole.text)
            #expect(result.text == whole.text)
        }

        @Test func resultCarriesItsMeasurements() async throws {
            let runtime = try await SharedModel.runtime.value
            let result = try await runtime.generate("What is 2+2?", options: greedy(16))
            #expect(result.modelUsed == RunAnywhere.defaultModelID)
            #expect(result.framework == "llama.cpp")
            #expect(result.inputTokens > 5)
            #expect((1...16).contains(result.tokensUsed))
            #expect(result.responseTokens == result.tokensUsed)
            #expect(result.thinkingContent == nil)
            #expect(result.latencyMs > 0)
            let ttft = try #require(result.timeToFirstTokenMs)
            #expect(ttft > 0 && ttft <= result.latencyMs)
            #expect(abs(result.tokensPerSecond - Double(result.tokensUsed) / (result.latencyMs / 1000)) < 1e-6)
            #expect(result.promptTokensPerSecond > 0)
            if result.tokensUsed > 1 { #expect(result.decodeTokensPerSecond > 0) }
            #expect([LLMStopReason.stop, .length].contains(result.stopReason))
        }

        @Test func maxTokensIsHonoured() async throws {
            let runtime = try await SharedModel.runtime.value
            let result = try await runtime.generate("1, 2, 3, 4, 5,", options: greedy(5, raw: true))
            #expect(result.tokensUsed == 5)
            #expect(result.stopReason == .length)
        }

        @Test func stopSequencesCutTheText() async throws {
            let runtime = try await SharedModel.runtime.value
            let free = try await runtime.generate("1, 2, 3, 4, 5,", options: greedy(12, raw: true))
            #expect(free.text.contains("7"), "greedy counting goes on: \(free.text)")
            let stopped = try await runtime.generate("1, 2, 3, 4, 5,", options: greedy(12, raw: true, stop: ["7"]))
            #expect(stopped.text == String(free.text[..<free.text.range(of: "7")!.lowerBound]))
            #expect(stopped.stopReason == .stop)
        }

        @Test func chatUsesTheContextAndReusesTheCache() async throws {
            let runtime = try await SharedModel.runtime.value
            let system = "You are a helpful assistant. " + longPrompt
            var messages: [Message] = []
            let first = try await runtime.generate(
                "Hi! My name is Ada.", context: Context(systemPrompt: system, messages: messages), options: greedy(16))
            messages += [Message(role: .user, content: "Hi! My name is Ada."), Message(role: .assistant, content: first.text)]
            let second = try await runtime.generate(
                "What is my name?", context: Context(systemPrompt: system, messages: messages), options: greedy(16))
            #expect(first.inputTokens > testChunk)
            #expect(second.inputTokens > first.inputTokens + first.tokensUsed)
            #expect(
                second.cachedInputTokens == first.inputTokens / testChunk * testChunk,
                "the earlier turn's whole chunks stay in the KV cache")
            #expect(!second.text.isEmpty)
        }

        @Test func concurrentRequestsTakeTurns() async throws {
            let runtime = try await SharedModel.runtime.value
            let expected = try await runtime.generate("Say hello.", options: greedy(8)).text
            async let a = runtime.generate("Say hello.", options: greedy(8))
            async let b = runtime.generate("Say hello.", options: greedy(8))
            let (first, second) = try await (a, b)
            #expect(first.text == expected)
            #expect(second.text == expected)
        }

        @Test func tokenCountUsesTheModelsTokenizer() async throws {
            let runtime = try await SharedModel.runtime.value
            #expect(try await runtime.tokenCount("Hello world") == 2)
            #expect(try await runtime.tokenCount("<|im_start|>") == 1)
        }

        @Test func badOptionsAndPromptsAreClearErrors() async throws {
            let runtime = try await SharedModel.runtime.value
            let empty = await #expect(throws: SDKError.self) { try await runtime.generate("", options: greedy(4)) }
            #expect(empty?.code == .emptyInput)
            let hot = await #expect(throws: SDKError.self) {
                try await runtime.generate("Hi", options: LLMGenerationOptions(temperature: 5))
            }
            #expect(hot?.code == .invalidInput)
        }
    }
}
