import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Real generation on the default model (SmolLM2 135M) through llama.cpp. Serialized: two model
/// runs at once on 2 cores would distort each other.
extension LlamaTests {
    @Suite struct Generation {
    @Test func greedyOutputIsIdenticalAcrossRuns() async throws {
        let runtime = try await SharedModel.runtime.value
        let first = try await runtime.generate("Name three colors.", options: greedy(24))
        let second = try await runtime.generate("Name three colors.", options: greedy(24))
        #expect(!first.text.isEmpty)
        #expect(first.text == second.text)
        #expect(second.cachedInputTokens > 0, "the repeated prompt is reused from the KV cache")
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

    @Test func seededSamplingIsRepeatable() async throws {
        let runtime = try await SharedModel.runtime.value
        let options = LLMGenerationOptions(maxTokens: 16, temperature: 0.9, seed: 1234, threads: 1)
        let first = try await runtime.generate("Tell me about cats.", options: options)
        let second = try await runtime.generate("Tell me about cats.", options: options)
        #expect(first.text == second.text)
    }

    @Test func chatUsesTheContextAndReusesTheCache() async throws {
        let runtime = try await SharedModel.runtime.value
        var messages: [Message] = []
        let first = try await runtime.generate("Hi! My name is Ada.", context: Context(systemPrompt: "You are a helpful assistant.", messages: messages), options: greedy(16))
        messages += [Message(role: .user, content: "Hi! My name is Ada."), Message(role: .assistant, content: first.text)]
        let second = try await runtime.generate("What is my name?", context: Context(systemPrompt: "You are a helpful assistant.", messages: messages), options: greedy(16))
        #expect(second.inputTokens > first.inputTokens + first.tokensUsed)
        #expect(second.cachedInputTokens >= first.inputTokens - 1, "the earlier turn stays in the KV cache")
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
        let hot = await #expect(throws: SDKError.self) { try await runtime.generate("Hi", options: LLMGenerationOptions(temperature: 5)) }
        #expect(hot?.code == .invalidInput)
    }
}
}
