import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// The one typed event stream per generation: thinking split from the answer once, at the
/// model's tags wherever the pieces are cut, trimmed exactly as the result is; `.completed` last;
/// the spec's ``LLMStreamingResult`` as a projection of it; ``GenerationEvents/cancel()`` ending
/// with a cancelled result. The scripted engine streams its prompt back word by word.
@Suite struct GenerationEventTests {
    static let texts = [
        "<think>\nWeigh the options.\n\nBlue or red?\n</think>\n\nBlue it is.",
        "No thinking at all, just an answer.",
        "  \n leading space kept without thinking",
        "<think>a</think>b<think> c </think> d",
        "<think>only thinking, never closed",
        "<think></think>\n\nEmpty thinking.",
        "An answer <thi that looks like a tag but is not </think",
    ]

    /// Splits `text` fed in `pieces` into (reasoning, answer, event count), checking the order.
    static func split(_ pieces: [String]) -> (reasoning: String, answer: String, sawThinking: Bool) {
        var splitter = GenerationEventSplitter(pattern: .defaultPattern, toolCalls: nil)
        var reasoning = ""
        var answer = ""
        for event in pieces.flatMap({ splitter.feed($0) }) + splitter.finish() {
            switch event {
            case .reasoning(let text): reasoning += text
            case .text(let text): answer += text
            case .toolCall, .completed, .logprobs, .promptLogprobs: Issue.record("the splitter makes only text and reasoning")
            }
        }
        #expect(splitter.reasoning == reasoning && splitter.answer == answer)
        return (reasoning, answer, splitter.sawThinking)
    }

    @Test(arguments: texts)
    func thinkingIsSplitOnceAndTrimmedAsTheResultIs(_ text: String) {
        let expected = ThinkingParser.split(text)
        var random = SeededGenerator(seed: UInt64(text.count))
        let characters = text.map(String.init)
        var cuts: [[String]] = [[text], characters]
        for _ in 0..<20 {
            var pieces: [String] = []
            var rest = Substring(text)
            while !rest.isEmpty {
                let size = Int.random(in: 1...5, using: &random)
                pieces.append(String(rest.prefix(size)))
                rest = rest.dropFirst(size)
            }
            cuts.append(pieces)
        }
        for pieces in cuts {
            let got = Self.split(pieces)
            #expect(got.answer == expected.response, "\(pieces)")
            #expect((got.sawThinking ? got.reasoning : nil) == expected.thinking, "\(pieces)")
        }
    }

    @Test func aGenerationsEventsEndWithItsResult() async throws {
        let runtime = try scriptedRuntime()
        try await runtime.loadModel("scripted")
        let events = try await runtime.generateEvents("<think> weigh the options </think> Blue it is")
        var collected: [GenerationEvent] = []
        for try await event in events { collected.append(event) }
        guard case .completed(let result)? = collected.last else {
            Issue.record("the last event is the result: \(collected)")
            return
        }
        #expect(collected.dropLast().allSatisfy { if case .completed = $0 { false } else { true } })
        let reasoning = collected.compactMap { if case .reasoning(let text) = $0 { text } else { nil } }
        let text = collected.compactMap { if case .text(let text) = $0 { text } else { nil } }
        #expect(reasoning.count > 1 && text.count > 1, "streamed in pieces: \(collected)")
        #expect(reasoning.joined() == "weigh the options" && result.thinkingContent == "weigh the options")
        #expect(text.joined() == "Blue it is" && result.text == "Blue it is")
        #expect(result.stopReason == .stop && result.thinkingTokens == 5)
    }

    /// The spec's streaming result is the events' projection: the reasoning inside the model's
    /// tags, then the answer, which splits back into the result.
    @Test func theStreamingResultProjectsTheEvents() async throws {
        let runtime = try scriptedRuntime()
        try await runtime.loadModel("scripted")
        let streaming = try await runtime.generateStream("<think> weigh the options </think> Blue it is")
        var text = ""
        for try await piece in streaming.stream { text += piece }
        let result = try await streaming.result.value
        #expect(text == "<think>weigh the options</think>Blue it is")
        let split = ThinkingParser.split(text)
        #expect(split.thinking == result.thinkingContent && split.response == result.text)
    }

    @Test func cancellingStopsTheEngineAndStillEndsWithTheResult() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 2))
        try await runtime.loadModel("scripted")
        let long = (1...200).map { "word\($0)" }.joined(separator: " ")
        let events = try await runtime.generateEvents(long)
        var texts = 0
        var last: GenerationEvent?
        for try await event in events {
            if case .text = event {
                texts += 1
                if texts == 2 { events.cancel() }
            }
            last = event
        }
        guard case .completed(let result)? = last else {
            Issue.record("a cancelled generation still ends with its result")
            return
        }
        #expect(result.stopReason == .cancelled && result.tokensUsed < 200)
        let next = try await runtime.generateEvents("still usable").result()
        #expect(next.text == "still usable")
    }

    /// A chat answer's events end like a generation's when it is cancelled: with the result the
    /// engine stopped with, which the message records.
    @Test func aCancelledChatAnswerStillEndsWithTheResult() async throws {
        let runtime = try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1))
        try await runtime.loadModel("scripted")
        let folder = try TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let chat = ChatService(runtime: runtime, store: ConversationStore(dataDirectory: folder), settings: GenerationSettings())
        let reply = try await chat.send((1...200).map { "word\($0)" }.joined(separator: " "))
        var last: GenerationEvent?
        for try await event in reply.events {
            if case .text = event { reply.events.cancel() }
            last = event
        }
        guard case .completed(let result)? = last else {
            Issue.record("a cancelled chat answer still ends with its result, not \(String(describing: last))")
            return
        }
        let message = await reply.message.value
        #expect(result.stopReason == .cancelled && message.content == result.text)
    }
}
