import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// How one kind of completion is cut into stream chunks.
protocol ChunkFraming: Sendable {
    associatedtype Chunk: Encodable
    /// The chunk sent before any text, if the kind has one.
    func opening() -> Chunk?
    /// The events of the chunks for a piece of the answer or of the reasoning (from an
    /// ``EventTemplate``: there is one a token); the log-probabilities that come before a piece
    /// of the answer are kept and sent in its chunk.
    mutating func pieces(_ event: GenerationEvent) throws -> [ServerSentEvent]
    /// The result's tool calls, then the chunk carrying `finish_reason`.
    func finish(_ result: LLMGenerationResult) -> [Chunk]
    /// The closing chunk with `usage` (of every choice) and RunAnywhere's `timings` (the first's).
    func usage(_ results: [LLMGenerationResult]) -> Chunk
}

/// `chat.completion.chunk`s: a role delta, then content deltas, with the reasoning as
/// `reasoning_content` deltas as llama-server and DeepSeek's API send it, and the tool calls
/// as `tool_calls` deltas at the end (the SDK keeps a call's text out of the stream and parses it
/// when it is complete).
struct ChatChunkFraming: ChunkFraming {
    let id: String
    let created: Int
    let model: String
    /// The choice's index (`n` asks for several).
    let index: Int
    private let content: EventTemplate
    private let reasoning: EventTemplate
    private var logprobs: [TokenLogprob]?

    init(id: String, created: Int, model: String, index: Int = 0) throws {
        (self.id, self.created, self.model, self.index) = (id, created, model, index)
        content = try EventTemplate {
            Self.chunk(.init(content: $0), finishReason: nil, id: id, created: created, model: model, index: index)
        }
        reasoning = try EventTemplate {
            Self.chunk(.init(reasoningContent: $0), finishReason: nil, id: id, created: created, model: model, index: index)
        }
    }

    func opening() -> ChatCompletionChunk? { chunk(.init(role: "assistant", content: ""), finishReason: nil) }

    mutating func pieces(_ event: GenerationEvent) throws -> [ServerSentEvent] {
        switch event {
        case .reasoning(let text): return [try reasoning.event(text)]
        case .logprobs(let tokens):
            logprobs = tokens
            return []
        case .text(let text):
            guard let tokens = logprobs else { return [try content.event(text)] }
            logprobs = nil
            var piece = chunk(.init(content: text), finishReason: nil)
            piece.choices[0].logprobs = ChatLogprobs(tokens)
            return [try ServerSentEvents.event(piece)]
        case .toolCall, .completed, .promptLogprobs: return []  // the calls go out with the result, numbered; chat has no echo
        }
    }

    func finish(_ result: LLMGenerationResult) -> [ChatCompletionChunk] {
        let calls = ToolCallDelta.deltas(result.toolCalls).map { chunk(.init(toolCalls: $0), finishReason: nil) }
        return calls + [chunk(.init(), finishReason: finishReason(result.stopReason))]
    }

    func usage(_ results: [LLMGenerationResult]) -> ChatCompletionChunk {
        ChatCompletionChunk(
            id: id, created: created, model: model, choices: [], usage: Usage(results), timings: results.first.map(Timings.init))
    }

    private func chunk(_ delta: ChatCompletionChunk.Choice.Delta, finishReason: String?) -> ChatCompletionChunk {
        Self.chunk(delta, finishReason: finishReason, id: id, created: created, model: model, index: index)
    }

    private static func chunk(
        _ delta: ChatCompletionChunk.Choice.Delta, finishReason: String?, id: String, created: Int, model: String, index: Int
    ) -> ChatCompletionChunk {
        ChatCompletionChunk(
            id: id, created: created, model: model, choices: [.init(index: index, delta: delta, finishReason: finishReason)], usage: nil,
            timings: nil)
    }
}

/// `text_completion` chunks: the generated text as it comes, any reasoning inside the model's
/// own thinking tags (the spec's projection, ``RunAnywhere/LLMStreamingResult``).
struct TextChunkFraming: ChunkFraming {
    let id: String
    let created: Int
    let model: String
    let text: LLMStreamingResult.Projection
    /// The choice's index (`n` and several prompts ask for several).
    let index: Int
    /// The prompt the choice begins with (`echo`), if any.
    let echo: String?
    /// Choices a prompt (`n`), for the usage of several prompts.
    let perPrompt: Int
    private let piece: EventTemplate
    private var logprobs: [TokenLogprob]?
    /// Characters of text sent so far, where the next token's `text_offset` starts: counted only
    /// when the request asked for log-probabilities (nil otherwise).
    private var offset: Int?

    init(
        id: String, created: Int, model: String, text: LLMStreamingResult.Projection, index: Int = 0, logprobs: Bool = false,
        echo: String? = nil, perPrompt: Int = 1
    ) throws {
        (self.id, self.created, self.model, self.text, self.index, self.echo, self.perPrompt) =
            (id, created, model, text, index, echo, perPrompt)
        offset = logprobs ? 0 : nil
        piece = try EventTemplate { Self.chunk($0, finishReason: nil, id: id, created: created, model: model, index: index) }
    }

