import Foundation
import Hummingbird
import RunAnywhere

/// A tool call as ollama writes it: `{"id", "function": {"index", "name", "arguments": {…}}}`,
/// the arguments an object rather than JSON text.
struct OllamaToolCall: Encodable, Sendable {
    struct Function: Encodable, Sendable {
        let index: Int
        let name: String
        let arguments: JSONValue
    }
    let id: String
    let function: Function

    init(_ call: ToolCall, index: Int) {
        id = call.id
        function = Function(index: index, name: call.name, arguments: call.arguments)
    }
}

/// The assistant's message in `/api/chat`'s answers (whole, or a streamed piece of it).
struct OllamaMessage: Encodable, Sendable {
    var role = "assistant"
    var content = ""
    var thinking: String?
    var toolCalls: [OllamaToolCall]?

    enum CodingKeys: String, CodingKey { case role, content, thinking, toolCalls = "tool_calls" }
}

/// ollama's measurements of a finished generation, in nanoseconds: `total_duration` (from the
/// request's arrival), `load_duration` (until the engine took the request: loading the model, or
/// waiting for it), `prompt_eval_count` (the prompt's tokens, cached ones included) and
/// `prompt_eval_duration` (until the first token), `eval_count` and `eval_duration` (the answer).
struct OllamaStats: Encodable, Sendable {
    let totalDuration: Int64
    let loadDuration: Int64
    let promptEvalCount: Int
    let promptEvalDuration: Int64
    let evalCount: Int
    let evalDuration: Int64

    enum CodingKeys: String, CodingKey {
        case totalDuration = "total_duration", loadDuration = "load_duration", promptEvalCount = "prompt_eval_count"
        case promptEvalDuration = "prompt_eval_duration", evalCount = "eval_count", evalDuration = "eval_duration"
    }

    init(_ result: LLMGenerationResult, timing: OllamaTiming) {
        let prompt = (result.timeToFirstTokenMs ?? 0) * 1_000_000
        totalDuration = timing.elapsed.nanoseconds
        loadDuration = timing.load.nanoseconds
        promptEvalCount = result.inputTokens
        promptEvalDuration = Int64(prompt)
        evalCount = result.tokensUsed
        evalDuration = Int64(max(0, result.latencyMs * 1_000_000 - prompt))
    }

    /// The stats of a request that generated nothing (a load or an unload).
    init(timing: OllamaTiming) {
        totalDuration = timing.elapsed.nanoseconds
        loadDuration = timing.load.nanoseconds
        (promptEvalCount, promptEvalDuration, evalCount, evalDuration) = (0, 0, 0, 0)
    }
}

/// When a request arrived and how long the engine took to take it.
struct OllamaTiming: Sendable {
    let arrived = ContinuousClock.now
    var load: Duration = .zero

    /// Marks the engine as having taken the request.
    mutating func engineTook() { load = ContinuousClock.now - arrived }

    /// Time since the request arrived.
    var elapsed: Duration { ContinuousClock.now - arrived }
}

extension Duration {
    /// Whole nanoseconds.
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

/// One answer of `/api/chat` (`message`) or `/api/generate` (`response` and `thinking`): a
/// streamed piece (`done: false`), or the last line or whole answer (`done: true`, with
/// `done_reason` — `stop`, `length`, or `load` and `unload` for a request without a prompt — and
/// the ``OllamaStats``).
struct OllamaChunk: Encodable, Sendable {
    enum Body: Sendable {
        case chat(OllamaMessage)
        case generate(response: String, thinking: String?)
    }
    let model: String
    let createdAt: String
    let body: Body
    var doneReason: String?
    var stats: OllamaStats?
    /// The log-probabilities of the tokens of the piece's text (all of them in a whole answer),
    /// when the request asked for them.
    var logprobs: [TokenLogprobObject]?

    enum CodingKeys: String, CodingKey {
        case model, createdAt = "created_at", message, response, thinking, done, doneReason = "done_reason", logprobs
    }

    init(model: String, createdAt: String = OllamaChunk.now(), body: Body, doneReason: String? = nil, stats: OllamaStats? = nil) {
        self.model = model
        self.createdAt = createdAt
        self.body = body
        self.doneReason = doneReason
        self.stats = stats
    }

    /// The chunk with `body` for a `chat` or a generate request.
    static func piece(
        model: String, createdAt: String = now(), chat: Bool, text: String = "", thinking: String? = nil, toolCalls: [OllamaToolCall]? = nil
    ) -> Self {
        Self(
            model: model, createdAt: createdAt,
            body: chat
                ? .chat(OllamaMessage(content: text, thinking: thinking, toolCalls: toolCalls))
                : .generate(response: text, thinking: thinking))
    }

