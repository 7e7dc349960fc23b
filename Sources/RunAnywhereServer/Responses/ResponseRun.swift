import Foundation
import Hummingbird
import OpenAPIRuntime
import RunAnywhere

/// One response being made from a generation: its events mapped by a ``ResponseOutputBuilder``,
/// the finished response stored when `store` is given and its turn added to the conversation
/// `turn` names: whole, streamed, or in the background.
struct ResponseRun: Sendable {
    let response: ResponseObject
    let input: [ResponseItem]
    let store: ResponseStore?
    var turn: ConversationTurn? = nil

    /// The finished response.
    func whole(_ generation: GenerationEvents) async throws -> ResponseObject {
        do {
            var builder = ResponseOutputBuilder()
            var response = self.response
            var stop: LLMStopReason?
            for try await event in generation {
                _ = builder.events(for: event)
                if case .completed(let result) = event {
                    _ = builder.finish(result)
                    response.finish(result, output: builder.output)
                    stop = result.stopReason
                }
            }
            try await turn?.record(response, stop: stop)
            try await store?.save(response, input: input)
            await turn?.end()
            return response
        } catch {
            await turn?.end()
            throw error
        }
    }

    /// Streams the response's events, each numbered; a failure ends it with `response.failed`.
    /// If the client goes away, writing fails and the generation is cancelled.
    func stream(_ generation: GenerationEvents, to writer: inout any ResponseBodyWriter) async throws {
        do {
            try await relay(generation, to: &writer)
        } catch {
            await turn?.end()
            throw error
        }
        await turn?.end()
    }

    /// ``stream(_:to:)``'s events.
    private func relay(_ generation: GenerationEvents, to writer: inout any ResponseBodyWriter) async throws {
        var builder = ResponseOutputBuilder()
        var response = self.response
        var pending: [ResponseStreamEvent] = [.lifecycle("response.created", response), .lifecycle("response.in_progress", response)]
        var numbering = ResponseEventNumbering()
        var encoder = ResponseEventEncoder()
        func send(_ writer: inout any ResponseBodyWriter) async throws {
            var events = try numbering.number(pending).map { try encoder.event($0) }
            pending.removeAll()
            try await ServerSentEvents.send(&events, to: &writer)
        }
        try await generation.relay(
            to: &writer,
            opening: { writer in try await send(&writer) },
            event: { event, writer in
                pending += builder.events(for: event)
                if case .completed(let result) = event {
                    pending += builder.finish(result)
                    response.finish(result, output: builder.output)
                    try await turn?.record(response, stop: result.stopReason)
                    try await store?.save(response, input: input)
                    pending.append(.lifecycle(response.status == "incomplete" ? "response.incomplete" : "response.completed", response))
                }
                try await send(&writer)
            },
            failure: { failure, writer in
                response.fail(failure, output: builder.output)
                pending += [.error(failure), .lifecycle("response.failed", response)]
                try await send(&writer)
            }
        )
    }

    /// Makes the response in the background (``BackgroundResponses``) from the generation
    /// `generate` starts, handing each stream event, numbered, to `emit` and storing the response
    /// as it starts and as it ends. Cancelling this task stops the generation and ends the
    /// response `cancelled` with what it wrote (the stream just ends: the Responses API has no
    /// event for it), or failed when `serverStopped` says the server is stopping. Throws only
    /// when the ended response could not be stored.
    func background(
        _ generate: () async throws -> GenerationEvents, emit: @Sendable (ResponseStreamEvent) async -> Void,
        serverStopped: @Sendable () async -> Bool
    ) async throws {
        var builder = ResponseOutputBuilder()
        var response = self.response
        var numbering = ResponseEventNumbering()
        func send(_ events: [ResponseStreamEvent]) async {
            for event in numbering.number(events) { await emit(event) }
        }
        await send([.lifecycle("response.created", response), .lifecycle("response.queued", response)])
        var failure: APIError?
        var stop: LLMStopReason?
        do {
            try Task.checkCancellation()
            let generation = try await generate()
            try await withTaskCancellationHandler {
                response.status = "in_progress"
                try await store?.save(response, input: input)
                await send([.lifecycle("response.in_progress", response)])
                for try await event in generation {
                    guard case .completed(let result) = event else {
                        await send(builder.events(for: event))
                        continue
                    }
                    guard result.stopReason != .cancelled else { break }
                    stop = result.stopReason
                    let closing = builder.finish(result)
                    response.finish(result, output: builder.output)
                    await send(closing)
                }
            } onCancel: {
                generation.cancel()
            }
        } catch let error where !(error is CancellationError) {
            failure = APIError.from(error)
        } catch {}
        if !response.hasEnded {
            await send(builder.cut())
            if await serverStopped() { failure = BackgroundResponses.serverStopped }
            if let failure {
                response.fail(failure, output: builder.output)
            } else {
                response.cancel(output: builder.output)
            }
        }
        // Stored whatever ended it: a cancelled task's own work may refuse to run.
        try await Task { [response, input, store, turn, stop] in
            do {
                try await turn?.record(response, stop: stop)
                try await store?.save(response, input: input)
            } catch {
                await turn?.end()
                throw error
            }
            await turn?.end()
        }.value
        switch response.status {
        case "completed": await send([.lifecycle("response.completed", response)])
        case "incomplete": await send([.lifecycle("response.incomplete", response)])
        case "failed": await send([.error(failure ?? BackgroundResponses.serverStopped), .lifecycle("response.failed", response)])
        default: break
        }
    }
}

/// A response's turn in a conversation (the Conversations API). While the response is made the
/// conversation is claimed (``AnsweringConversations``: across replicas with their database), so
/// that a second response in it at the same time is refused (`conversation_locked`, as OpenAI
/// refuses it) rather than made without the first one's turn. Once the response has completed (or
/// stopped at `max_output_tokens`), the request's own input items and its output are added at the
/// conversation's end, before the response is stored as ended, so that a client that sees it
/// ended finds its turn there; a failed or cancelled response adds nothing.
struct ConversationTurn: Sendable {
    let store: ConversationItemStore
    let id: String
    let input: [ResponseItem]
    let claim: AnswerClaim

    /// Claims conversation `id` of `account` for a response; a 400 (`conversation_locked`, as
    /// OpenAI answers it) when a response is being made in it, here or on another replica.
    static func claim(_ id: String, account: String, answering: AnsweringConversations) async throws -> AnswerClaim {
        do {
            return try await answering.claim(AnsweringConversations.Named(account: account, id: id))
        } catch let error as APIError where error.status == .conflict {
            throw APIError(
                .badRequest, "Another response is being made in conversation '\(id)'; send this one once it has ended",
                param: "conversation", code: "conversation_locked")
        }
    }

    /// Adds the turn of `response`, which `stop` ended (nil: it did not end).
    func record(_ response: ResponseObject, stop: LLMStopReason?) async throws {
        guard let stop, stop != .cancelled, response.status == "completed" || response.status == "incomplete" else { return }
        // A conversation deleted while the response was made takes no turn.
        _ = try await store.append(input + response.output, to: id)
    }

    /// Lets go of the conversation; once, however often it is called.
    func end() async {
        await claim.release()
    }
}
