import Foundation

/// Drives one engine run and turns its token bytes into the generation's events and result:
/// whole UTF-8 characters only, stop sequences cut out, thinking split from the answer once
/// (``GenerationEventSplitter``), tool calls kept out of the streamed text and parsed into the
/// result (a model that repeats a call is stopped there), and the timings measured on one
/// monotonic clock.
struct GenerationPipeline {
    let modelID: String
    let framework: InferenceFramework
    /// Where the model runs (``LLMService/backend``).
    let backend: String
    let plan: PromptPlan
    let stopSequences: [String]
    /// The caller's stop sequences among ``stopSequences`` (the others end the chat template's
    /// turn): the one reached is the result's ``LLMGenerationResult/stopSequence``.
    var requestedStopSequences: [String] = []
    let thinkingPattern: ThinkingTagPattern
    /// When the model is offered tools: the format its calls come in.
    var toolCalls: ToolCallFormat? = nil
    /// Whether the request asked for the tokens' log-probabilities (``LLMGenerationOptions/logprobs``).
    var logprobs = false
    /// Whether it asked for the prompt's (``LLMGenerationOptions/promptLogprobs``).
    var promptLogprobs = false

    /// Runs `run` to its end, passing each `.reasoning`, `.text` and `.toolCall` event to `emit`,
    /// and returns the result (the caller sends `.completed`). Cancelling the calling task
    /// cancels the run; the result then says `.cancelled`.
    func drive(_ run: LLMEngineRun, startedAt start: ContinuousClock.Instant, emit: (GenerationEvent) -> Void) async throws
        -> LLMGenerationResult
    {
        var progress = Progress(self)
        do {
            try await withTaskCancellationHandler {
                for try await event in run.events where progress.take(event, emit: emit) {
                    run.cancel()
                    break
                }
            } onCancel: {
                run.cancel()
            }
        } catch {
            run.cancel()
            await run.waitUntilFinished()
            throw error
        }
        await run.waitUntilFinished()
        return progress.finish(startedAt: start, cancelled: Task.isCancelled, emit: emit)
    }

    /// What the pipeline has made of a run's events so far.
    struct Progress {
        let pipeline: GenerationPipeline
        var decoder = UTF8StreamDecoder()
        var stops: StopSequenceMatcher
        var thinking: GenerationEventSplitter
        var tokens = 0
        var thinkingTokens = 0
        var firstToken: ContinuousClock.Instant?
        var lastToken: ContinuousClock.Instant?
        var prompt: (evaluated: Int, cached: Int, seconds: Double) = (0, 0, 0)
        var imageEncodeSeconds: Double?
        var drafts: (drafted: Int, accepted: Int)?
        var history: [Double] = []
        var thinkingStart: ContinuousClock.Instant?
        var thinkingEnd: ContinuousClock.Instant?
        var stopReason = LLMStopReason.stop
        var logprobs: LogprobAttribution?
        var promptLogprobs: [TokenLogprob]?

        init(_ pipeline: GenerationPipeline) {
            self.pipeline = pipeline
            promptLogprobs = pipeline.promptLogprobs ? [] : nil
            logprobs = pipeline.logprobs ? LogprobAttribution() : nil
            stops = StopSequenceMatcher(sequences: pipeline.stopSequences)
            thinking = GenerationEventSplitter(pattern: pipeline.thinkingPattern, toolCalls: pipeline.toolCalls)
        }

        /// Takes the run's next event, passing what it makes to `emit`; true when the generation
        /// ends here (a stop sequence, or a tool call made again): the caller cancels the run and
        /// gives it no more events.
        mutating func take(_ event: LLMEngineEvent, emit: (GenerationEvent) -> Void) -> Bool {
            switch event {
            case .promptProcessed(let evaluated, let cached, let seconds):
                prompt = (evaluated, cached, seconds)
                if let promptLogprobs { emit(.promptLogprobs(promptLogprobs)) }
            case .promptLogprobs(let tokens):
                promptLogprobs?.append(contentsOf: tokens)
            case .imagesEncoded(_, _, let seconds):
                imageEncodeSeconds = (imageEncodeSeconds ?? 0) + seconds
            case .speculated(let drafted, let accepted):
                drafts = (drafted, accepted)
            case .tokenLogprob(let logprob):
                logprobs?.told(logprob)
            case .token(let bytes, let producedAt):
                logprobs?.generated(bytes.count)
                if firstToken == nil { firstToken = producedAt }
                lastToken = producedAt
                tokens += 1
                if let first = firstToken, tokens.isMultiple(of: SDKConstants.Limits.tokensPerSecondSampleInterval) {
                    let elapsed = (producedAt - first).inSeconds
                    if elapsed > 0 { history.append(Double(tokens) / elapsed) }
                }
                let wasThinking = thinking.isThinking
                let (text, stopped) = stops.feed(decoder.decode(bytes))
                output(text, emit: emit)
                if thinking.isThinking || wasThinking { thinkingTokens += 1 }
                if thinking.isThinking, thinkingStart == nil { thinkingStart = producedAt }
                if wasThinking, !thinking.isThinking { thinkingEnd = producedAt }
                if stopped {
                    stopReason = .stop
                    return true
                }
                if let format = pipeline.toolCalls, format.mayCompleteACall(text, answer: thinking.answer),
                    format.repeatsACall(thinking.answer)
                {
                    stopReason = .stop  // the calls so far are the answer; the repeat is dropped
                    return true
                }
            case .finished(let reason):
                switch reason {
                case .endOfGeneration: stopReason = .stop
                case .length: stopReason = .length
                case .cancelled: stopReason = .cancelled
                }
                let (tail, _) = stops.feed(decoder.finish())
                output(tail + stops.finish(), emit: emit, ending: true)
            }
            return false
        }

