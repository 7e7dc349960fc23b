/// A generated token's log-probability under the model, and the likeliest tokens at its place
/// (asked for with ``LLMGenerationOptions/logprobs``).
///
/// The probabilities are the model's own: the softmax of its logits over the whole vocabulary,
/// before temperature, top-k, top-p, min-p, penalties or logit bias (as llama-server, ollama and
/// vLLM report them by default), so the same prompt gives the same numbers however it is sampled.
public struct TokenLogprob: Sendable, Equatable, Codable {
    /// What OpenAI's API writes for a token too unlikely for a number (its logit was -infinity).
    public static let leastLogprob: Float = -9999

    /// The token's id in the model's vocabulary.
    public var id: Int32
    /// The token's text as bytes: a token may hold part of a UTF-8 character.
    public var bytes: [UInt8]
    /// The natural logarithm of the token's probability (0 is certain), at least ``leastLogprob``.
    public var logprob: Float
    /// The likeliest tokens at this place, likeliest first (of equals, the lower id), as many as
    /// were asked for; empty in these alternatives themselves.
    public var topLogprobs: [TokenLogprob]

    /// Creates a token's log-probability.
    public init(id: Int32, bytes: [UInt8], logprob: Float, topLogprobs: [TokenLogprob] = []) {
        self.id = id
        self.bytes = bytes
        self.logprob = logprob
        self.topLogprobs = topLogprobs
    }

    /// The token's text, with bytes that are not a whole UTF-8 character shown as U+FFFD.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
