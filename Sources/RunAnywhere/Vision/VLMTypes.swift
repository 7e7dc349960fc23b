import Foundation

/// The outcome of describing an image, with its measurements (the spec's `VLMResult`).
public struct VLMResult: Codable, Sendable, Equatable {
    /// The model's answer.
    public let text: String
    /// Tokens the model read: the prompt's text and the image's embeddings.
    public let promptTokens: Int
    /// Tokens the model generated.
    public let completionTokens: Int
    /// Milliseconds from the request to the last token.
    public let totalTimeMs: Double
    /// `completionTokens` divided by the total time (the spec's definition).
    public let tokensPerSecond: Double
    /// Milliseconds from the request to the first generated token.
    public let timeToFirstTokenMs: Double?
    /// Milliseconds spent encoding the image into embeddings.
    public let imageEncodeTimeMs: Double?
    /// Why generation ended.
    public let stopReason: LLMStopReason
    /// The model that answered.
    public let modelId: String

    /// The result of the generation `result`.
    package init(_ result: LLMGenerationResult) {
        text = result.text
        promptTokens = result.inputTokens
        completionTokens = result.tokensUsed
        totalTimeMs = result.latencyMs
        tokensPerSecond = result.tokensPerSecond
        timeToFirstTokenMs = result.timeToFirstTokenMs
        imageEncodeTimeMs = result.imageEncodeTimeMs
        stopReason = result.stopReason
        modelId = result.modelUsed
    }
}

/// An image description in progress: its text as it arrives, and its result once it ends.
/// Cancelling the task that iterates `stream`, or `result`, stops the engine within a step.
public struct VLMStreamingResult: Sendable {
    /// The answer, piece by piece.
    public let stream: AsyncThrowingStream<String, any Error>
    /// The final result with its measurements.
    public let result: Task<VLMResult, any Error>

    /// Creates a streaming result.
    package init(stream: AsyncThrowingStream<String, any Error>, result: Task<VLMResult, any Error>) {
        self.stream = stream
        self.result = result
    }
}