    /// The time now as `created_at` is written: ISO 8601 in UTC to the millisecond
    /// (`2026-12-05T23:30:12.345Z`), made from the clock's fields directly, as it is once a token.
    static func now() -> String {
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        var seconds = clock.tv_sec
        var time = tm()
        gmtime_r(&seconds, &time)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(Int(time.tm_year) + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(time.tm_mon) + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(Int(time.tm_mday), 2)
        bytes.append(UInt8(ascii: "T"))
        digits(Int(time.tm_hour), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(time.tm_min), 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int(time.tm_sec), 2)
        bytes.append(UInt8(ascii: "."))
        digits(Int(clock.tv_nsec) / 1_000_000, 3)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(model, forKey: .model)
        try container.encode(createdAt, forKey: .createdAt)
        switch body {
        case .chat(let message): try container.encode(message, forKey: .message)
        case .generate(let response, let thinking):
            try container.encode(response, forKey: .response)
            try container.encodeIfPresent(thinking, forKey: .thinking)
        }
        try container.encodeIfPresent(logprobs, forKey: .logprobs)
        try container.encode(doneReason != nil, forKey: .done)
        try container.encodeIfPresent(doneReason, forKey: .doneReason)
        try stats?.encode(to: encoder)
    }
}

/// ollama's `done_reason` for a stop reason: a tool call ends the answer as a stop does.
func ollamaDoneReason(_ reason: LLMStopReason) -> String {
    reason == .length ? "length" : "stop"
}

/// Maps a generation's events onto ollama's lines: a piece for each run of text or reasoning
/// (`thinking`, unless `think` is false) and one with each tool call, then the last line with
/// the done reason and the stats. The whole answer is the same, gathered into one object. The
/// lines of text and reasoning, one a token, are written from templates (``JSONTemplate``).
struct OllamaStreamMapper: Sendable {
    let model: String
    let chat: Bool
    let showsThinking: Bool
    private var calls = 0
    private var logprobs: [TokenLogprob]?
    /// A piece of text, and one of reasoning, of the time and the piece.
    private let textLine: JSONTemplate
    private let thinkingLine: JSONTemplate

    init(model: String, chat: Bool, showsThinking: Bool) throws {
        self.model = model
        self.chat = chat
        self.showsThinking = showsThinking
        textLine = try JSONTemplate(strings: 2) { OllamaChunk.piece(model: model, createdAt: $0[0], chat: chat, text: $0[1]) }
        thinkingLine = try JSONTemplate(strings: 2) { OllamaChunk.piece(model: model, createdAt: $0[0], chat: chat, thinking: $0[1]) }
    }

    /// The lines `event` becomes, as JSON text; `timing` for the last one's stats.
    mutating func lines(_ event: GenerationEvent, timing: OllamaTiming) throws -> [String] {
        switch event {
        case .text(let text) where logprobs == nil: return [try textLine.json([OllamaChunk.now(), text])]
        case .reasoning(let text) where showsThinking: return [try thinkingLine.json([OllamaChunk.now(), text])]
        default: return try chunks(event, timing: timing).map { String(decoding: try JSONEncoder.server.encode($0), as: UTF8.self) }
        }
    }

    /// The chunks `event` becomes; `timing` for the last one's stats.
    private mutating func chunks(_ event: GenerationEvent, timing: OllamaTiming) -> [OllamaChunk] {
        switch event {
        case .logprobs(let tokens):
            logprobs = tokens
            return []
        case .text(let text):
            var piece = OllamaChunk.piece(model: model, chat: chat, text: text)
            piece.logprobs = logprobs?.map(TokenLogprobObject.init)
            logprobs = nil
            return [piece]
        case .reasoning(let text): return showsThinking ? [.piece(model: model, chat: chat, thinking: text)] : []
        case .promptLogprobs: return []  // ollama's API has none
        case .toolCall(let call):
            calls += 1
            return chat ? [.piece(model: model, chat: true, toolCalls: [OllamaToolCall(call, index: calls - 1)])] : []
        case .completed(let result):
            var last = OllamaChunk.piece(model: model, chat: chat)
            last.doneReason = ollamaDoneReason(result.stopReason)
            last.stats = OllamaStats(result, timing: timing)
            return [last]
        }
    }

    /// The whole answer for `result`.
    func whole(_ result: LLMGenerationResult, timing: OllamaTiming) -> OllamaChunk {
        let thinking = showsThinking ? result.thinkingContent : nil
        let calls = result.toolCalls.enumerated().map { OllamaToolCall($1, index: $0) }
        var answer = OllamaChunk.piece(
            model: model, chat: chat, text: result.text, thinking: thinking, toolCalls: chat && !calls.isEmpty ? calls : nil)
        answer.doneReason = ollamaDoneReason(result.stopReason)
        answer.stats = OllamaStats(result, timing: timing)
        answer.logprobs = result.logprobs?.map(TokenLogprobObject.init)
        return answer
    }
}

/// A streamed generation written as ollama's lines (``OllamaStreamMapper``). A failure
/// mid-stream is a last `{"error": …}` line, which ollama's clients raise. If the client goes
/// away, writing fails and the generation is cancelled, freeing the engine.
struct OllamaLineWriter: Sendable {
    let mapper: OllamaStreamMapper
    let generation: GenerationEvents
    let timing: OllamaTiming

    func write(to writer: inout any ResponseBodyWriter) async throws {
        var mapper = mapper
        try await generation.relay(
            to: &writer,
            event: { event, writer in try await NDJSON.write(lines: mapper.lines(event, timing: timing), to: &writer) },
            failure: { error, writer in try await NDJSON.write([OllamaError(error)], to: &writer) }
        )
    }
}
