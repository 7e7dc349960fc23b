import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Synchronization
import Testing

extension LlamaTests {
    /// The chat service on the real default model: analytics against what was measured, every
    /// way an answer can end, retries, and a conversation continued after a restart.
    @Suite struct Chat {
        func makeChat(_ folder: URL, settings: GenerationSettings = .greedy(24), runtime: RunAnywhereRuntime? = nil) async throws
            -> ChatService
        {
            let shared = try await SharedModel.runtime.value
            return ChatService(runtime: runtime ?? shared, store: ConversationStore(dataDirectory: folder), settings: settings)
        }

        @Test func analyticsMatchWhatWasMeasured() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let chat = try await makeChat(folder, settings: .greedy(25))
            let reply = try await chat.send("Write a long story about a dragon who learns to fly.")
            var pieces: [String] = []
            for try await case .text(let piece) in reply.events { pieces.append(piece) }
            let message = await reply.message.value
            let analytics = try #require(message.analytics)
            #expect(message.content == pieces.joined())
            #expect(analytics.completionStatus == .complete && !analytics.wasInterrupted)
            #expect(analytics.outputTokens == 25, "maxTokens 25 on a long story")
            #expect(analytics.responseTokens == 25 && analytics.thinkingTokens == nil && !analytics.wasThinkingMode)
            let plan = try await chat.runtime.preparePrompt(
                "Write a long story about a dragon who learns to fly.", options: GenerationSettings.greedy(25).options)
            #expect(analytics.inputTokens == plan.inputTokens)
            #expect(try await chat.runtime.tokenCount(plan.prompt) == analytics.inputTokens, "counted with the model's tokenizer")
            let ttft = try #require(analytics.timeToFirstToken)
            #expect(ttft > 0 && ttft <= analytics.totalGenerationTime)
            #expect(analytics.tokensPerSecondHistory.count == 2, "sampled at tokens 10 and 20")
            #expect(abs(analytics.averageTokensPerSecond - 25 / analytics.totalGenerationTime) < 1e-9)
            #expect(analytics.messageLength == message.content.count)
            let context = try #require(await chat.runtime.loadedContextLength)
            #expect(abs(analytics.contextWindowUsage - Double(analytics.inputTokens + 25) / Double(context)) < 1e-9)
            #expect(analytics.generationMode == .streaming)
            #expect(analytics.generationParameters == .init(temperature: 0, maxTokens: 25, topP: 0.95, topK: 40))
            #expect(message.modelInfo?.modelId == RunAnywhere.defaultModelID)
            let conversation = await chat.conversation
            #expect(conversation.analytics?.messageCount == 2)
            #expect(conversation.analytics?.completionRate == 1)
            #expect(conversation.performanceSummary?.totalTokens == analytics.inputTokens + 25)
            #expect(try ConversationStore(dataDirectory: folder).load(id: conversation.id).messages.count == 2, "saved after the answer")
        }

