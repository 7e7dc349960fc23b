import Synchronization

/// One event of a generation, in the order the model produced it: the one typed stream that
/// every surface (the SDK's ``LLMStreamingResult``, the CLI, every server route, the web app)
/// projects. Thinking is split from the answer once, with the model's own tags; tool calls are
/// found once.
///
/// A generation's events are some `.reasoning` and `.text` pieces (interleaved as the model
/// wrote them), then its `.toolCall`s, then `.completed` with the result, always last. The
/// `.text` pieces joined are the result's `text` when the model made no tool call, and the
/// `.reasoning` pieces joined are its `thinkingContent`.
public enum GenerationEvent: Sendable, Equatable {
    /// A piece of the answer: whole UTF-8 characters, never part of a stop sequence, with a tool
    /// call's markup left out.
    case text(String)
    /// The log-probabilities of the answer's tokens that the next `.text` piece completes, when
    /// asked for (``LLMGenerationOptions/logprobs``): sent just before that piece. A token cut
    /// by a stop sequence or hidden with a tool call's markup has none, nor has the reasoning.
    case logprobs([TokenLogprob])
    /// The log-probabilities of the prompt's tokens after its first, each given the tokens before
    /// it, when asked for (``LLMGenerationOptions/promptLogprobs``): sent once the prompt is read,
    /// before any other event.
    case promptLogprobs([TokenLogprob])
    /// A piece of the model's reasoning (between its thinking tags, the tags removed).
    case reasoning(String)
    /// A tool call the model made, with its complete arguments.
    case toolCall(ToolCall)
    /// The end of the generation, with its result and measurements.
    case completed(LLMGenerationResult)
}

/// A generation in progress as its typed events: iterate it for the reasoning, the answer's
/// text and the tool calls as they come, ending with `.completed(result)`.
///
/// ``cancel()`` stops the engine within one decode step and the events still end with
/// `.completed`, whose result has stop reason ``LLMStopReason/cancelled``; cancelling the task
/// that iterates (or dropping the sequence unfinished) stops the engine too, without that event.
public struct GenerationEvents: AsyncSequence, Sendable {
    /// The events.
    public typealias Element = GenerationEvent
    private let events: AsyncThrowingStream<GenerationEvent, any Error>
    /// The generation, to its result.
    let task: Task<LLMGenerationResult, any Error>
    /// The prompt's tokens as planned when the engine took the request, before the first event
    /// (nil from ``RunAnywhere/generateEvents(_:context:options:)``, which returns before
    /// that). The result's ``LLMGenerationResult/inputTokens`` is the engine's own count, which
    /// differs from it only with images.
    public let promptTokens: Int?
    /// Told when the caller awaits the result instead, so that the events stop being kept for a
    /// reader that never comes.
    private let unread: UnreadEvents?

    init(
        events: AsyncThrowingStream<GenerationEvent, any Error>, task: Task<LLMGenerationResult, any Error>, promptTokens: Int? = nil,
        unread: UnreadEvents? = nil
    ) {
        self.events = events
        self.task = task
        self.promptTokens = promptTokens
        self.unread = unread
    }

    /// An iterator over the events (a generation is iterated once).
    public func makeAsyncIterator() -> AsyncThrowingStream<GenerationEvent, any Error>.AsyncIterator {
        events.makeAsyncIterator()
    }

    /// Stops the generation within one decode step; the events end with its `.completed` result.
    public func cancel() {
        task.cancel()
    }

    /// The generation's result, once it ends (a generation that throws throws here); its events
    /// are not read, nor kept from then on. Cancelling the calling task stops the engine.
    public func result() async throws -> LLMGenerationResult {
        unread?.declare()
        // Awaited, not read off the events: a reader would wake for each of them, once a token.
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}

/// Whether a generation's events will be read: once the caller says they will not, they are
/// dropped as they come rather than kept in the stream for a reader that never comes.
final class UnreadEvents: Sendable {
    private let declared = Atomic(false)

    /// The events will not be read.
    func declare() { declared.store(true, ordering: .relaxed) }