    /// The echoed prompt, when its log-probabilities are not awaited (they come with it).
    func opening() -> Completion? { offset == nil ? echo.map { chunk($0, finishReason: nil) } : nil }

    mutating func pieces(_ event: GenerationEvent) throws -> [ServerSentEvent] {
        if case .promptLogprobs(let tokens) = event {
            guard let echo else { return [] }
            var chunk = chunk(echo, finishReason: nil)
            chunk.choices[0].logprobs = CompletionLogprobs(prompt: echo, tokens)
            offset = echo.unicodeScalars.count
            return [try ServerSentEvents.event(chunk)]
        }
        if case .logprobs(let tokens) = event { logprobs = tokens }
        let pieces = text.project(event)
        guard let start = offset else { return try pieces.map(piece.event) }
        let before = pieces.dropLast().reduce(start) { $0 + $1.unicodeScalars.count }
        offset = before + (pieces.last?.unicodeScalars.count ?? 0)
        guard case .text = event, let tokens = logprobs, let last = pieces.last else { return try pieces.map(piece.event) }
        // The answer's piece is the last: a closing thinking tag may come before it.
        logprobs = nil
        var chunk = chunk(last, finishReason: nil)
        chunk.choices[0].logprobs = CompletionLogprobs(tokens, offset: before)
        return try pieces.dropLast().map(piece.event) + [try ServerSentEvents.event(chunk)]
    }
    func finish(_ result: LLMGenerationResult) -> [Completion] {
        text.project(.completed(result)).map { chunk($0, finishReason: nil) } + [chunk("", finishReason: finishReason(result.stopReason))]
    }

    func usage(_ results: [LLMGenerationResult]) -> Completion {
        Completion(
            id: id, created: created, model: model, choices: [], usage: Usage(results, perPrompt: perPrompt),
            timings: results.first.map(Timings.init))
    }

    private func chunk(_ text: String, finishReason: String?) -> Completion {
        Self.chunk(text, finishReason: finishReason, id: id, created: created, model: model, index: index)
    }

    private static func chunk(_ text: String, finishReason: String?, id: String, created: Int, model: String, index: Int) -> Completion {
        Completion(
            id: id, created: created, model: model, choices: [.init(text: text, index: index, finishReason: finishReason)], usage: nil,
            timings: nil)
    }
}

/// A streamed generation written as OpenAI's server-sent events: chunks, an optional usage
/// chunk, then `data: [DONE]`. A failure mid-stream is sent as an `error` event. If the client
/// goes away, writing fails and the generation is cancelled, freeing the engine. With several
/// choices (`n`), each is a generation of its own with its own framing, their chunks interleaved
/// as they come; the usage chunk, once all have ended, counts them all.
struct CompletionEvents<Framing: ChunkFraming>: Sendable {
    let framings: [Framing]
    let includeUsage: Bool
    let generations: [GenerationEvents]

    func write(to writer: inout any ResponseBodyWriter) async throws {
        guard generations.count > 1 else { return try await writeOne(to: &writer) }
        var framings = framings
        var events = try framings.compactMap { try $0.opening().map { try ServerSentEvents.event($0) } }
        var results = [LLMGenerationResult?](repeating: nil, count: generations.count)
        try await GenerationEvents.relay(
            generations, to: &writer,
            event: { choice, event, writer in
                if case .completed(let result) = event {
                    events += try framings[choice].finish(result).map { try ServerSentEvents.event($0) }
                    results[choice] = result
                } else {
                    events += try framings[choice].pieces(event)
                }
                try await ServerSentEvents.send(&events, to: &writer)
            },
            failure: { error, _ in events.append(try ServerSentEvents.event(OpenAIErrorBody(error))) },
            closing: { writer in
                let ended = results.compactMap { $0 }
                if includeUsage, ended.count == results.count { events.append(try ServerSentEvents.event(framings[0].usage(ended))) }
                events.append(ServerSentEvent(data: "[DONE]"))
                try await ServerSentEvents.send(&events, to: &writer)
            }
        )
    }

    private func writeOne(to writer: inout any ResponseBodyWriter) async throws {
        var framing = framings[0]
        var events = try framing.opening().map { [try ServerSentEvents.event($0)] } ?? []
        try await generations[0].relay(
            to: &writer,
            event: { event, writer in
                if case .completed(let result) = event {
                    events += try framing.finish(result).map { try ServerSentEvents.event($0) }
                    if includeUsage { events.append(try ServerSentEvents.event(framing.usage([result]))) }
                } else {
                    events += try framing.pieces(event)
                    try await ServerSentEvents.send(&events, to: &writer)
                }
            },
            failure: { error, _ in events.append(try ServerSentEvents.event(OpenAIErrorBody(error))) },
            closing: { writer in
                events.append(ServerSentEvent(data: "[DONE]"))
                try await ServerSentEvents.send(&events, to: &writer)
            }
        )
    }
}
