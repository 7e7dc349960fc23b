import Foundation

extension RunAnywhereRuntime {
    /// Generates an answer to `prompt` and returns it when complete.
    package func generate(_ prompt: String, options: LLMGenerationOptions? = nil) async throws -> LLMGenerationResult {
        try await generate(prompt, context: nil, options: options)
    }

    /// Generates the next assistant message of a conversation: `prompt` is the user's new
    /// message, `context` the conversation so far. Cancelling the calling task stops the engine.
    package func generate(_ prompt: String, context: Context?, options: LLMGenerationOptions? = nil) async throws -> LLMGenerationResult {
        let task = try start(try Self.turn(prompt), context: context, options: options) { _ in }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Starts generating an answer to `prompt`, streaming its text.
    package func generateStream(_ prompt: String, options: LLMGenerationOptions? = nil) throws -> LLMStreamingResult {
        try generateStream(prompt, context: nil, options: options)
    }

    /// Starts generating the next assistant message of a conversation, streaming its text.
    package func generateStream(_ prompt: String, context: Context?, options: LLMGenerationOptions? = nil) throws -> LLMStreamingResult {
        let turn = try Self.turn(prompt)
        let projection = LLMStreamingResult.Projection(thinkingPattern: current[.language]?.info.thinkingPattern ?? .defaultPattern)
        let (stream, task) = try generation(projection.project) { try start(turn, context: context, options: options, emit: $0) }
        return LLMStreamingResult(stream: stream, result: task)
    }

    /// Starts generating the next assistant message of a conversation (`context` may be nil) with
    /// the current model: its events, ending with `.completed` (see ``GenerationEvent``).
    /// Cancelling the iteration stops the engine within one decode step.
    package func generateEvents(_ prompt: String, context: Context? = nil, options: LLMGenerationOptions? = nil) throws -> GenerationEvents
    {
        let turn = try Self.turn(prompt)
        let unread = UnreadEvents()
        let (events, task) = try generation({ [$0] }, unread: unread) { try start(turn, context: context, options: options, emit: $0) }
        return GenerationEvents(events: events, task: task, unread: unread)
    }

    /// Starts generating the assistant's next message in `context` with the current model: its
    /// events, ending with `.completed`. `context` ends with the user's message, or with the
    /// assistant's tool calls and their results.
    package func generateEvents(continuing context: Context, options: LLMGenerationOptions?) throws -> GenerationEvents {
        let (history, turn) = try Self.split(context)
        let unread = UnreadEvents()
        let (events, task) = try generation({ [$0] }, unread: unread) { try start(turn, context: history, options: options, emit: $0) }
        return GenerationEvents(events: events, task: task, unread: unread)
    }

    /// Starts generating with the model `model`: its events, ending with `.completed`. Returns
    /// once the engine has taken the request, as
    /// ``generateStream(_:images:context:options:model:loadOptions:keepAlive:)`` does.
    public func generateEvents(
        _ prompt: String, images: [VLMImage] = [], context: Context?, options: LLMGenerationOptions?, model: String,
        loadOptions: ModelLoadOptions, keepAlive: KeepAlive? = nil
    ) async throws -> GenerationEvents {
        let unread = UnreadEvents()
        let (events, task, plan) = try await generation(
            turn: try Self.turn(prompt, images: images), context: context, options: options, model: model, loadOptions: loadOptions,
            keepAlive: keepAlive, unread: unread
        ) { [$0] }
        return GenerationEvents(events: events, task: task, promptTokens: plan.inputTokens, unread: unread)
    }

    /// Starts generating from `tokens`, the prompt as the model's token ids, read as they are
    /// (no chat template, nothing added or parsed), with the model `model`: its events, ending
    /// with `.completed`; otherwise as ``generateEvents(_:images:context:options:model:loadOptions:keepAlive:)``.
    package func generateEvents(
        tokens: [Int32], options: LLMGenerationOptions?, model: String, loadOptions: ModelLoadOptions, keepAlive: KeepAlive? = nil
    ) async throws -> GenerationEvents {
        guard !tokens.isEmpty else { throw SDKError.llm(.emptyInput, "The prompt has no tokens") }
        let unread = UnreadEvents()
        let (events, task, plan) = try await generation(
            turn: [], raw: .tokens(tokens), context: nil, options: options, model: model, loadOptions: loadOptions,
            keepAlive: keepAlive, unread: unread
        ) { [$0] }
        return GenerationEvents(events: events, task: task, promptTokens: plan.inputTokens, unread: unread)
    }

    /// Starts filling in the gap of `infill` with the model `model`, which must be one trained
    /// to fill in the middle (``FillInTheMiddleTokens``; otherwise ``ErrorCode/modelIncompatible``):
    /// its events, ending with `.completed`, whose text is what goes between the prefix and the
    /// suffix. The prompt is written with the model's own tokens, fitted to its context (see
    /// ``Infill``); otherwise as ``generateEvents(_:images:context:options:model:loadOptions:keepAlive:)``.
    public func generateEvents(
        infill: Infill, options: LLMGenerationOptions?, model: String, loadOptions: ModelLoadOptions, keepAlive: KeepAlive? = nil
    ) async throws -> GenerationEvents {
        let unread = UnreadEvents()
        let (events, task, plan) = try await generation(
            turn: [], raw: .infill(infill), context: nil, options: options, model: model, loadOptions: loadOptions,
            keepAlive: keepAlive, unread: unread
        ) { [$0] }
        return GenerationEvents(events: events, task: task, promptTokens: plan.inputTokens, unread: unread)
    }

    /// Generates the assistant's next message in `context` (ending with the user's message, or
    /// with tool calls and their results) with the model `model`: its events, ending with `.completed`.
    public func generateEvents(
        continuing context: Context, options: LLMGenerationOptions?, model: String, loadOptions: ModelLoadOptions,
        keepAlive: KeepAlive? = nil
    ) async throws -> GenerationEvents {
        let (history, turn) = try Self.split(context)
        let unread = UnreadEvents()
        let (events, task, plan) = try await generation(
            turn: turn, context: history, options: options, model: model, loadOptions: loadOptions, keepAlive: keepAlive, unread: unread
        ) { [$0] }
        return GenerationEvents(events: events, task: task, promptTokens: plan.inputTokens, unread: unread)
    }

    /// Starts generating with the model `model`, streaming its text. Returns once the model is
    /// loaded (if it was not) and the engine has taken the request, so that an unknown model, a
    /// bad request or image, a model that does not fit in memory or a full queue
    /// (``ErrorCode/busy``) throw here rather than in the stream. `images` go with the new
    /// message (a vision-language model only). The model is lent to this request until it ends;
    /// `keepAlive`, when given, replaces how long it stays loaded afterwards.
    public func generateStream(
        _ prompt: String, images: [VLMImage] = [], context: Context?, options: LLMGenerationOptions?, model: String,
        loadOptions: ModelLoadOptions, keepAlive: KeepAlive? = nil
    ) async throws -> LLMStreamingResult {
        let projection = LLMStreamingResult.Projection(thinkingPattern: try catalog.model(id: model).thinkingPattern ?? .defaultPattern)
        let (stream, task, _) = try await generation(
            turn: try Self.turn(prompt, images: images), context: context, options: options, model: model, loadOptions: loadOptions,
            keepAlive: keepAlive,
            project: projection.project
        )
        return LLMStreamingResult(stream: stream, result: task)
    }

    /// Starts generating the assistant's next message in `context` with the model `model`,
    /// streaming its text: `context` ends with the user's message, or with the assistant's tool
    /// calls and their results after it (``MessageRole/tool`` messages). Otherwise as
    /// ``generateStream(_:images:context:options:model:loadOptions:keepAlive:)``.
    public func generateStream(
        continuing context: Context, options: LLMGenerationOptions?, model: String, loadOptions: ModelLoadOptions,
        keepAlive: KeepAlive? = nil
    ) async throws -> LLMStreamingResult {
        let (history, turn) = try Self.split(context)
        let projection = LLMStreamingResult.Projection(thinkingPattern: try catalog.model(id: model).thinkingPattern ?? .defaultPattern)
        let (stream, task, _) = try await generation(
            turn: turn, context: history, options: options, model: model, loadOptions: loadOptions, keepAlive: keepAlive,
            project: projection.project
        )
        return LLMStreamingResult(stream: stream, result: task)
    }

    /// Admits `turn` (or the `raw` prompt) on the model `model` (loading it if needed) and
    /// starts generating; its events reach the stream through `project` (until `unread` is
    /// declared). Also returns the prompt's plan.
    private func generation<Element: Sendable>(
        turn: [Message], raw: RawPrompt? = nil, context: Context?, options: LLMGenerationOptions?, model: String,
        loadOptions: ModelLoadOptions, keepAlive: KeepAlive?, unread: UnreadEvents? = nil,
        project: @escaping @Sendable (GenerationEvent) -> [Element]
    ) async throws -> (stream: AsyncThrowingStream<Element, any Error>, task: Task<LLMGenerationResult, any Error>, plan: PromptPlan) {
        let model = try catalog.model(id: model)
        let options = options ?? model.generationOptions
        try options.validate()
        let admitted = try await admit(
            turn, raw: raw, context: context, options: options, model: model, loadOptions: loadOptions, keepAlive: keepAlive)
        let (stream, task) = try generation(project, unread: unread) { emit in track { try await self.drive(admitted, emit: emit) } }
        return (stream, task, admitted.pipeline.plan)
    }

    /// Generates the assistant's next message in `context`, which ends with the user's message or
    /// with the assistant's tool calls and their results (``MessageRole/tool`` messages).
    package func generate(continuing context: Context, options: LLMGenerationOptions? = nil) async throws -> LLMGenerationResult {
        let (history, turn) = try Self.split(context)
        let task = try start(turn, context: history, options: options) { _ in }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// The generation `start` starts with an emitter of its events, as a stream of what
    /// `project` makes of each event (`.completed` last; none once `unread` is declared), and the
    /// task that drives it.
    func generation<Element: Sendable>(
        _ project: @escaping @Sendable (GenerationEvent) -> [Element], unread: UnreadEvents? = nil,
        _ start: (@escaping @Sendable (GenerationEvent) -> Void) throws -> Task<LLMGenerationResult, any Error>
    ) throws -> (stream: AsyncThrowingStream<Element, any Error>, task: Task<LLMGenerationResult, any Error>) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
        let emit: @Sendable (GenerationEvent) -> Void = { event in
            guard unread?.isDeclared != true else { return }
            project(event).forEach { continuation.yield($0) }
        }
        let task = try start(emit)
        Task {
            switch await task.result {
            case .success(let result):
                emit(.completed(result))
                continuation.finish()
            case .failure(let error): continuation.finish(throwing: error)
            }
        }
        // The consumer cancelling its iteration (or dropping the stream unfinished) stops the engine.
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return (stream, task)
    }

    /// Validates the request and starts it on the current model as a task; `emit` receives the events.
    private func start(
        _ turn: [Message], context: Context?, options: LLMGenerationOptions?, emit: @escaping @Sendable (GenerationEvent) -> Void
    ) throws -> Task<LLMGenerationResult, any Error> {
        guard let current = current[.language] else { throw Self.noModelLoaded }
        let options = options ?? current.info.generationOptions
        try options.validate()
        return track {
            let admitted = try await self.admit(
                turn, context: context, options: options, model: current.info, loadOptions: current.options, keepAlive: nil)
            return try await self.drive(admitted, emit: emit)
        }
    }

    /// The new user message a prompt makes; an empty prompt is an error.
    static func turn(_ prompt: String, images: [VLMImage] = []) throws -> [Message] {
        guard !prompt.isEmpty else { throw SDKError.llm(.emptyInput, "The prompt is empty") }
        return [Message(role: .user, content: prompt, images: images)]
    }

    /// `context` cut before its last user message: the history, and the turn being answered (the
    /// user's message, then any tool calls and their results).
    static func split(_ context: Context) throws -> (Context, [Message]) {
        func bad(_ why: String) -> SDKError { SDKError.llm(.invalidInput, "Cannot continue the conversation: \(why)") }
        guard let userIndex = context.messages.lastIndex(where: { $0.role == .user }) else { throw bad("it has no user message") }
        let turn = Array(context.messages[userIndex...])
        for message in turn.dropFirst() where !(message.role == .tool || (message.role == .assistant && !message.toolCalls.isEmpty)) {
            throw bad(
                "after the last user message come only the assistant's tool calls and their results, not a \(message.role.rawValue) message\(message.role == .assistant ? " without tool calls" : "")"
            )
        }
        if turn.count > 1, turn.last?.role != .tool {
            throw bad("the assistant's tool calls have no results yet (add a tool message for each call)")
        }
        if let last = turn.last, last.role == .user, last.content.isEmpty, last.images.isEmpty {
            throw SDKError.llm(.emptyInput, "The prompt is empty")
        }
        let history = Context(
            systemPrompt: context.systemPrompt, messages: Array(context.messages[..<userIndex]), maxMessages: context.maxMessages,
            metadata: context.metadata)
        return (history, turn)
    }

    /// Runs `work` as a task that ``cancelGeneration()`` reaches.
    func track(_ work: @escaping @Sendable () async throws -> LLMGenerationResult) -> Task<LLMGenerationResult, any Error> {
        let id = UUID()
        let task = Task {
            defer { activeGenerations[id] = nil }
            return try await work()
        }
        activeGenerations[id] = task
        return task
    }

    /// Stops every running generation within one decode step; each ends with stop reason
    /// ``LLMStopReason/cancelled`` and the model stays loaded.
    package func cancelGeneration() {
        activeGenerations.values.forEach { $0.cancel() }
    }

    /// The prompt the current model would read for this request: formatted with its chat
    /// template, fitted to its context window, with its length in tokens.
    package func preparePrompt(_ prompt: String, context: Context? = nil, options: LLMGenerationOptions? = nil) throws -> PromptPlan {
        guard let service = currentService, let model = current[.language]?.info else { throw Self.noModelLoaded }
        return try Self.plan(
            try Self.turn(prompt), context: context, options: options ?? model.generationOptions, model: model, service: service
        ).plan
    }

    /// Token count of `text` for the current model.
    package func tokenCount(_ text: String) throws -> Int {
        guard let service = currentService else { throw Self.noModelLoaded }
        return try service.tokenCount(text, plainText: [])
    }

    static var noModelLoaded: SDKError {
        SDKError.llm(.notInitialized, "No language model is loaded; call loadModel(_:) first")
    }

    /// A request the engine has taken, with the model lent to it.
    struct Admitted: Sendable {
        let lease: ModelLease<any LLMService>
        let run: LLMEngineRun
        let pipeline: GenerationPipeline
        /// The pipeline run where the engine reports, for an engine that reports to receivers;
        /// otherwise ``drive(_:emit:)`` reads the run's events.
        let follower: GenerationFollower?
        let startedAt: ContinuousClock.Instant
    }

    /// Borrows `model` (loading it if needed), fits the prompt to its context and hands the
    /// request to the engine; the lease is given back if any step fails. An engine process that
    /// died before its word that it took the request came (``ErrorCode/engineCrashed`` here:
    /// killed while idle, just as the request came, or by the request's first steps, which the
    /// engine may start before that word is written) costs the request nothing: the model is
    /// loaded again and the request handed to it, once.
    func admit(
        _ turn: [Message], raw: RawPrompt? = nil, context: Context?, options: LLMGenerationOptions, model: ModelInfo,
        loadOptions: ModelLoadOptions, keepAlive: KeepAlive?
    ) async throws -> Admitted {
        try await againIfItsWorkerDied(model) {
            try await admitOnce(
                turn, raw: raw, context: context, options: options, model: model, loadOptions: loadOptions, keepAlive: keepAlive)
        }
    }

    private func admitOnce(
        _ turn: [Message], raw: RawPrompt?, context: Context?, options: LLMGenerationOptions, model: ModelInfo,
        loadOptions: ModelLoadOptions, keepAlive: KeepAlive?
    ) async throws -> Admitted {
        let start = ContinuousClock.now
        // An unsupported schema fails before the model loads.
        var grammar = try options.structuredOutput?.grammar()
        let adapters = try LoRAAdapter.resolve(
            options.loraAdapters ?? ownLoRAAdapters(of: model) ?? LoRAAdapter.fitting(defaultLoRAAdapters.withLock { $0 }, model),
            for: model
        ) { [catalog] id in
            (try? catalog.model(id: id)).flatMap { $0.category == .loraAdapter ? $0.primaryFile : nil }
        }
        if options.offersTools {
            _ = try ToolCallFormat.json.grammar(tools: options.tools, choice: options.toolChoice, parallel: true, thinking: nil)
        }
        let lease = try await acquire(model, options: loadOptions, keepAlive: keepAlive)
        do {
            let loaded = try Self.images(newImages: turn.flatMap(\.images), context: context, service: lease.engine, model: model)
            let thinking = lease.info.thinkingPattern
            var tokens: [Int32]?
            if let raw { tokens = try await self.tokens(of: raw, engine: lease.engine, model: lease.info, options: options) }
            let prepared =
                try tokens.map { tokens in
                    PreparedPrompt(
                        plan: try ContextWindow.fit(
                            rawPrompt: "", contextLength: lease.engine.contextLength, maxTokens: options.maxTokens,
                            countTokens: { _ in tokens.count }),
                        terminators: [], toolFormat: nil)
                } ?? Self.plan(turn, loaded: loaded, context: context, options: options, model: lease.info, service: lease.engine)
            let plan = prepared.plan
            if let format = prepared.toolFormat, grammar == nil {
                grammar = try format.grammar(
                    tools: options.tools, choice: options.toolChoice, parallel: options.parallelToolCalls, thinking: thinking)
            }
            let markers = PromptText(plan.prompt, plainText: plan.plainText).count(of: LLMEngineRequest.imageMarker)
            let shown = Array(loaded.suffix(markers).map(\.image))
            if plan.droppedMessages > 0 {
                logger.info(
                    "Dropped the oldest messages to fit the context window",
                    metadata: [
                        "event": "\(SDKConstants.Events.contextTrimmed)", "dropped": "\(plan.droppedMessages)",
                        "inputTokens": "\(plan.inputTokens)",
                    ])
            }
            let request = LLMEngineRequest(
                prompt: plan.prompt, plainText: plan.plainText, maxNewTokens: plan.maxNewTokens,
                sampling: options.sampling,
                threads: options.threads, reuseCache: options.reusePromptCache, images: shown, grammar: grammar,
                speculation: try options.speculation?.resolved(model: catalog.model(id:)), loraAdapters: adapters,
                logprobs: options.logprobs, promptLogprobs: options.promptLogprobs, promptTokens: tokens
            )
            let pipeline = GenerationPipeline(
                modelID: lease.info.id, framework: lease.framework, backend: lease.engine.backend, plan: plan,
                stopSequences: options.stopSequences + prepared.terminators,
                requestedStopSequences: options.stopSequences,
                thinkingPattern: thinking ?? .defaultPattern,
                toolCalls: options.offersTools ? prepared.toolFormat : nil,
                logprobs: options.logprobs != nil,
                promptLogprobs: options.promptLogprobs != nil
            )
            // An engine reads the request's adapter and draft model files as it takes the request: off the actor.
            let engine = lease.engine
            let (run, follower) =
                request.loraAdapters.isEmpty && request.speculation?.draftModel == nil
                ? try Self.start(request, on: engine, pipeline: pipeline)
                : try await runBlocking { try Self.start(request, on: engine, pipeline: pipeline) }
            return Admitted(lease: lease, run: run, pipeline: pipeline, follower: follower, startedAt: start)
        } catch {
            release(lease)
            throw error
        }
    }

    /// A prompt the engine reads as it is written, without a chat template.
    enum RawPrompt: Sendable {
        /// The model's token ids.
        case tokens([Int32])
        /// A gap to fill, written with the model's fill-in-the-middle tokens.
        case infill(Infill)
    }

    /// The token ids of `raw` for `engine`, the model `model`'s; an infill is tokenized on an
    /// engine thread (an engine worker answers each piece over its pipe).
    private func tokens(of raw: RawPrompt, engine: any LLMService, model: ModelInfo, options: LLMGenerationOptions) async throws
        -> [Int32]
    {
        let infill: Infill
        switch raw {
        case .tokens(let tokens): return tokens
        case .infill(let gap): infill = gap
        }
        guard let tokenizer = engine as? any TokenizerAdapter, let marks = tokenizer.fillInTheMiddleTokens else {
            throw SDKError.llm(
                .modelIncompatible,
                "Model '\(model.id)' was not trained to fill in the middle: its vocabulary has no fill-in-the-middle tokens (a code model such as Qwen2.5-Coder has them)"
            )
        }
        let room = ContextWindow.room(for: options.maxTokens, contextLength: engine.contextLength)
        let (tokens, trimmed) = try await runBlocking {
            try infill.tokens(in: tokenizer, marks: marks, contextLength: engine.contextLength, room: room)
        }
        if trimmed {
            logger.info(
                "Left out the start of the infill's prefix, the end of its suffix or its earliest files to fit the context window",
                metadata: ["event": "\(SDKConstants.Events.contextTrimmed)", "inputTokens": "\(tokens.count)"])
        }
        return tokens
    }

    /// Starts `request` on `engine`. An engine that reports to receivers gets a follower that
    /// runs `pipeline` where it reports: straight from the thread that reads an engine worker's
    /// pipe, and through the ``EventCourier`` from an in-process engine's decode loop; for any
    /// other, ``drive(_:emit:)`` reads the run's events.
    private static func start(_ request: LLMEngineRequest, on engine: any LLMService, pipeline: GenerationPipeline) throws
        -> (run: LLMEngineRun, follower: GenerationFollower?)
    {
        guard let engine = engine as? any LLMServiceWithReceivers else { return (try engine.startGeneration(request), nil) }
        let follower = GenerationFollower(pipeline)
        let receiver = engine is any RemoteEngine ? follower.receiver : EventCourier.shared.carrying(to: follower.receiver)
        let run = try engine.startGeneration(request, reportingTo: receiver)
        follower.follow(run)
        return (run, follower)
    }

    /// Drives an admitted request to its end, gives the model back and publishes the result.
    func drive(_ admitted: Admitted, emit: @escaping @Sendable (GenerationEvent) -> Void) async throws -> LLMGenerationResult {
        defer { release(admitted.lease) }
        let result =
            if let follower = admitted.follower {
                try await follower.result(emit: emit, startedAt: admitted.startedAt)
            } else {
                try await admitted.pipeline.drive(admitted.run, startedAt: admitted.startedAt, emit: emit)
            }
        events.publish(.generationCompleted(result))
        return result
    }

    /// A request's prompt, fitted to the context window, with the extra stop sequences a fallback
    /// template needs and the format of the tool calls (nil: the request has no tools).
    struct PreparedPrompt {
        let plan: PromptPlan
        let terminators: [String]
        let toolFormat: ToolCallFormat?
    }

    /// The prompt for `turn` (the new messages) after `context`, fitted to the context window.
    static func plan(
        _ turn: [Message], loaded: [(image: LoadedImage, tokens: Int)] = [], context: Context?, options: LLMGenerationOptions,
        model: ModelInfo,
        service: any LLMService, whole: Bool = false
    ) throws -> PreparedPrompt {
        // Whole: every message kept, however long, as a count of the request's tokens wants it.
        let contextLength = whole ? 1 << 40 : service.contextLength
        // A prompt's images count as the tokens each becomes; the last ones are those it shows.
        let count = { (prompt: PromptText) in
            let marker = LLMEngineRequest.imageMarker
            let text = prompt.removing(marker)
            let images = (prompt.text.utf8.count - text.text.utf8.count) / marker.utf8.count
            return try service.tokenCount(text.text, plainText: text.plainText) + loaded.suffix(images).reduce(0) { $0 + $1.tokens }
        }
        guard options.applyChatTemplate else {
            guard turn.count == 1, let message = turn.first else {
                throw SDKError.llm(.invalidInput, "A conversation with tool calls needs the chat template (applyChatTemplate)")
            }
            let raw = String(repeating: LLMEngineRequest.imageMarker, count: message.images.count) + message.content
            let plan = try ContextWindow.fit(
                rawPrompt: raw, contextLength: contextLength, maxTokens: options.maxTokens, countTokens: { try count(PromptText($0)) })
            return PreparedPrompt(plan: plan, terminators: [], toolFormat: nil)
        }
        // A model's own first messages and system prompt (``ModelDefaults``) come before the
        // conversation's, and its system prompt only where the conversation brings none.
        let first = model.defaults?.messages ?? []
        let history = first + (context?.messages ?? [])
        let format = ToolCallFormat.of(model, service: service)
        var systemText =
            options.systemPrompt ?? context?.systemPrompt ?? history.first { $0.role == .system }?.content ?? model.defaults?.systemPrompt
        let instruction =
            options.offersTools
            ? format.instruction(tools: options.tools, choice: options.toolChoice) : options.structuredOutput?.instruction
        if let instruction {
            systemText = [systemText, instruction].compactMap(\.self).joined(separator: "\n\n")
        }
        let system = systemText.map { Message(role: .system, content: $0) }
        var terminators: [String] = []
        // Tool calls and results as the template knows them; a model that reads images sees a
        // marker where each one stands, a text model only the text.
        let marked = { (messages: [Message]) in format.prepare(service.readsImages ? messages.map(\.markingImages) : messages) }
        let write: ([Message]) throws -> String
        if service.applyChatTemplate((system.map { [$0] } ?? []) + format.prepare(turn), addAssistantPrefix: true) != nil {
            write = { messages in
                guard let text = service.applyChatTemplate(marked(messages), addAssistantPrefix: true) else {
                    throw SDKError.llm(.generationFailed, "The model's chat template could not format the conversation")
                }
                return text
            }
        } else {
            let fallback = ChatTemplate.fallback(vocabularyContains: service.hasSpecialToken)
            terminators = fallback.turnTerminators
            write = { fallback.format(marked($0)) }
        }
        // The messages' text is read as text, the template's markup as the tokens it names.
        let render = { (messages: [Message]) in try PromptText.rendering(messages, with: write) }
        let plan = try ContextWindow.fit(
            system: system, history: history.filter { $0.role != .system }, newMessages: turn,
            maxMessages: (whole ? history.count : context?.maxMessages ?? 0) + first.count, contextLength: contextLength,
            maxTokens: options.maxTokens, dropsHistory: options.dropsOldestMessages,
            render: render, countTokens: count
        )
        return PreparedPrompt(plan: plan, terminators: terminators, toolFormat: options.tools.isEmpty ? nil : format)
    }

    /// The conversation's images then `newImages`, in the order a prompt shows them, loaded and
    /// checked, with the tokens each becomes; a plan keeps the last of them (the oldest messages
    /// are dropped first). A text model is shown none: earlier images of the conversation are
    /// left out, and new ones are an error.
    static func images(
        newImages: [VLMImage], context: Context?, service: any LLMService, model: ModelInfo
    ) throws -> [(image: LoadedImage, tokens: Int)] {
        guard service.readsImages else {
            guard newImages.isEmpty else {
                throw SDKError.llm(
                    .modelIncompatible,
                    "Model '\(model.id)' does not read images: it is a text model, or its vision projector (mmproj) is missing")
            }
            return []
        }
        return try ((context?.messages ?? []).flatMap(\.images) + newImages).map { image in
            let loaded = try image.load()
            return (loaded, try service.imageTokenCount(loaded))
        }
    }
}

extension Message {
    /// The message as a prompt template sees it: one image marker per image, then the text.
    var markingImages: Message {
        images.isEmpty
            ? self
            : Message(
                role: role, content: String(repeating: LLMEngineRequest.imageMarker, count: images.count) + content, metadata: metadata,
                timestamp: timestamp, toolCalls: toolCalls, toolCallId: toolCallId
            )
    }
}
