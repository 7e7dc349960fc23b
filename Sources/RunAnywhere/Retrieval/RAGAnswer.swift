/// An answer to a question over a collection, with the passages it was given.
public struct RAGAnswer: Codable, Sendable, Equatable {
    /// The answer's text (the generation's, without any thinking).
    public var text: String { generation.text }
    /// The passages the model was given, best first: source `[n]` in the answer is `sources[n - 1]`.
    public let sources: [RAGSource]
    /// The generation, with its measurements.
    public let generation: LLMGenerationResult
    /// The collection searched.
    public let collection: String
    /// The reranker that ordered the sources, or nil when they are in cosine order.
    public let reranker: String?

    /// Creates an answer.
    package init(sources: [RAGSource], generation: LLMGenerationResult, collection: String, reranker: String? = nil) {
        self.sources = sources
        self.generation = generation
        self.collection = collection
        self.reranker = reranker
    }
}

/// An answer being written: its events are the generation's own (``GenerationEvent``: the
/// reasoning and text as they come, then `.completed` with the generation's result, always
/// last), and its ``sources`` are known before the first. ``answer(_:)`` joins the completed
/// result with the sources; ``result()`` reads the events to their end and does the same.
///
/// ``cancel()`` stops the generation within one decode step (the events still end with
/// `.completed`, its stop reason ``LLMStopReason/cancelled``); cancelling the iterating task, or
/// dropping the sequence unfinished, stops it too.
public struct RAGAnswerEvents: AsyncSequence, Sendable {
    /// The events: the generation's, with no tool calls (an answer offers no tools).
    public typealias Element = GenerationEvent
    /// The passages retrieved for the question, best first, numbered from 1 in the prompt.
    public let sources: [RAGSource]
    /// The collection searched.
    public let collection: String
    /// The reranker that ordered the sources, or nil when they are in cosine order.
    public let reranker: String?
    /// The generation writing the answer.
    package let generation: GenerationEvents

    init(sources: [RAGSource], collection: String, reranker: String?, generation: GenerationEvents) {
        self.sources = sources
        self.collection = collection
        self.reranker = reranker
        self.generation = generation
    }

    /// An iterator over the events (an answer is iterated once).
    public func makeAsyncIterator() -> GenerationEvents.AsyncIterator {
        generation.makeAsyncIterator()
    }

    /// The answer that the generation's `.completed` `result` completes: the result with this
    /// answer's sources, collection and reranker.
    public func answer(_ result: LLMGenerationResult) -> RAGAnswer {
        RAGAnswer(sources: sources, generation: result, collection: collection, reranker: reranker)
    }

    /// Stops the generation within one decode step.
    public func cancel() {
        generation.cancel()
    }

    /// The answer, reading the events to their end.
    public func result() async throws -> RAGAnswer {
        answer(try await generation.result())
    }
}
