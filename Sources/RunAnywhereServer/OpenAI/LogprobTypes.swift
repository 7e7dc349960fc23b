import RunAnywhere

/// OpenAI's `logprobs` and `top_logprobs` (chat completions: `logprobs` true and up to 20
/// alternatives; completions: `logprobs` the number of alternatives), and ollama's, as the SDK's
/// ``RunAnywhere/LLMGenerationOptions/logprobs``: nil when not asked for.
func requestedLogprobs(_ logprobs: LogprobsField?, top: Int?) throws -> Int? {
    let limit = LLMGenerationOptions.maxTopLogprobs
    if let top, !(0...limit).contains(top) {
        throw APIError(.badRequest, "top_logprobs must be between 0 and \(limit)", param: "top_logprobs")
    }
    switch logprobs {
    case .none, .flag(false):
        if let top, top > 0 { throw APIError(.badRequest, "top_logprobs needs logprobs set to true", param: "top_logprobs") }
        return nil
    case .flag(true): return top ?? 0
    case .count(let count):
        guard (0...limit).contains(count) else { throw APIError(.badRequest, "logprobs must be between 0 and \(limit)", param: "logprobs") }
        return top ?? count
    }
}

/// `logprobs`: true or false (chat completions, ollama), or how many alternatives (completions).
enum LogprobsField: Decodable, Sendable {
    case flag(Bool)
    case count(Int)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try container.decodeIfOfType(Bool.self) {
            self = .flag(flag)
        } else if let count = try? NumberField<Int>(from: decoder).wrappedValue {
            self = .count(count)
        } else {
            throw APIError(.badRequest, "logprobs must be true, false or a number of alternatives", param: "logprobs")
        }
    }
}

/// A token's log-probability as OpenAI's chat completions, the Responses API and ollama write it:
/// `{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}` (the
/// alternatives without `top_logprobs`); read back from a stored response.
struct TokenLogprobObject: Codable, Sendable {
    let token: String
    let logprob: Float
    let bytes: [UInt8]
    let topLogprobs: [TokenLogprobObject]?

    enum CodingKeys: String, CodingKey { case token, logprob, bytes, topLogprobs = "top_logprobs" }

    init(_ logprob: TokenLogprob) {
        self.init(logprob, alternatives: true)
    }

    /// Whether its `logprob`, and its alternatives', are log-probabilities: zero or below (one
    /// sent back in a Responses input is kept as given).
    var isALogProbability: Bool { logprob <= 0 && (topLogprobs?.allSatisfy(\.isALogProbability) ?? true) }

    private init(_ logprob: TokenLogprob, alternatives: Bool) {
        token = logprob.text
        self.logprob = logprob.logprob
        bytes = logprob.bytes
        topLogprobs = alternatives ? logprob.topLogprobs.map { TokenLogprobObject($0, alternatives: false) } : nil
    }
}

/// A chat completion choice's `logprobs`: `{"content": [token…], "refusal": null}`.
struct ChatLogprobs: Encodable, Sendable {
    let content: [TokenLogprobObject]

    enum CodingKeys: String, CodingKey { case content, refusal }

    init(_ logprobs: [TokenLogprob]) {
        content = logprobs.map(TokenLogprobObject.init)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(content, forKey: .content)
        try container.encodeNil(forKey: .refusal)
    }
}

/// A completion choice's `logprobs`, in the legacy completions shape: the tokens, their
/// log-probabilities, each place's alternatives as an object of text to log-probability, and
/// where each token starts in the text (in characters). With `echo`, the prompt's tokens come
/// first; its first token, which nothing predicts, has null for a log-probability and alternatives.
struct CompletionLogprobs: Encodable, Sendable {
    private(set) var tokens: [String] = []
    private(set) var tokenLogprobs: [Float?] = []
    private(set) var topLogprobs: [[String: Float]?] = []
    private(set) var textOffset: [Int] = []

    enum CodingKeys: String, CodingKey {
        case tokens, tokenLogprobs = "token_logprobs", topLogprobs = "top_logprobs", textOffset = "text_offset"
    }

    /// The shape of `logprobs`, the first token starting at `offset` characters into the text.
    init(_ logprobs: [TokenLogprob], offset: Int = 0) {
        var at = offset
        append(logprobs, at: &at)
    }

    /// The shape of an echoed `prompt` (the log-probabilities of its tokens after the first,
    /// ``RunAnywhere/LLMGenerationResult/promptLogprobs``) and then of the `answer` after it. The
    /// first token is the prompt's text its other tokens do not show: none where the model put a
    /// BOS token first, whose prediction of the text's first token is then the first number.
    init(prompt: String, _ promptLogprobs: [TokenLogprob], answer: [TokenLogprob] = []) {
        let text = Array(prompt.utf8)
        let shown = promptLogprobs.reduce(0) { $0 + $1.bytes.count }
        let first = String(decoding: text.prefix(max(text.count - shown, 0)), as: UTF8.self)
        if !first.isEmpty {
            tokens.append(first)
            tokenLogprobs.append(nil)
            topLogprobs.append(nil)
            textOffset.append(0)
        }
        var at = first.unicodeScalars.count
        append(promptLogprobs, at: &at)
        at = prompt.unicodeScalars.count
        append(answer, at: &at)
    }

    private mutating func append(_ logprobs: [TokenLogprob], at offset: inout Int) {
        for logprob in logprobs {
            tokens.append(logprob.text)
            tokenLogprobs.append(logprob.logprob)
            topLogprobs.append(Dictionary(logprob.topLogprobs.map { ($0.text, $0.logprob) }, uniquingKeysWith: max))
            textOffset.append(offset)
            offset += logprob.text.unicodeScalars.count
        }
    }
}
