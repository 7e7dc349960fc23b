import Foundation
import Synchronization
import Testing

@testable import RunAnywhere

/// The pipeline between an engine and the caller, fed with scripted engine events (the real
/// engine is exercised in RunAnywhereLlamaCppTests).
@Suite struct GenerationPipelineTests {
    func pipeline(stops: [String] = [], logprobs: Bool = false, promptLogprobs: Bool = false) -> GenerationPipeline {
        GenerationPipeline(
            modelID: "m", framework: .llamaCpp, backend: "cpu",
            plan: PromptPlan(prompt: "p", inputTokens: 7, droppedMessages: 0, maxNewTokens: 50),
            stopSequences: stops, thinkingPattern: .defaultPattern, logprobs: logprobs, promptLogprobs: promptLogprobs
        )
    }

    /// Tokens as byte chunks that cut tags and multi-byte characters in the middle.
    static let tokens: [[UInt8]] = {
        let text = Array("<thi|nk>Plan: say ca|fé 🌍.</th|ink>\n\nCa|fé 🌍 is here.".utf8)
        // Split on '|' and also inside the multi-byte characters.
        var pieces: [[UInt8]] = [[]]
        for byte in text {
            if byte == UInt8(ascii: "|") { pieces.append([]) } else { pieces[pieces.count - 1].append(byte) }
            if byte >= 0xC0 { pieces.append([]) }
        }
        return pieces.filter { !$0.isEmpty }
    }()

    func scripted(_ tokens: [[UInt8]], end: LLMEngineStop = .endOfGeneration) -> LLMEngineRun {
        LLMEngineRun.start(Self.script(tokens, end: end))
    }

    /// An engine's reports of `tokens`, one decode step each.
    static func script(_ tokens: [[UInt8]], end: LLMEngineStop = .endOfGeneration) -> @Sendable (LLMEngineEmitter) throws -> Void {
        { emitter in
            emitter.emit(.promptProcessed(evaluated: 5, cached: 2, seconds: 0.01))
            for token in tokens {
                if emitter.isCancelled { return emitter.emit(.finished(.cancelled)) }
                emitter.emitToken(token)
                emitter.flush()
            }
            emitter.emit(.finished(end))
        }
    }

    /// How the runtime follows a run: reading its stream, or hearing it where the engine reports
    /// (on the engine's thread, or through the courier's).
    enum Way: CaseIterable, Sendable { case stream, receiver, courier }

    /// Runs `script` on a thread of its own as an engine would, and the pipeline over it `way`.
    func generate(
        _ way: Way, stops: [String] = [], _ script: @escaping @Sendable (LLMEngineEmitter) throws -> Void,
        emit: @escaping @Sendable (GenerationEvent) -> Void = { _ in }
    ) async throws -> LLMGenerationResult {
        guard way != .stream else { return try await pipeline(stops: stops).drive(LLMEngineRun.start(script), startedAt: .now, emit: emit) }
        let follower = GenerationFollower(pipeline(stops: stops))
        let (run, emitter) = LLMEngineRun.make(
            onCancel: nil, receiver: way == .courier ? EventCourier.shared.carrying(to: follower.receiver) : follower.receiver)
        follower.follow(run)
        Thread {
            do {
                try script(emitter)
                emitter.finish()
            } catch {
                emitter.finish(throwing: error)
            }
        }.start()
        return try await follower.result(emit: emit, startedAt: .now)
    }

    /// What a generation emitted, from whichever thread.
    final class Emitted: Sendable {
        private let events = Mutex<[GenerationEvent]>([])
        func add(_ event: GenerationEvent) { events.withLock { $0.append(event) } }
        var texts: [String] { events.withLock { $0.compactMap { if case .text(let text) = $0 { text } else { nil } } } }
    }

    @Test(arguments: Way.allCases) func eachWayGivesTheSameEventsAndResult(_ way: Way) async throws {
        let emitted = Emitted()
        let result = try await generate(way, Self.script(Self.tokens), emit: emitted.add)
        #expect(emitted.texts.joined() == "Café 🌍 is here.")
        #expect(result.text == "Café 🌍 is here.")
        #expect(result.thinkingContent == "Plan: say café 🌍.")
        #expect(result.tokensUsed == Self.tokens.count)
        #expect(result.cachedInputTokens == 2)
        #expect(result.stopReason == .stop)
    }

