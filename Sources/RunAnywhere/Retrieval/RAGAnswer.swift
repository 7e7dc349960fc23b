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
    public init(sources: [RAGSource], generation: LLMGenerationResult, collection: String, reranker: String? = nil) {
        self.sources = sources
        self.generation = generation
        self.collection = collection
        self.reranker = reranker
    }
}

/// One event of an answer being written: its reasoning and text as they come, then the answer
/// with its sources, always last.
public enum RAGEvent: Sendable, Equatable {
    /// A piece of the answer.
    case text(String)
    /// A piece of the model's reasoning (a thinking model's).
    case reasoning(String)
    /// The end: the whole answer and its sources.
    case completed(RAGAnswer)
}

/// An answer being written: iterate it for its ``RAGEvent``s, ending with `.completed`, or
/// await ``result()``. The ``sources`` are known before the first event.
///
/// ``cancel()`` stops the generation within one decode step (the events still end with
/// `.completed`, its stop reason ``LLMStopReason/cancelled``); cancelling the iterating task, or
/// dropping the sequence unfinished, stops it too.
public struct RAGAnswerEvents: AsyncSequence, Sendable {
    /// The events.
    public typealias Element = RAGEvent
    /// The passages retrieved for the question, best first, numbered from 1 in the prompt.
    public let sources: [RAGSource]
    /// The collection searched.
    public let collection: String
    /// The reranker that ordered the sources, or nil when they are in cosine order.
    public let reranker: String?
    private let generation: GenerationEvents

    init(sources: [RAGSource], collection: String, reranker: String?, generation: GenerationEvents) {
        self.sources = sources
        self.collection = collection
        self.reranker = reranker
        self.generation = generation
    }

    /// Reads the generation's events as ``RAGEvent``s.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<GenerationEvent, any Error>.AsyncIterator
        let sources: [RAGSource]
        let collection: String
        let reranker: String?

        /// The next event; nil after `.completed`.
        public mutating func next() async throws -> RAGEvent? {
            while let event = try await base.next() {
                switch event {
                case .text(let text): return .text(text)
                case .reasoning(let text): return .reasoning(text)
                case .toolCall: continue  // a RAG answer offers no tools
                case .completed(let result):
                    return .completed(RAGAnswer(sources: sources, generation: result, collection: collection, reranker: reranker))
                }
            }
            return nil
        }
    }

    /// An iterator over the events (an answer is iterated once).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: generation.makeAsyncIterator(), sources: sources, collection: collection, reranker: reranker)
    }

    /// Stops the generation within one decode step.
    public func cancel() {
        generation.cancel()
    }

    /// The answer, reading the events to their end.
    public func result() async throws -> RAGAnswer {
        RAGAnswer(sources: sources, generation: try await generation.result(), collection: collection, reranker: reranker)
    }
}
