import Foundation

extension RunAnywhereRuntime {
    /// Generates an answer to `prompt` and returns it when complete.
    public func generate(_ prompt: String, options: LLMGenerationOptions? = nil) async throws -> LLMGenerationResult {
        try await generate(prompt, context: nil, options: options)
    }

    /// Generates the next assistant message of a conversation: `prompt` is the user's new
    /// message, `context` the conversation so far. Cancelling the calling task stops the engine.
    public func generate(_ prompt: String, context: Context?, options: LLMGenerationOptions? = nil) async throws -> LLMGenerationResult {
        let task = try start(prompt, context: context, options: options) { _ in }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Starts generating an answer to `prompt`, streaming its text.
    public func generateStream(_ prompt: String, options: LLMGenerationOptions? = nil) throws -> LLMStreamingResult {
        try generateStream(prompt, context: nil, options: options)
    }

    /// Starts generating the next assistant message of a conversation, streaming its text.
    public func generateStream(_ prompt: String, context: Context?, options: LLMGenerationOptions? = nil) throws -> LLMStreamingResult {
        try streaming { try start(prompt, context: context, options: options, emit: $0) }
    }

    /// Starts generating with the model `model`, streaming its text: the model is loaded (with
    /// `loadOptions`, replacing the loaded one) and used in one step, so a caller asking for
    /// another model at the same time waits instead of taking this one away mid-request.
    public func generateStream(
        _ prompt: String, context: Context?, options: LLMGenerationOptions?, model: String, loadOptions: ModelLoadOptions
    ) throws -> LLMStreamingResult {
        let model = try catalog.model(id: model)
        return try streaming { try start(prompt, context: context, options: options, model: (model, loadOptions), emit: $0) }
    }

    /// A streaming result over the generation `start` starts with the stream's emitter.
    private func streaming(
        _ start: (@escaping @Sendable (String) -> Void) throws -> Task<LLMGenerationResult, any Error>
    ) throws -> LLMStreamingResult {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: String.self)
        let task = try start { continuation.yield($0) }
        Task {
            switch await task.result {
            case .success: continuation.finish()
            case .failure(let error): continuation.finish(throwing: error)
            }
        }
        // The consumer cancelling its iteration (or dropping the stream unfinished) stops the engine.
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return LLMStreamingResult(stream: stream, result: task)
    }

    /// Validates the request and starts it as a task; `emit` receives the text pieces. With
    /// `model`, that model is loaded first if it is not the loaded one.
    private func start(
        _ prompt: String, context: Context?, options: LLMGenerationOptions?, model: (ModelInfo, ModelLoadOptions)? = nil,
        emit: @escaping @Sendable (String) -> Void
    ) throws -> Task<LLMGenerationResult, any Error> {
        let options = options ?? LLMGenerationOptions()
        try options.validate()
        guard !prompt.isEmpty else { throw SDKError.llm(.emptyInput, "The prompt is empty") }
        guard loaded != nil || model != nil else { throw Self.noModelLoaded }
        let id = UUID()
        let task = Task {
            defer { activeGenerations[id] = nil }
            return try await runGeneration(prompt, context: context, options: options, model: model, emit: emit)
        }
        activeGenerations[id] = task
        return task
    }

    /// Stops every running generation within one decode step; each ends with stop reason
    /// ``LLMStopReason/cancelled`` and the model stays loaded.
    public func cancelGeneration() {
        activeGenerations.values.forEach { $0.cancel() }
    }

    /// The prompt the loaded model would read for this request: formatted with its chat
    /// template, fitted to its context window, with its length in tokens.
    public func preparePrompt(_ prompt: String, context: Context? = nil, options: LLMGenerationOptions? = nil) throws -> PromptPlan {
        guard let loaded else { throw Self.noModelLoaded }
        return try Self.plan(prompt, context: context, options: options ?? LLMGenerationOptions(), service: loaded.service).0
    }

    /// Token count of `text` for the loaded model.
    public func tokenCount(_ text: String) throws -> Int {
        guard let loaded else { throw Self.noModelLoaded }
        return try loaded.service.tokenCount(text)
    }

    static var noModelLoaded: SDKError {
        SDKError.llm(.notInitialized, "No language model is loaded; call loadModel(_:) first")
    }

    private func runGeneration(
        _ prompt: String, context: Context?, options: LLMGenerationOptions, model: (ModelInfo, ModelLoadOptions)?,
        emit: @escaping @Sendable (String) -> Void
    ) async throws -> LLMGenerationResult {
        try await modelLock.withLock {
            if let (model, loadOptions) = model { try await load(model, options: loadOptions) }
            guard let loaded else { throw Self.noModelLoaded }
            let start = ContinuousClock.now
            let (plan, terminators) = try Self.plan(prompt, context: context, options: options, service: loaded.service)
            if plan.droppedMessages > 0 {
                logger.info("Dropped the oldest messages to fit the context window", metadata: [
                    "event": "\(SDKConstants.Events.contextTrimmed)", "dropped": "\(plan.droppedMessages)", "inputTokens": "\(plan.inputTokens)",
                ])
            }
            let request = LLMEngineRequest(
                prompt: plan.prompt, maxNewTokens: plan.maxNewTokens,
                sampling: LLMSampling(temperature: options.temperature, topP: options.topP, topK: options.topK, seed: options.seed),
                threads: options.threads, reuseCache: options.reusePromptCache
            )
            let pipeline = GenerationPipeline(
                modelID: loaded.info.id, framework: loaded.framework, plan: plan,
                stopSequences: options.stopSequences + terminators,
                thinkingPattern: loaded.info.thinkingPattern ?? .defaultPattern
            )
            return try await pipeline.drive(loaded.service.startGeneration(request), startedAt: start, emit: emit)
        }
    }

    /// The prompt for a request, fitted to the context window, and the extra stop sequences a
    /// fallback template needs.
    static func plan(
        _ prompt: String, context: Context?, options: LLMGenerationOptions, service: any LLMService
    ) throws -> (PromptPlan, [String]) {
        let count = { (text: String) in try service.tokenCount(text) }
        guard options.applyChatTemplate else {
            let plan = try ContextWindow.fit(rawPrompt: prompt, contextLength: service.contextLength, maxTokens: options.maxTokens, countTokens: count)
            return (plan, [])
        }
        let history = context?.messages ?? []
        let systemText = options.systemPrompt ?? context?.systemPrompt ?? history.first { $0.role == .system }?.content
        let system = systemText.map { Message(role: .system, content: $0) }
        let newMessage = Message(role: .user, content: prompt)
        let probe = (system.map { [$0] } ?? []) + [newMessage]
        var terminators: [String] = []
        let render: ([Message]) throws -> String
        if service.applyChatTemplate(probe, addAssistantPrefix: true) != nil {
            render = { messages in
                guard let text = service.applyChatTemplate(messages, addAssistantPrefix: true) else {
                    throw SDKError.llm(.generationFailed, "The model's chat template could not format the conversation")
                }
                return text
            }
        } else {
            let fallback = ChatTemplate.fallback(vocabularyContains: service.hasSpecialToken)
            terminators = fallback.turnTerminators
            render = { fallback.format($0) }
        }
        let plan = try ContextWindow.fit(
            system: system, history: history.filter { $0.role != .system }, newMessage: newMessage,
            maxMessages: context?.maxMessages ?? 0, contextLength: service.contextLength, maxTokens: options.maxTokens,
            render: render, countTokens: count
        )
        return (plan, terminators)
    }
}