    @Test(arguments: Way.allCases) func aStopSequenceEndsTheRunEachWay(_ way: Way) async throws {
        let tokens = ["Hello", " wor", "ld\nUs", "er: more", " never"].map { Array($0.utf8) }
        let emitted = Emitted()
        let result = try await generate(way, stops: ["\nUser:"], Self.script(tokens), emit: emitted.add)
        #expect(emitted.texts.joined() == "Hello world")
        #expect(result.text == "Hello world")
        #expect(result.tokensUsed == 4)
    }

    @Test(arguments: Way.allCases) func cancellingTheCallerStopsTheEngineEachWay(_ way: Way) async throws {
        let tokens = Mutex(0)
        let task = Task {
            try await generate(way) { emitter in
                while !emitter.isCancelled {
                    emitter.emitToken(Array("a".utf8))
                    emitter.flush()
                    tokens.withLock { $0 += 1 }
                    Thread.sleep(forTimeInterval: 0.001)
                }
                emitter.emit(.finished(.cancelled))
            }
        }
        while tokens.withLock({ $0 }) < 5 { try await Task.sleep(for: .milliseconds(1)) }
        task.cancel()
        // The result comes once the engine is done with the run: it saw the cancellation.
        let result = try await task.value
        #expect(result.stopReason == .cancelled)
    }