        /// Feeds `text`, let through by the stop sequences, to the splitter and emits what it
        /// makes, after the log-probabilities of the answer's tokens it shows (`ending`: the
        /// engine has stopped, and every token's text has been let through).
        private mutating func output(_ text: String, emit: (GenerationEvent) -> Void, ending: Bool = false) {
            let wasThinking = thinking.isThinking
            let events = text.isEmpty ? [] : thinking.feed(text)
            if logprobs != nil {
                logprobs?.letThrough(text.utf8.count, answer: !wasThinking && !thinking.isThinking, all: ending)
                if let event = logprobs?.event(before: events) { emit(event) }
            }
            events.forEach(emit)
        }

        /// Once the engine is done with the run: emits what the splitter held back (also after
        /// a stop sequence) and the tool calls, and returns the result.
        mutating func finish(startedAt start: ContinuousClock.Instant, cancelled: Bool, emit: (GenerationEvent) -> Void)
            -> LLMGenerationResult
        {
            if cancelled { stopReason = .cancelled }
            let held = thinking.finish()
            if let event = logprobs?.event(before: held) { emit(event) }
            held.forEach(emit)

            let end = ContinuousClock.now
            let reasoning = thinking.sawThinking ? thinking.reasoning : nil
            var text = thinking.answer
            var calls: [ToolCall] = []
            if let format = pipeline.toolCalls {
                // Also when the limit or a cancellation cut the answer: its complete calls are calls.
                (text, calls) = format.parse(thinking.answer)
                if !calls.isEmpty, stopReason == .stop { stopReason = .toolCalls }
                calls.forEach { emit(.toolCall($0)) }
            }
            let latency = (end - start).inSeconds
            let decodeSeconds = firstToken.flatMap { first in lastToken.map { ($0 - first).inSeconds } } ?? 0
            return LLMGenerationResult(
                text: text,
                thinkingContent: reasoning,
                // With images, the engine's count: the plan counted each image's marker as text.
                inputTokens: imageEncodeSeconds == nil ? pipeline.plan.inputTokens : prompt.evaluated + prompt.cached,
                tokensUsed: tokens,
                modelUsed: pipeline.modelID,
                latencyMs: latency * 1000,
                framework: pipeline.framework.displayName,
                backend: pipeline.backend,
                tokensPerSecond: latency > 0 ? Double(tokens) / latency : 0,
                timeToFirstTokenMs: firstToken.map { ($0 - start).inSeconds * 1000 },
                thinkingTokens: reasoning == nil ? nil : thinkingTokens,
                responseTokens: tokens - thinkingTokens,
                promptTokensPerSecond: prompt.seconds > 0 ? Double(prompt.evaluated) / prompt.seconds : 0,
                decodeTokensPerSecond: tokens > 1 && decodeSeconds > 0 ? Double(tokens - 1) / decodeSeconds : 0,
                cachedInputTokens: prompt.cached,
                stopReason: stopReason,
                tokensPerSecondHistory: history,
                thinkingTimeMs: thinkingStart.map { ((thinkingEnd ?? lastToken ?? $0) - $0).inSeconds * 1000 },
                imageEncodeTimeMs: imageEncodeSeconds.map { $0 * 1000 },
                toolCalls: calls,
                stopSequence: stops.matched.flatMap { pipeline.requestedStopSequences.contains($0) ? $0 : nil },
                draftTokens: drafts?.drafted,
                acceptedDraftTokens: drafts?.accepted,
                logprobs: logprobs?.sent,
                promptLogprobs: promptLogprobs
            )
        }
    }
}
