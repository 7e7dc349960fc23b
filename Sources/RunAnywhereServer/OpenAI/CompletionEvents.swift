import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// How one kind of completion is cut into stream chunks.
protocol ChunkFraming: Sendable {
    associatedtype Chunk: Encodable
    /// The chunk sent before any text, if the kind has one.
    func opening() -> Chunk?
    /// The chunks for a piece of generated text (none while a tag is being held back).
    mutating func pieces(_ text: String) -> [Chunk]
    /// What is still held back, the result's tool calls, then the chunk carrying `finish_reason`.
    mutating func finish(_ result: LLMGenerationResult) -> [Chunk]
    /// The closing chunk with `usage` and RunAnywhere's `timings`.
    func usage(_ result: LLMGenerationResult) -> Chunk
}

/// `chat.completion.chunk`s: a role delta, then content deltas, with thinking split out as
/// `reasoning_content` deltas as llama-server and DeepSeek's API send it, and the tool calls
/// as `tool_calls` deltas at the end (the SDK keeps a call's text out of the stream and parses it
/// when it is complete).
struct ChatChunkFraming: ChunkFraming {
    let id: String
    let created: Int
    let model: String
    var thinking: ThinkingParser

    func opening() -> ChatCompletionChunk? { chunk(.init(role: "assistant", content: ""), finishReason: nil) }

    mutating func pieces(_ text: String) -> [ChatCompletionChunk] { thinking.feed(text).map(delta) }

    mutating func finish(_ result: LLMGenerationResult) -> [ChatCompletionChunk] {
        let calls = ToolCallDelta.deltas(result.toolCalls).map { chunk(.init(toolCalls: $0), finishReason: nil) }
        return thinking.finish().map(delta) + calls + [chunk(.init(), finishReason: finishReason(result.stopReason))]
    }

    func usage(_ result: LLMGenerationResult) -> ChatCompletionChunk {
        ChatCompletionChunk(id: id, created: created, model: model, choices: [], usage: Usage(result), timings: Timings(result))
    }

    private func delta(_ piece: ThinkingChunk) -> ChatCompletionChunk {
        switch piece {
        case .thinking(let text): chunk(.init(reasoningContent: text), finishReason: nil)
        case .response(let text): chunk(.init(content: text), finishReason: nil)
        }
    }

    private func chunk(_ delta: ChatCompletionChunk.Choice.Delta, finishReason: String?) -> ChatCompletionChunk {
        ChatCompletionChunk(id: id, created: created, model: model, choices: [.init(delta: delta, finishReason: finishReason)], usage: nil, timings: nil)
    }
}

/// `text_completion` chunks: the generated text as it comes, tags and all.
struct TextChunkFraming: ChunkFraming {
    let id: String
    let created: Int
    let model: String

    func opening() -> Completion? { nil }
    func pieces(_ text: String) -> [Completion] { [chunk(text, finishReason: nil)] }
    func finish(_ result: LLMGenerationResult) -> [Completion] { [chunk("", finishReason: finishReason(result.stopReason))] }

    func usage(_ result: LLMGenerationResult) -> Completion {
        Completion(id: id, created: created, model: model, choices: [], usage: Usage(result), timings: Timings(result))
    }

    private func chunk(_ text: String, finishReason: String?) -> Completion {
        Completion(id: id, created: created, model: model, choices: [.init(text: text, finishReason: finishReason)], usage: nil, timings: nil)
    }
}

/// A streamed generation written as OpenAI's server-sent events: chunks, an optional usage
/// chunk, then `data: [DONE]`. A failure mid-stream is sent as an `error` event. If the client
/// goes away, writing fails and the generation is cancelled, freeing the engine.
struct CompletionEvents<Framing: ChunkFraming>: Sendable {
    var framing: Framing
    let includeUsage: Bool
    let generation: LLMStreamingResult

    func write(to writer: inout any ResponseBodyWriter) async throws {
        var framing = framing
        var finished = false
        defer { if !finished { generation.result.cancel() } }
        var events = try framing.opening().map { [try ServerSentEvents.event($0)] } ?? []
        do {
            for try await text in generation.stream {
                events += try framing.pieces(text).map { try ServerSentEvents.event($0) }
                try await ServerSentEvents.send(&events, to: &writer)
            }
            let result = try await generation.result.value
            events += try framing.finish(result).map { try ServerSentEvents.event($0) }
            if includeUsage { events.append(try ServerSentEvents.event(framing.usage(result))) }
        } catch let error where !(error is CancellationError) {
            events.append(try ServerSentEvents.event(OpenAIError.from(error).envelope))
        }
        events.append(ServerSentEvent(data: "[DONE]"))
        try await ServerSentEvents.send(&events, to: &writer)
        finished = true
    }
}