    @Test(arguments: Way.allCases) func engineErrorsReachTheCallerEachWay(_ way: Way) async throws {
        let error = await #expect(throws: SDKError.self) {
            try await generate(way) { emitter in
                emitter.emitToken(Array("a".utf8))
                throw SDKError.llm(.generationFailed, "boom")
            }
        }
        #expect(error?.message == "boom")
    }

    /// Each token's log-probability goes out just before the text that shows it: the answer's
    /// tokens (also one whose character ends in the next), not the reasoning's, not the one a stop
    /// sequence cuts; the result has the same tokens.
    @Test func logprobsGoWithTheAnswerTextTheirTokensShow() async throws {
        let tokens: [[UInt8]] = ["<think>", "Plan", ".", "</think>", "\n\n", "Caf", "\u{E9}", " 🌍", " is", " here", "."].enumerated()
            .flatMap { index, text in index == 6 ? [[0xC3], [0xA9]] : [Array(text.utf8)] }
        let script: @Sendable (LLMEngineEmitter) throws -> Void = { emitter in
            for (index, token) in tokens.enumerated() {
                emitter.emit(.tokenLogprob(TokenLogprob(id: Int32(index), bytes: token, logprob: -Float(index))))
                emitter.emitToken(token)
            }
            emitter.emit(.finished(.endOfGeneration))
        }
        var events: [GenerationEvent] = []
        let result = try await pipeline(stops: ["here"], logprobs: true).drive(LLMEngineRun.start(script), startedAt: .now) {
            events.append($0)
        }
        #expect(result.text == "Café 🌍 is ")
        #expect(result.logprobs?.map(\.id) == [4, 5, 6, 7, 8, 9])
        var sent: [Int32] = []
        for (index, event) in events.enumerated() {
            guard case .logprobs(let tokens) = event else { continue }
            sent += tokens.map(\.id)
            guard index + 1 < events.count, case .text = events[index + 1] else {
                Issue.record("a .logprobs event not followed by text: \(events)")
                continue
            }
        }
        #expect(sent == [4, 5, 6, 7, 8, 9])
        let plain = try await pipeline(stops: ["here"]).drive(LLMEngineRun.start(script), startedAt: .now) { events.append($0) }
        #expect(plain.logprobs == nil)
    }

    /// The prompt's log-probabilities, reported in pieces while the engine reads the prompt, go
    /// out joined in one event before any other, and in the result; none when not asked for.
    @Test func thePromptsLogprobsComeFirstInOneEvent() async throws {
        let prompt = (1...5).map { TokenLogprob(id: Int32($0), bytes: Array(" p\($0)".utf8), logprob: -Float($0)) }
        let script: @Sendable (LLMEngineEmitter) throws -> Void = { emitter in
            emitter.emit(.promptLogprobs(Array(prompt.prefix(2))))
            emitter.emit(.promptLogprobs(Array(prompt.dropFirst(2))))
            emitter.emit(.promptProcessed(evaluated: 6, cached: 0, seconds: 0.01))
            emitter.emitToken(Array("Yes".utf8))
            emitter.emit(.finished(.endOfGeneration))
        }
        var events: [GenerationEvent] = []
        let result = try await pipeline(promptLogprobs: true).drive(LLMEngineRun.start(script), startedAt: .now) { events.append($0) }
        #expect(
            events.first == .promptLogprobs(prompt)
                && events.dropFirst().allSatisfy { if case .promptLogprobs = $0 { false } else { true } })
        #expect(result.promptLogprobs == prompt && result.text == "Yes")
        let plain = try await pipeline().drive(LLMEngineRun.start(script), startedAt: .now) { _ in }
        #expect(plain.promptLogprobs == nil)
    }

    @Test func splitsThinkingAndKeepsCharactersWhole() async throws {
        var events: [GenerationEvent] = []
        let result = try await pipeline().drive(scripted(Self.tokens), startedAt: .now) { events.append($0) }
        let pieces = events.map { event in
            switch event {
            case .reasoning(let text): "R:" + text
            case .text(let text): text
            case .toolCall, .completed, .logprobs, .promptLogprobs: "?"
            }
        }
        #expect(pieces.filter { $0.hasPrefix("R:") }.map { $0.dropFirst(2) }.joined() == "Plan: say café 🌍.")
        #expect(pieces.filter { !$0.hasPrefix("R:") }.joined() == "Café 🌍 is here.")
        #expect(!pieces.contains { $0.contains("\u{FFFD}") })
        #expect(result.thinkingContent == "Plan: say café 🌍.")
        #expect(result.text == "Café 🌍 is here.")
        #expect(result.tokensUsed == Self.tokens.count)
        #expect(result.thinkingTokens.map { $0 > 0 && $0 < result.tokensUsed } == true)
        #expect(result.responseTokens == result.tokensUsed - (result.thinkingTokens ?? 0))
        #expect(result.inputTokens == 7)
        #expect(result.cachedInputTokens == 2)
        #expect(result.promptTokensPerSecond == 500)
        #expect(result.stopReason == .stop)
        #expect(result.timeToFirstTokenMs.map { $0 <= result.latencyMs } == true)
    }

    @Test func stopSequenceEndsTheTextAndTheRun() async throws {
        let tokens = ["Hello", " wor", "ld\nUs", "er: more", " never"].map { Array($0.utf8) }
        var pieces: [String] = []
        let result = try await pipeline(stops: ["\nUser:"]).drive(scripted(tokens), startedAt: .now) {
            if case .text(let text) = $0 { pieces.append(text) }
        }
        #expect(pieces.joined() == "Hello world")
        #expect(result.text == "Hello world")
        #expect(result.stopReason == .stop)
        #expect(result.tokensUsed == 4)
    }

    @Test func lengthStop() async throws {
        let result = try await pipeline().drive(scripted([Array("a".utf8)], end: .length), startedAt: .now) { _ in }
        #expect(result.stopReason == .length)
    }

    @Test func engineErrorsReachTheCaller() async throws {
        let run = LLMEngineRun.start { _ in throw SDKError.llm(.generationFailed, "boom") }
        let error = await #expect(throws: SDKError.self) { try await pipeline().drive(run, startedAt: .now) { _ in } }
        #expect(error?.message == "boom")
    }

    /// Answers that run until cancelled, more of them than there are engine threads, leave those
    /// threads to the loads and transcriptions that queue for them.
    @Test(.timeLimit(.minutes(1))) func longAnswersLeaveTheEngineThreadsFree() async throws {
        let runs = (0...EngineThreads.count).map { _ in
            LLMEngineRun.start { emitter in
                let started = ContinuousClock.now
                while !emitter.isCancelled && ContinuousClock.now - started < .seconds(120) { Thread.sleep(forTimeInterval: 0.005) }
                emitter.emit(.finished(.cancelled))
            }
        }
        #expect(try await runBlocking { "loaded" } == "loaded")
        for run in runs { run.cancel() }
        for run in runs { await run.waitUntilFinished() }
    }
}
