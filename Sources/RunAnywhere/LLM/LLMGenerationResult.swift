import Foundation
import Synchronization

/// Why generation ended.
public enum LLMStopReason: String, Codable, Sendable {
    /// The model ended its answer or a stop sequence was reached.
    case stop
    /// `maxTokens` or the context window was reached.
    case length
    /// The caller cancelled.
    case cancelled
    /// The model called tools (``LLMGenerationResult/toolCalls``) and waits for their results.
    case toolCalls
}

/// The outcome of one generation, with its measurements.
public struct LLMGenerationResult: Codable, Sendable, Equatable {
    /// The answer, without any thinking.
    public let text: String
    /// The reasoning between thinking tags, when the model produced any.
    public let thinkingContent: String?
    /// Tokens in the prompt the model read (after chat formatting).
    public let inputTokens: Int
    /// Tokens the model generated.
    public let tokensUsed: Int
    /// The id of the model that generated.
    public let modelUsed: String
    /// Wall-clock milliseconds from the request to the last token.
    public let latencyMs: TimeInterval
    /// The framework's display name.
    public let framework: String?
    /// Where the model ran: `cpu`, `cuda`, `vulkan`, or `rpc` with layers on RPC workers (nil in
    /// results saved before it was kept).
    public let backend: String?
    /// `tokensUsed` divided by the total generation time (the spec's definition).
    public let tokensPerSecond: Double
    /// Milliseconds from the request to the first generated token.
    public let timeToFirstTokenMs: Double?
    /// Generated tokens that were thinking.
    public let thinkingTokens: Int?
    /// Generated tokens that were the answer.
    public let responseTokens: Int
    /// Prompt tokens evaluated per second (prompt processing alone). Additive to the spec.
    public let promptTokensPerSecond: Double
    /// Generated tokens per second after the first (decoding alone). Additive to the spec.
    public let decodeTokensPerSecond: Double
    /// Prompt tokens reused from the previous generation's cache instead of evaluated again.
    public let cachedInputTokens: Int
    /// Why generation ended.
    public let stopReason: LLMStopReason
    /// Tokens per second since the first token, sampled every 10 tokens. Additive to the spec.
    public let tokensPerSecondHistory: [Double]
    /// Milliseconds from the first thinking token to the closing tag (or the last token, if
    /// the thinking never closed); nil without thinking. Additive to the spec.
    public let thinkingTimeMs: Double?
    /// Milliseconds spent encoding the prompt's images (a vision-language model); nil without
    /// images. Additive to the spec.
    public let imageEncodeTimeMs: Double?
    /// The tools the model called (then `text` is what it wrote besides, often nothing, and the
    /// stop reason ``LLMStopReason/toolCalls``). Additive to the spec.
    public let toolCalls: [ToolCall]
    /// The caller's stop sequence (``LLMGenerationOptions/stopSequences``) that ended the
    /// generation, if one did (the stop reason is then ``LLMStopReason/stop``). Additive to the spec.
    public let stopSequence: String?
    /// Tokens speculative decoding guessed (``LLMGenerationOptions/speculation``); nil when the
    /// generation did not speculate. Additive to the spec.
    public let draftTokens: Int?
    /// Guessed tokens the model kept; each saved a decode step. Additive to the spec.
    public let acceptedDraftTokens: Int?
    /// The log-probability of each token of `text`, in order, when asked for
    /// (``LLMGenerationOptions/logprobs``): the ``GenerationEvent/logprobs(_:)`` events' tokens
    /// joined; nil when not asked for. Additive to the spec.
    public let logprobs: [TokenLogprob]?
    /// The log-probability of each token of the prompt after its first, given the tokens before
    /// it, when asked for (``LLMGenerationOptions/promptLogprobs``); nil when not asked for.
    /// Additive to the spec.
    public let promptLogprobs: [TokenLogprob]?

    /// The share of guessed tokens the model kept, 0 to 1; nil when nothing was guessed.
    public var draftAcceptanceRate: Double? {
        guard let draftTokens, draftTokens > 0 else { return nil }
        return Double(acceptedDraftTokens ?? 0) / Double(draftTokens)
    }

    /// Creates a result.
    package init(
        text: String, thinkingContent: String? = nil, inputTokens: Int, tokensUsed: Int, modelUsed: String,
        latencyMs: TimeInterval, framework: String? = nil, backend: String? = nil, tokensPerSecond: Double = 0,
        timeToFirstTokenMs: Double? = nil, thinkingTokens: Int? = nil, responseTokens: Int? = nil,
        promptTokensPerSecond: Double = 0, decodeTokensPerSecond: Double = 0, cachedInputTokens: Int = 0,
        stopReason: LLMStopReason = .stop, tokensPerSecondHistory: [Double] = [], thinkingTimeMs: Double? = nil,
        imageEncodeTimeMs: Double? = nil, toolCalls: [ToolCall] = [], stopSequence: String? = nil, draftTokens: Int? = nil,
        acceptedDraftTokens: Int? = nil, logprobs: [TokenLogprob]? = nil, promptLogprobs: [TokenLogprob]? = nil
    ) {
        self.text = text
        self.thinkingContent = thinkingContent
        self.inputTokens = inputTokens
        self.tokensUsed = tokensUsed
        self.modelUsed = modelUsed
        self.latencyMs = latencyMs
        self.framework = framework
        self.backend = backend
        self.tokensPerSecond = tokensPerSecond
        self.timeToFirstTokenMs = timeToFirstTokenMs
        self.thinkingTokens = thinkingTokens
        self.responseTokens = responseTokens ?? tokensUsed
        self.promptTokensPerSecond = promptTokensPerSecond
        self.decodeTokensPerSecond = decodeTokensPerSecond
        self.cachedInputTokens = cachedInputTokens
        self.stopReason = stopReason
        self.tokensPerSecondHistory = tokensPerSecondHistory
        self.thinkingTimeMs = thinkingTimeMs
        self.imageEncodeTimeMs = imageEncodeTimeMs
        self.toolCalls = toolCalls
        self.stopSequence = stopSequence
        self.draftTokens = draftTokens
        self.acceptedDraftTokens = acceptedDraftTokens
        self.logprobs = logprobs
        self.promptLogprobs = promptLogprobs
    }

