import Foundation
import Logging
import RunAnywhere
import ServiceLifecycle
import Synchronization

/// The conversations being answered, and the background responses being made (each under its
/// id, ``BackgroundResponses``): one answer at a time per conversation, each stoppable, also in
/// the moment between its request and its first token. With the replicas' database
/// (``PostgresAnswers``) that holds across replicas: a conversation another replica answers in
/// is busy here too, and stopping it here asks that replica to stop it.
actor AnsweringConversations {
    /// A conversation: its account ("" for the server's own) and id.
    struct Named: Hashable, Sendable {
        let account: String
        let id: String
    }

    /// Each conversation answered here: what stops its answer once it has started, and whether
    /// it was asked to stop before that.
    private var answers: [Named: (stop: (@Sendable () -> Void)?, stopAsked: Bool)] = [:]
    /// The answers of every replica, when the server has the replicas' database.
    nonisolated let replicas: PostgresAnswers?
    private let logger: Logger

    init(replicas: PostgresAnswers?, logger: Logger) {
        self.replicas = replicas
        self.logger = logger
    }

    /// Claims `conversation` for an answer here; throws 409 when it is being answered, here or
    /// on another replica.
    func begin(_ conversation: Named) async throws {
        guard answers[conversation] == nil else { throw Self.busy(conversation.id) }
        answers[conversation] = (nil, false)
        do {
            guard try await replicas?.claim(account: conversation.account, id: conversation.id) ?? true else {
                throw Self.busy(conversation.id)
            }
        } catch {
            answers[conversation] = nil
            throw error
        }
    }

    /// Records how to stop the answer that has started in `conversation`, and stops it at once
    /// when that was asked meanwhile.
    func started(_ conversation: Named, stop: @escaping @Sendable () -> Void) {
        if answers[conversation]?.stopAsked == true { stop() }
        answers[conversation] = (stop, false)
    }

    /// Stops the answer in `conversation` (as soon as it starts, if it has not yet), or asks the
    /// replica giving it to; false when none is being answered.
    func stop(_ conversation: Named) async throws -> Bool {
        if stopHere(conversation) { return true }
        return try await replicas?.askToStop(account: conversation.account, id: conversation.id) ?? false
    }

    /// Stops the answer in `conversation` if it is given here; whether it is.
    @discardableResult
    func stopHere(_ conversation: Named) -> Bool {
        guard let answer = answers[conversation] else { return false }
        if let stop = answer.stop { stop() } else { answers[conversation]?.stopAsked = true }
        return true
    }

    /// The conversations answered here now.
    var answeredHere: [(account: String, id: String)] { answers.keys.map { ($0.account, $0.id) } }

    /// Releases `conversation`.
    func end(_ conversation: Named) async {
        answers[conversation] = nil
        do {
            try await replicas?.release(account: conversation.account, id: conversation.id)
        } catch {
            // Unrenewed, the row frees itself after PostgresAnswers.staleAfter.
            logger.warning(
                "An answer's claim could not be released", metadata: ["conversation": "\(conversation.id)", "error": "\(error)"])
        }
    }

    /// Claims `conversation` as ``begin(_:)`` does; the claim lets it go.
    func claim(_ conversation: Named) async throws -> AnswerClaim {
        try await begin(conversation)
        return AnswerClaim(conversation, answering: self)
    }

    private static func busy(_ id: String) -> APIError {
        APIError(.conflict, "Conversation '\(id)' is being answered; wait for that answer or stop it", code: "conversation_busy")
    }
}

/// A conversation claimed for an answer (``AnsweringConversations/claim(_:)``), let go once: by
/// ``release()``, or when the claim is dropped unreleased. An answer streamed to a client that
/// went away before the response's head was written never runs, nor releases what it claimed;
/// dropped with it, the claim lets the conversation go.
final class AnswerClaim: Sendable {
    let conversation: AnsweringConversations.Named
    private let answering: AnsweringConversations
    private let released = Mutex(false)

    fileprivate init(_ conversation: AnsweringConversations.Named, answering: AnsweringConversations) {
        self.conversation = conversation
        self.answering = answering
    }

    /// Lets the conversation go, the first time it is called.
    func release() async {
        guard first() else { return }
        await answering.end(conversation)
    }

    /// Whether this is the first release.
    private func first() -> Bool {
        released.withLock { released in
            defer { released = true }
            return !released
        }
    }

    deinit {
        guard first() else { return }
        let (answering, conversation) = (answering, conversation)
        Task { await answering.end(conversation) }
    }
}

/// What keeps the answers of every replica in step, while the server runs: it renews the claims
/// of the answers given here every ``PostgresAnswers/renewal`` and stops those another replica
/// asked to stop, as notified and as found at each renewal.
struct ReplicaAnswers: Service {
    let answering: AnsweringConversations
    let replicas: PostgresAnswers
    let logger: Logger

    func run() async throws {
        let (answering, replicas, logger) = (answering, replicas, logger)
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            for asked in try await replicas.keepAlive(await answering.answeredHere) {
                                await answering.stopHere(.init(account: asked.account, id: asked.id))
                            }
                        } catch {
                            logger.warning("The answers' claims could not be renewed", metadata: ["error": "\(error)"])
                        }
                        try? await Task.sleep(for: PostgresAnswers.renewal)
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            try await replicas.listen { account, id in await answering.stopHere(.init(account: account, id: id)) }
                        } catch  where !Task.isCancelled {
                            logger.warning("Listening for stop requests failed; listening again", metadata: ["error": "\(error)"])
                            try? await Task.sleep(for: .seconds(1))
                        } catch {}
                    }
                }
            }
        }
    }
}