        /// Tools in a chat: the calls run as the model makes them, the events of every round come in
        /// turn with one `.completed` last, and the answer is saved with its calls, the tokens of
        /// every round counted; the next answer reads the calls and their results.
        @Test func toolsRunInAnAnswerAndAreSavedWithIt() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let chat = try await makeChat(folder, settings: .greedy(60))
            let calls = Mutex<[ToolCall]>([])
            await chat.update(
                tools: ChatTools([ToolCalling.calculator], toolChoice: .tool("calculate"), maxRounds: 1) { call in
                    calls.withLock { $0.append(call) }
                    return "84"
                })
            let reply = try await chat.send("What is 12 times 7?")
            var events: [GenerationEvent] = []
            for try await event in reply.events { events.append(event) }
            let message = await reply.message.value
            let steps = try #require(message.toolSteps, "\(message)")
            #expect(steps.count == 1 && steps.map(\.call) == calls.withLock { $0 } && steps.first?.output == "84")
            #expect(steps.first?.call.name == "calculate" && message.analytics?.completionStatus == .complete, "\(message)")
            let called = events.compactMap { if case .toolCall(let call) = $0 { call } else { nil } }
            #expect(called == steps.map(\.call), "\(events)")
            #expect(events.filter { if case .completed = $0 { true } else { false } }.count == 1)
            guard case .completed(let result)? = events.last else {
                Issue.record("the result comes last: \(events)")
                return
            }
            #expect(result.toolCalls.isEmpty && message.content.hasSuffix(result.text))
            let analytics = try #require(message.analytics)
            #expect(analytics.outputTokens > result.tokensUsed, "the call's round counts too: \(analytics)")
            let saved = try ConversationStore(dataDirectory: folder).load(id: await chat.conversation.id)
            #expect(saved.messages.last?.toolSteps == steps, "saved with its calls")
            let context = await chat.conversation.contextMessages
            #expect(context.map(\.role) == [.user, .assistant, .tool] + (message.content.isEmpty ? [] : [.assistant]), "\(context)")
            #expect(
                context[1].toolCalls == steps.map(\.call) && context[2].content == "84" && context[2].toolCallId == steps.first?.call.id)
            // Without tools, an answer has none.
            await chat.update(tools: nil)
            let plain = try await chat.send("Thanks!")
            for try await _ in plain.events {}
            #expect(await plain.message.value.toolSteps == nil)
        }

        @Test func stoppedTimedOutAndFailedAnswersKeepTheirAnalytics() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let chat = try await makeChat(folder, settings: .greedy(400))

            let stopped = try await chat.send("Count from 1 to 500, one number per line.")
            var iterator = stopped.events.makeAsyncIterator()
            _ = try await iterator.next()
            stopped.message.cancel()
            let interrupted = await stopped.message.value
            #expect(interrupted.analytics?.completionStatus == .interrupted)
            #expect(interrupted.analytics?.wasInterrupted == true)
            #expect((interrupted.analytics?.outputTokens ?? 400) < 400)

            let slow = try await chat.send("Count from 1 to 500, one number per line.", timeout: .milliseconds(150))
            let timedOut = await slow.message.value
            #expect(timedOut.analytics?.completionStatus == .timeout)
            #expect((timedOut.analytics?.outputTokens ?? 400) < 400)

            let failing = try await chat.send(String(repeating: "ocean ", count: 1500))
            let failed = await failing.message.value
            #expect(failed.analytics?.completionStatus == .failed)
            #expect(failed.error?.contains("The prompt needs") == true)
            #expect(failed.analytics?.outputTokens == 0)

            let conversation = await chat.conversation
            #expect(conversation.messages.count == 6)
            #expect(conversation.analytics?.completionRate == 0)
            #expect(conversation.contextMessages.count == 4, "the failed exchange stays out of the context")
        }

        @Test func settingsApplyAndOptionsOverrideThem() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            var settings = GenerationSettings.greedy(5)
            settings.streaming = false
            let chat = try await makeChat(folder, settings: settings)
            let reply = try await chat.send("Tell me about the sea.")
            var pieces: [String] = []
            for try await case .text(let piece) in reply.events { pieces.append(piece) }
            let message = await reply.message.value
            #expect(message.analytics?.generationMode == .nonStreaming)
            #expect(message.analytics?.outputTokens == 5)
            #expect(pieces == [message.content], "without streaming the answer arrives whole")
            var longer = GenerationSettings.greedy(9).options
            longer.streamingEnabled = true
            let overridden = try await chat.send("Tell me about the sky.", options: longer).message.value
            #expect(overridden.analytics?.outputTokens == 9)
            var tooMany = GenerationSettings.greedy(1).options
            tooMany.maxTokens = 100_000
            let error = await #expect(throws: SDKError.self) { try await chat.send("Hi", options: tooMany) }
            #expect(error?.message.contains("does not fit the model's context") == true)
        }

        @Test func retryReplacesTheLastAnswer() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let chat = try await makeChat(folder, settings: .greedy(8))
            let first = try await chat.send("Name a fruit.").message.value
            let again = try await chat.retryLastAnswer().message.value
            #expect(again.analytics?.retryCount == 1)
            #expect(again.content == first.content, "greedy gives the same answer again")
            let twice = try await chat.retryLastAnswer().message.value
            #expect(twice.analytics?.retryCount == 2)
            #expect(await chat.conversation.messages.count == 2)
        }

        /// A conversation saved by one process and continued by another keeps its context.
        @Test func aConversationContinuedAfterARestartKeepsItsContext() async throws {
            let folder = try TestEnvironment.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let before = try await makeChat(folder)
            _ = try await before.send("The secret word is pineapple.").message.value
            let id = await before.conversation.id

            let restarted = try await makeRuntime()
            let store = ConversationStore(dataDirectory: folder)
            let after = ChatService(runtime: restarted, store: store, settings: .greedy(24), conversation: try store.load(id: id))
            let answer = try await after.send("What is the secret word?").message.value
            #expect(answer.content.lowercased().contains("pineapple"), "answer: \(answer.content)")
            #expect(try store.load(id: id).messages.count == 4)

            let fresh = try await makeChat(folder, runtime: restarted)
            let control = try await fresh.send("What is the secret word?").message.value
            #expect(!control.content.lowercased().contains("pineapple"), "without the earlier turn the model cannot know it")
        }
    }
}

extension GenerationSettings {
    /// Greedy, 1 thread, `maxTokens` tokens.
    static func greedy(_ maxTokens: Int) -> GenerationSettings {
        var settings = GenerationSettings()
        settings.temperature = 0
        settings.maxTokens = maxTokens
        settings.threads = 1
        return settings
    }
}
