import Foundation
import Logging
import RunAnywhere

/// Responses made in the background (`background: true`), as OpenAI makes them: `POST
/// /v1/responses` answers at once with the response `queued` and stored, and the answer is made
/// here while the client is away, stored again as it starts (`in_progress`) and as it ends.
/// `GET /v1/responses/{id}` polls it, `POST /v1/responses/{id}/cancel` stops it (`cancelled`),
/// and its stream events are kept, numbered, so that a client that streamed it and lost the
/// connection reads on after the last event it had (`GET /v1/responses/{id}?stream=true&starting_after=N`)
/// until ``eventsKept`` after the response ended.
///
/// Each response is made under its id in ``AnsweringConversations``: with the replicas' database,
/// a replica that does not make it cancels it through the one that does, and a response a stopped
/// server left `queued` or `in_progress` is found by its lapsed claim and ended as failed,
/// rather than polled forever. A server that stops ends the responses it was making the same way.
actor BackgroundResponses {
    /// How long a response's stream events are kept after it ends.
    static let eventsKept: Duration = .seconds(600)
    /// The error a response ends with when the server that made it stopped first.
    static let serverStopped = APIError(
        .serviceUnavailable, "The server stopped before it finished this response; create it again", code: "server_stopped")

    /// A response made here: its stream events so far, who follows them, and its task.
    private struct Made {
        var events: [ResponseStreamEvent] = []
        var ended = false
        var followers: [UUID: AsyncStream<ResponseStreamEvent>.Continuation] = [:]
        var task: Task<Void, Never>?
    }

    private var made: [AnsweringConversations.Named: Made] = [:]
    /// Set once the server stops: what ends now fails with ``serverStopped``.
    private var stopping = false
    let answering: AnsweringConversations
    private let logger: Logger

    init(answering: AnsweringConversations, logger: Logger) {
        self.answering = answering
        self.logger = logger
    }

    /// Claims `named` (the account and the response's id), stores `run`'s response as it is
    /// (queued), and makes it in a task of its own from the generation `generate` starts.
    func start(_ named: AnsweringConversations.Named, _ run: ResponseRun, generate: @escaping @Sendable () async throws -> GenerationEvents)
        async throws
    {
        guard !stopping else { throw Self.serverStopped }
        try await answering.begin(named)
        do {
            try await run.store?.save(run.response, input: run.input)
            guard !stopping else { throw Self.serverStopped }  // it began to stop meanwhile
        } catch {
            await answering.end(named)
            throw error
        }
        made[named] = Made()
        let logger = logger
        let task = Task {
            do {
                try await run.background(generate, emit: { await self.append($0, to: named) }, serverStopped: { await self.stopping })
            } catch {
                // Its last stored status stands until its lapsed claim ends it as failed.
                logger.error("A background response's end could not be stored", metadata: ["response": "\(named.id)", "error": "\(error)"])
            }
            await self.ended(named)
        }
        made[named]?.task = task
        await answering.started(named, stop: { task.cancel() })
    }

    /// Cancels the response `named` if it is made here and waits until it has ended (and is
    /// stored so); false when it is not made here.
    func cancelHere(_ named: AnsweringConversations.Named) async -> Bool {
        guard let task = made[named]?.task, made[named]?.ended == false else { return false }
        task.cancel()
        await task.value
        return true
    }

    /// Whether the response `named` is being made here or by another replica.
    func isBeingMade(_ named: AnsweringConversations.Named) async throws -> Bool {
        if made[named]?.ended == false { return true }
        return try await answering.replicas?.isAnswered(account: named.account, id: named.id) ?? false
    }

    /// The stream events of the response `named` after the one numbered `after`, then each one
    /// as it comes until the response ends; nil when its events are not kept here.
    func follow(_ named: AnsweringConversations.Named, after: Int) -> AsyncStream<ResponseStreamEvent>? {
        guard let kept = made[named] else { return nil }
        let (events, continuation) = AsyncStream<ResponseStreamEvent>.makeStream()
        for event in kept.events where event.sequenceNumber > after { continuation.yield(event) }
        guard !kept.ended else {
            continuation.finish()
            return events
        }
        let id = UUID()
        made[named]?.followers[id] = continuation
        continuation.onTermination = { _ in Task { await self.unfollow(named, id) } }
        return events
    }

    /// Ends every response being made here, as failed with ``serverStopped``, once each is stored so.
    func stopAll() async {
        stopping = true
        let tasks = made.values.filter { !$0.ended }.compactMap(\.task)
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    private func append(_ event: ResponseStreamEvent, to named: AnsweringConversations.Named) {
        guard made[named] != nil else { return }
        made[named]?.events.append(event)
        for follower in made[named]?.followers.values.map(\.self) ?? [] { follower.yield(event) }
    }

    private func unfollow(_ named: AnsweringConversations.Named, _ id: UUID) {
        made[named]?.followers[id] = nil
    }

    /// Ends the response `named`'s streams and claim; its events are forgotten ``eventsKept`` later.
    private func ended(_ named: AnsweringConversations.Named) async {
        made[named]?.ended = true
        for follower in made[named]?.followers.values.map(\.self) ?? [] { follower.finish() }
        made[named]?.followers = [:]
        await answering.end(named)
        Task {
            try? await Task.sleep(for: Self.eventsKept)
            self.forget(named)
        }
    }

    private func forget(_ named: AnsweringConversations.Named) { made[named] = nil }
}