    /// Decodes a result; `toolCalls`, `backend`, `stopSequence`, the draft counts and the
    /// log-probabilities may be absent (results saved before they existed).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decode(String.self, forKey: .text)
        thinkingContent = try c.decodeIfPresent(String.self, forKey: .thinkingContent)
        inputTokens = try c.decode(Int.self, forKey: .inputTokens)
        tokensUsed = try c.decode(Int.self, forKey: .tokensUsed)
        modelUsed = try c.decode(String.self, forKey: .modelUsed)
        latencyMs = try c.decode(TimeInterval.self, forKey: .latencyMs)
        framework = try c.decodeIfPresent(String.self, forKey: .framework)
        backend = try c.decodeIfPresent(String.self, forKey: .backend)
        tokensPerSecond = try c.decode(Double.self, forKey: .tokensPerSecond)
        timeToFirstTokenMs = try c.decodeIfPresent(Double.self, forKey: .timeToFirstTokenMs)
        thinkingTokens = try c.decodeIfPresent(Int.self, forKey: .thinkingTokens)
        responseTokens = try c.decode(Int.self, forKey: .responseTokens)
        promptTokensPerSecond = try c.decode(Double.self, forKey: .promptTokensPerSecond)
        decodeTokensPerSecond = try c.decode(Double.self, forKey: .decodeTokensPerSecond)
        cachedInputTokens = try c.decode(Int.self, forKey: .cachedInputTokens)
        stopReason = try c.decode(LLMStopReason.self, forKey: .stopReason)
        tokensPerSecondHistory = try c.decode([Double].self, forKey: .tokensPerSecondHistory)
        thinkingTimeMs = try c.decodeIfPresent(Double.self, forKey: .thinkingTimeMs)
        imageEncodeTimeMs = try c.decodeIfPresent(Double.self, forKey: .imageEncodeTimeMs)
        toolCalls = try c.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
        stopSequence = try c.decodeIfPresent(String.self, forKey: .stopSequence)
        draftTokens = try c.decodeIfPresent(Int.self, forKey: .draftTokens)
        acceptedDraftTokens = try c.decodeIfPresent(Int.self, forKey: .acceptedDraftTokens)
        logprobs = try c.decodeIfPresent([TokenLogprob].self, forKey: .logprobs)
        promptLogprobs = try c.decodeIfPresent([TokenLogprob].self, forKey: .promptLogprobs)
    }
}

/// A generation in progress: its text as it arrives, and its result once it ends; the spec's
/// shape, projected from the generation's ``GenerationEvent``s (which `generateEvents` gives
/// typed: reasoning, answer text and tool calls apart).
///
/// Iterate `stream` for the text pieces (always whole UTF-8 characters; the reasoning between
/// the model's own thinking tags, trimmed at its ends, then the answer; tool calls are in the
/// result); `await result.value` for the measurements. Cancelling the task that iterates `stream`, cancelling `result`, or dropping
/// `stream` before it ends stops the engine within one decode step; the result then has stop
/// reason ``LLMStopReason/cancelled``. To wait only for the result, use `generate` instead.
public struct LLMStreamingResult: Sendable {
    /// The generated text, piece by piece.
    public let stream: AsyncThrowingStream<String, any Error>
    /// The final result with its measurements.
    public let result: Task<LLMGenerationResult, any Error>

    /// Creates a streaming result.
    package init(stream: AsyncThrowingStream<String, any Error>, result: Task<LLMGenerationResult, any Error>) {
        self.stream = stream
        self.result = result
    }
    /// The text of a generation's events: reasoning inside the model's thinking tags, then the
    /// answer (nothing for tool calls and the end).
    package final class Projection: Sendable {
        private let pattern: ThinkingTagPattern
        private let reasoning = Mutex(false)

        package init(thinkingPattern: ThinkingTagPattern) {
            pattern = thinkingPattern
        }

        /// The text pieces `event` becomes, in order.
        @Sendable package func project(_ event: GenerationEvent) -> [String] {
            reasoning.withLock { inside in
                switch event {
                case .reasoning(let text):
                    defer { inside = true }
                    return inside ? [text] : [pattern.openingTag, text]
                case .text(let text):
                    defer { inside = false }
                    return inside ? [pattern.closingTag, text] : [text]
                case .toolCall, .completed:
                    defer { inside = false }
                    return inside ? [pattern.closingTag] : []
                case .logprobs, .promptLogprobs: return []
                }
            }
        }
    }
}
