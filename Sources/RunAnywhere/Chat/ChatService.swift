import Foundation
import Logging
import Synchronization

/// An answer being written: its events as they arrive, and the finished assistant message.
/// Reading the events is optional; to stop the answer, cancel ``events`` or ``message``.
public struct ChatReply: Sendable {
    /// The answer's events: its reasoning and text pieces, its tool calls, then `.completed`
    /// (see ``GenerationEvent``); without streaming, one piece of each kind. With
    /// ``ChatService/tools``, each round's pieces and calls come in turn, and `.completed` once,
    /// with the last round's result. This is the same
    /// ``GenerationEvents`` a generation of the runtime gives: ``GenerationEvents/cancel()``
    /// stops the answer, and the message still records it.
    public let events: GenerationEvents
    /// The assistant message with its analytics, once generation ends — also when it was
    /// stopped, timed out or failed (then ``ChatMessage/error`` says why). Cancelling this task
    /// stops the generation.
    public let message: Task<ChatMessage, Never>
}

/// A conversation with a language model, kept by the SDK: it builds the context from the saved
/// messages, applies the user's settings, measures every answer (``MessageAnalytics``), keeps
/// the conversation's analytics current and saves the conversation after every message; one
/// deleted meanwhile stays deleted (the answer then ending is not saved, the next message is
/// refused). The model is the runtime's current one (the CLI), or one the chat names
/// (``ChatModel/named(_:loadOptions:)``, the server), loaded on demand and lent to each answer.
public actor ChatService {
    /// The runtime whose loaded model answers.
    public nonisolated let runtime: RunAnywhereRuntime
    /// Where the conversation is saved.
    public nonisolated let store: ConversationStore
    /// The conversation so far.
    public private(set) var conversation: Conversation
    /// Generation defaults for answers that do not override them.
    public var settings: GenerationSettings
    /// The model that answers.
    public var model: ChatModel
    /// Tools the model may call in its answers, run as it calls them; nil offers none.
    public var tools: ChatTools?
    private let logger: Logger
    /// Whether the conversation is in the store: once it is, it is only replaced there, so one
    /// deleted meanwhile (by another request, process or replica) is not made again by an answer
    /// that ends later. Nil until the first message or retry asks, for a conversation given.
    private var stored: Bool?
    /// The title as this chat last read or saved it: one the store holds other than this was
    /// renamed meanwhile, and the chat's saves keep it.
    private var titleSeen: String?

    /// A chat continuing `conversation`, or a new one, answered by `model`.
    public init(
        runtime: RunAnywhereRuntime, store: ConversationStore, settings: GenerationSettings, conversation: Conversation? = nil,
        model: ChatModel = .current
    ) {
        self.runtime = runtime
        self.store = store
        self.settings = settings
        self.conversation = conversation ?? Conversation()
        self.model = model
        self.logger = runtime.configuration.logger
        self.stored = conversation == nil ? false : nil
        self.titleSeen = conversation?.title
    }

    /// Starts a new conversation.
    public func reset() {
        conversation = Conversation()
        stored = false
        titleSeen = nil
    }

    /// Replaces the settings.
    public func update(settings: GenerationSettings) {
        self.settings = settings
    }

    /// Replaces the tools the model may call; nil offers none.
    public func update(tools: ChatTools?) {
        self.tools = tools
    }

    /// Sends `text` as the user's next message and starts the answer. `options` override the
    /// settings; past `timeout` the answer is stopped and marked `timeout`. With `grounding`, the
    /// model answers from its passages (numbered, with the question) and the saved answer keeps
    /// them; the saved question is `text` as it is.
    public func send(
        _ text: String, grounding: ChatGrounding? = nil, options: LLMGenerationOptions? = nil, timeout: Duration? = nil
    ) async throws -> ChatReply {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw SDKError.llm(.emptyInput, "The message is empty") }
        let (model, options) = try await prepare(options)
        let history = conversation.contextMessages
        conversation.append(ChatMessage(role: .user, content: text))
        guard try await save() else { throw deleted }
        return answer(text, grounding: grounding, history: history, model: model, options: options, timeout: timeout, retryCount: 0)
    }

    /// Answers the last user message again, replacing the last answer (its retry count goes up),
    /// from the same passages when that answer was grounded on some.
    public func retryLastAnswer(options: LLMGenerationOptions? = nil, timeout: Duration? = nil) async throws -> ChatReply {
        guard let userIndex = conversation.messages.lastIndex(where: { $0.role == .user }) else {
            throw SDKError(.invalidInput, "There is no message to answer again")
        }
        let (model, options) = try await prepare(options)
        let previous = conversation.messages[(userIndex + 1)...].last { $0.role == .assistant }
        let question = conversation.messages[userIndex].content
        conversation.messages.removeSubrange((userIndex + 1)...)
        var earlier = conversation
        earlier.messages.removeSubrange(userIndex...)
        return answer(
            question, grounding: previous?.grounding, history: earlier.contextMessages, model: model, options: options, timeout: timeout,
            retryCount: (previous?.analytics?.retryCount ?? 0) + 1)
    }

    /// Saves the conversation: made in the store the first time, only replaced there after,
    /// keeping a title renamed meanwhile; false when it was deleted meanwhile.
    private func save() async throws -> Bool {
        let saved = try await store.persist(conversation, replacingOnly: stored == true, titleSeen: titleSeen)
        if saved {
            stored = true
            titleSeen = conversation.title
        }
        return saved
    }

    private var deleted: SDKError {
        SDKError.fileManagement(.fileNotFound, "Conversation \(conversation.id) was deleted")
    }

    /// The model and options of the next answer, checked; and whether the conversation the chat
    /// was given is in its store, so that answers replace it there and never make it again.
    private func prepare(_ overrides: LLMGenerationOptions?) async throws -> (ModelInfo, LLMGenerationOptions) {
        if stored == nil { stored = try await store.keeps(id: conversation.id) }
        let info: ModelInfo
        let contextLength: Int?
        switch model {
        case .current:
            guard let current = await runtime.currentModel, let length = await runtime.loadedContextLength else {
                throw RunAnywhereRuntime.noModelLoaded
            }
            (info, contextLength) = (current, length)
        case .named(let id, _):
            info = try runtime.model(id: id, category: .language)
            contextLength = await runtime.contextLength(ofLoaded: id) ?? info.contextLength
        }
        let options = overrides ?? settings.options
        try options.validate()
        if let contextLength, options.maxTokens >= contextLength {
            throw SDKError.llm(
                .invalidInput,
                "maxTokens \(options.maxTokens) does not fit the model's context of \(contextLength) tokens; choose fewer (`runanywhere settings set maxTokens N`)"
            )
        }
        return (info, options)
    }

    private func answer(
        _ question: String, grounding: ChatGrounding?, history: [Message], model: ModelInfo, options: LLMGenerationOptions,
        timeout: Duration?,
        retryCount: Int
    ) -> ChatReply {
        let text = grounding?.prompt(for: question) ?? question
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: GenerationEvent.self)
        let context = Context(systemPrompt: options.systemPrompt, messages: history)
        let timeoutFired = CancellationFlag()
        let runtime = self.runtime
        let chatModel = self.model
        let tools = self.tools
        let rounds = AnswerRounds()
        let started = Date()
        let clock = ContinuousClock.now
        let generationTask = Task<LLMGenerationResult, any Error> {
            do {
                let watchdog = timeout.map { limit in
                    Task {
                        try await Task.sleep(for: limit)
                        timeoutFired.cancel()
                        rounds.running.withLock { $0 }?.cancel()
                        rounds.tool.withLock { $0 }?.cancel()
                    }
                }
                defer { watchdog?.cancel() }
                // Round 0 answers the message; each later one reads the tool results of the one before.
                var conversation = history + [Message(role: .user, content: text)]
                func start(round: Int) async throws -> GenerationEvents {
                    var options = options
                    if let tools {
                        options.tools = tools.tools
                        options.toolChoice = round >= tools.maxRounds ? .none : round == 0 ? tools.toolChoice : .auto
                    }
                    let later = Context(systemPrompt: options.systemPrompt, messages: conversation)
                    let generation =
                        switch (chatModel, round) {
                        case (.current, 0): try await runtime.generateEvents(text, context: context, options: options)
                        case (.current, _): try await runtime.generateEvents(continuing: later, options: options)
                        case (.named(let id, let loadOptions), 0):
                            try await runtime.generateEvents(text, context: context, options: options, model: id, loadOptions: loadOptions)
                        case (.named(let id, let loadOptions), _):
                            try await runtime.generateEvents(continuing: later, options: options, model: id, loadOptions: loadOptions)
                        }
                    rounds.running.withLock { $0 = generation }
                    if timeoutFired.isCancelled { generation.cancel() }
                    return generation
                }
                // Without streaming the answer is passed on whole, exactly as it would have streamed.
                var whole = (reasoning: "", text: "")
                func pass(_ generation: GenerationEvents) async throws -> LLMGenerationResult {
                    try await withTaskCancellationHandler {
                        for try await event in generation {
                            switch event {
                            case .completed(let result): return result
                            case .reasoning(let piece) where !options.streamingEnabled: whole.reasoning += piece
                            case .text(let piece) where !options.streamingEnabled: whole.text += piece
                            case .toolCall where !options.streamingEnabled, .logprobs where !options.streamingEnabled: break
                            default: continuation.yield(event)
                            }
                        }
                        // The events end early when this task is cancelled: they end with the result the engine stopped with.
                        return try await generation.task.value
                    } onCancel: {
                        generation.cancel()
                    }
                }
                // Without streaming, a round's pieces and calls come once it ends, in the order they streamed.
                func flush(_ result: LLMGenerationResult) {
                    guard !options.streamingEnabled else { return }
                    if !whole.reasoning.isEmpty { continuation.yield(.reasoning(whole.reasoning)) }
                    if let logprobs = result.logprobs, !logprobs.isEmpty, !whole.text.isEmpty {
                        continuation.yield(.logprobs(logprobs))
                    }
                    if !whole.text.isEmpty { continuation.yield(.text(whole.text)) }
                    result.toolCalls.forEach { continuation.yield(.toolCall($0)) }
                    whole = ("", "")
                }
                var result = try await pass(try await start(round: 0))
                var round = 0
                while let tools, result.stopReason == .toolCalls, !result.toolCalls.isEmpty {
                    flush(result)
                    rounds.earlier.withLock { $0.append(result) }
                    conversation.append(Message(role: .assistant, content: result.text, toolCalls: result.toolCalls))
                    for call in result.toolCalls {
                        // A call the watchdog or a stop ends throws, ending the answer.
                        let running = Task { try await tools.execute(call) }
                        rounds.tool.withLock { $0 = running }
                        if timeoutFired.isCancelled { running.cancel() }
                        let started = ContinuousClock.now
                        defer { rounds.toolSeconds.withLock { $0 += (ContinuousClock.now - started).inSeconds } }
                        let output = try await withTaskCancellationHandler {
                            try await running.value
                        } onCancel: {
                            running.cancel()
                        }
                        rounds.steps.withLock { $0.append(ToolRunStep(call: call, output: output, round: round)) }
                        conversation.append(.toolResult(output, for: call))
                    }
                    try Task.checkCancellation()
                    if timeoutFired.isCancelled { throw CancellationError() }
                    round += 1
                    result = try await pass(try await start(round: round))
                }
                flush(result)
                continuation.yield(.completed(result))
                continuation.finish()
                return result
            } catch {
                continuation.finish(throwing: error)
                throw error
            }
        }
        let message = Task<ChatMessage, Never> {
            let outcome = await withTaskCancellationHandler {
                await generationTask.result
            } onCancel: {
                generationTask.cancel()
            }
            return await self.record(
                outcome, started: started, elapsed: (ContinuousClock.now - clock).inSeconds, model: model, options: options,
                timedOut: timeoutFired.isCancelled, retryCount: retryCount, grounding: grounding, rounds: rounds)
        }
        return ChatReply(events: GenerationEvents(events: stream, task: generationTask), message: message)
    }

    /// Turns the outcome into the assistant message with its analytics, and saves. An answer
    /// made in rounds of tool calls is all their text and reasoning, with each call, and counts
    /// all their tokens.
    private func record(
        _ outcome: Result<LLMGenerationResult, any Error>, started: Date, elapsed: TimeInterval, model: ModelInfo,
        options: LLMGenerationOptions, timedOut: Bool, retryCount: Int, grounding: ChatGrounding?, rounds answer: AnswerRounds
    ) async -> ChatMessage {
        let id = UUID()
        let result = try? outcome.get()
        let toolSteps = answer.steps.withLock { $0 }
        let rounds = answer.earlier.withLock { $0 } + (result.map { [$0] } ?? [])
        let joined = { (parts: [String?]) in parts.compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: "\n\n") }
        let content = joined(rounds.map(\.text))
        let status: MessageAnalytics.CompletionStatus =
            switch (outcome, timedOut) {
            case (_, true): .timeout
            case (.failure(let error), false): error is CancellationError ? .interrupted : .failed
            case (.success(let result), false): result.stopReason == .cancelled ? .interrupted : .complete
            }
        let contextLength = await runtime.contextLength(ofLoaded: model.id) ?? model.contextLength ?? 0
        let analytics = MessageAnalytics(
            id: id, conversationID: conversation.id, model: model, started: started, elapsed: elapsed, rounds: rounds,
            toolTime: answer.toolSeconds.withLock { $0 }, messageLength: content.count,
            status: status, mode: options.streamingEnabled ? .streaming : .nonStreaming, options: options,
            contextLength: contextLength, retryCount: retryCount
        )
        var failure: String?
        if case .failure(let error) = outcome, !(error is CancellationError) { failure = (error as? SDKError)?.message ?? "\(error)" }
        let message = ChatMessage(
            id: id, role: .assistant, content: content,
            thinkingContent: rounds.contains { $0.thinkingContent != nil } ? joined(rounds.map(\.thinkingContent)) : nil,
            analytics: analytics, modelInfo: MessageModelInfo(from: model), error: failure, grounding: grounding,
            toolSteps: toolSteps.isEmpty ? nil : toolSteps
        )
        conversation.append(message)
        conversation.modelName = model.name
        conversation.frameworkName = model.framework.displayName
        conversation.refreshAnalytics(currentModel: model.name)
        logger.debug(
            "Answer recorded",
            metadata: [
                "event": "\(SDKConstants.Events.messageCompleted)", "status": "\(status.rawValue)", "tokens": "\(analytics.outputTokens)",
            ])
        // Stopping an answer cancels the task that records it; its save must still happen (a
        // database query is abandoned when its task is cancelled), so it runs in a task of its own.
        do {
            if try await !Task(operation: { try await self.save() }).value {
                logger.info(
                    "The conversation was deleted while it was answered; the answer is not saved", metadata: ["id": "\(conversation.id)"])
            }
        } catch {
            logger.error("The conversation could not be saved", metadata: ["id": "\(conversation.id)", "error": "\(error)"])
        }
        return message
    }
}

/// What an answer's task shares with its watchdog and its record: the generation or tool call
/// running now (one generation per round of tool calls), and the tool calls made.
private final class AnswerRounds: Sendable {
    let running = Mutex<GenerationEvents?>(nil)
    /// The tool call running now, for the watchdog to stop.
    let tool = Mutex<Task<String, any Error>?>(nil)
    let steps = Mutex<[ToolRunStep]>([])
    /// The results of the rounds of calls, each added as its calls start.
    let earlier = Mutex<[LLMGenerationResult]>([])
    /// How long the tool calls took, all together.
    let toolSeconds = Mutex<TimeInterval>(0)
}

/// Which model a ``ChatService`` answers with.
public enum ChatModel: Sendable, Equatable {
    /// The current model (``RunAnywhere/loadModel(_:options:)``).
    case current
    /// The model `id`, loaded on demand with `loadOptions` and lent to each answer.
    case named(String, loadOptions: ModelLoadOptions = ModelLoadOptions())
}