    /// Whether ``declare()`` was called.
    var isDeclared: Bool { declared.load(ordering: .relaxed) }
}

/// Turns a generation's text, as it arrives, into its `.reasoning` and `.text` events: splits
/// thinking from the answer at the model's tags (also when a tag is cut across pieces), trims
/// them as the final result does (the reasoning at both ends, the answer's start after
/// thinking), and keeps tool calls' markup out of the streamed answer. It also keeps the whole
/// reasoning and answer, so the result needs no second parse.
struct GenerationEventSplitter {
    private var parser: ThinkingParser
    private var toolCalls: ToolCallStreamFilter?
    /// Whitespace at the answer's start, held until the answer says whether it is kept.
    private var answerLead = ""
    private var answerStarted = false
    /// Whitespace after the reasoning so far, held until more reasoning follows.
    private var reasoningTail = ""
    private var reasoningStarted = false
    /// The reasoning and the answer so far (the answer with any tool-call markup).
    private(set) var reasoning = ""
    private(set) var answer = ""

    /// A splitter for a model thinking in `pattern`, offered tools in `toolCalls`' format (nil: no tools).
    init(pattern: ThinkingTagPattern, toolCalls: ToolCallFormat?) {
        parser = ThinkingParser(pattern: pattern)
        self.toolCalls = toolCalls.map { ToolCallStreamFilter(format: $0) }
    }

    /// Whether the model is between its thinking tags.
    var isThinking: Bool { parser.isThinking }
    /// Whether the model has thought at all: its reasoning is then ``reasoning``, else there is none.
    var sawThinking: Bool { parser.sawThinking }

    /// The events `piece` (the next text) makes certain.
    mutating func feed(_ piece: String) -> [GenerationEvent] {
        events(parser.feed(piece))
    }

    /// The events still held back when the text ends.
    mutating func finish() -> [GenerationEvent] {
        var out = events(parser.finish())
        if !answerStarted, !sawThinking, !answerLead.isEmpty {
            answer += answerLead
            out += shown(answerLead)
        }
        answerLead = ""
        reasoningTail = ""
        if let held = toolCalls?.finish(), !held.isEmpty { out.append(.text(held)) }
        return out
    }

    private mutating func events(_ chunks: [ThinkingChunk]) -> [GenerationEvent] {
        chunks.flatMap { chunk -> [GenerationEvent] in
            switch chunk {
            case .thinking(let text): return reason(text)
            case .response(let text): return respond(text)
            }
        }
    }

    private mutating func reason(_ text: String) -> [GenerationEvent] {
        var text = text
        if !reasoningStarted {
            text = String(text.drop { $0.isWhitespace })
            guard !text.isEmpty else { return [] }
            reasoningStarted = true
        }
        let body = text.trimmingTrailingWhitespace()
        let tail = String(text.dropFirst(body.count))
        guard !body.isEmpty else {
            reasoningTail += tail
            return []
        }
        let piece = reasoningTail + body
        reasoningTail = tail
        reasoning += piece
        return [.reasoning(piece)]
    }

    private mutating func respond(_ text: String) -> [GenerationEvent] {
        var text = text
        if !answerStarted {
            let lead = text.prefix { $0.isWhitespace }
            guard lead.count < text.count else {
                answerLead += text
                return []
            }
            answerStarted = true
            // After thinking, the answer starts at its first visible character.
            text = (sawThinking ? "" : answerLead) + text.dropFirst(sawThinking ? lead.count : 0)
            answerLead = ""
        }
        answer += text
        return shown(text)
    }

    /// `text` as the stream shows it: without tool-call markup.
    private mutating func shown(_ text: String) -> [GenerationEvent] {
        let visible = toolCalls?.feed(text) ?? text
        return visible.isEmpty ? [] : [.text(visible)]
    }
}

extension String {
    /// The string without its trailing whitespace and newlines.
    func trimmingTrailingWhitespace() -> String {
        var end = endIndex
        while end > startIndex, self[index(before: end)].isWhitespace { end = index(before: end) }
        return String(self[..<end])
    }
}
