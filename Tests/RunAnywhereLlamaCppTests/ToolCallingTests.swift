import Foundation
import RunAnywhereTestSupport
import Synchronization
import Testing

@testable import RunAnywhere

/// Tool calling on the default model: the call grammars as llama.cpp's grammar engine reads them,
/// and a weather tool and a calculator called, answered and used end to end.
extension LlamaTests {
    @Suite struct ToolCalling {
        static let weather = Tool(
            name: "get_weather", description: "Get the current weather in a city",
            parameters: [
                "type": "object",
                "properties": ["city": ["type": "string", "minLength": 1, "maxLength": 40], "unit": ["enum": ["celsius", "fahrenheit"]]],
                "required": ["city", "unit"], "additionalProperties": false,
            ])
        static let calculator = Tool(
            name: "calculate", description: "Evaluate an arithmetic expression",
            parameters: [
                "type": "object", "properties": ["expression": ["type": "string", "minLength": 1, "maxLength": 60]],
                "required": ["expression"],
                "additionalProperties": false,
            ])
        static let tools = [weather, calculator]

        struct WeatherArguments: Decodable {
            let city: String
            let unit: String
        }

        static let oslo = ToolCall(name: "get_weather", arguments: ["city": "Oslo", "unit": "celsius"])
        static let sum = ToolCall(name: "calculate", arguments: ["expression": "2 + 2"])

        static func grammar(_ format: ToolCallFormat, _ choice: ToolChoice, parallel: Bool = false, thinking: ThinkingTagPattern? = nil)
            throws -> String
        {
            try format.grammar(tools: tools, choice: choice, parallel: parallel, thinking: thinking)
        }

        static func expect(_ grammar: String, accepts good: [String], refuses bad: [String]) async throws {
            for text in good { #expect(try await StructuredOutput.accepts(grammar, text), "should accept \(text)\n\(grammar)") }
            for text in bad { #expect(try await !StructuredOutput.accepts(grammar, text), "should refuse \(text)\n\(grammar)") }
        }

        @Test func callGrammarsAcceptExactlyTheCallsTheChoiceAllows() async throws {
            for format in ToolCallFormat.allCases {
                let one = format.write([Self.oslo])
                let two = format.write([Self.oslo, Self.sum])
                let badUnit = format.write([ToolCall(name: "get_weather", arguments: ["city": "Oslo", "unit": "kelvin"])])
                let unknown = format.write([ToolCall(name: "get_time", arguments: [:])])
                let extra = format.write([ToolCall(name: "calculate", arguments: ["expression": "1", "x": 2])])
                let text = "It is sunny in Oslo."
                try await Self.expect(
                    try Self.grammar(format, .required), accepts: [one, format.write([Self.sum])],
                    refuses: [two, badUnit, unknown, extra, text])
                try await Self.expect(try Self.grammar(format, .required, parallel: true), accepts: [one, two], refuses: [badUnit])
                try await Self.expect(
                    try Self.grammar(format, .tool("calculate")), accepts: [format.write([Self.sum])], refuses: [one, text])
                try await Self.expect(
                    try Self.grammar(format, .auto), accepts: [one, text, "Yes."], refuses: [badUnit, " \(text)", "\(format.callOpener)b>"])
                try await Self.expect(try Self.grammar(format, .none), accepts: [text], refuses: [one])
                // A thinking model may think first.
                let thinking = try Self.grammar(format, .required, thinking: .defaultPattern)
                try await Self.expect(
                    thinking, accepts: ["<think>Oslo, so a < b.</think>\n\n" + one, one],
                    refuses: ["<think>unclosed " + one, "<think>a</think>\(text)"])
                try await Self.expect(
                    try Self.grammar(format, .auto, thinking: .defaultPattern), accepts: ["<think>\n</think>\(text)", text], refuses: [])
            }
        }

        @Test func weatherToolIsCalledAndItsResultUsed() async throws {
            let runtime = try await SharedModel.runtime.value
            let question = "What is the weather in Paris?"
            let first = try await runtime.generateWithTools(
                question, tools: Self.tools, toolChoice: .tool("get_weather"), options: greedy(60))
            #expect(first.stopReason == .toolCalls && first.text.isEmpty && first.toolCalls.count == 1, "\(first)")
            let call = try #require(first.toolCalls.first)
            let arguments = try call.decodeArguments(as: WeatherArguments.self)
            #expect(call.name == "get_weather" && !arguments.city.isEmpty && ["celsius", "fahrenheit"].contains(arguments.unit), "\(call)")
            // The result goes back as a tool message and the model answers with it.
            let context = Context(messages: [
                Message(role: .user, content: question), Message(role: .assistant, content: first.text, toolCalls: first.toolCalls),
                .toolResult("18 degrees Celsius and sunny", for: call),
            ])
            let answer = try await runtime.generateWithTools(continuing: context, tools: Self.tools, toolChoice: .none, options: greedy(60))
            #expect(answer.stopReason == .stop && answer.toolCalls.isEmpty, "\(answer)")
            #expect(
                answer.text.contains("18") || answer.text.contains("sunny"), "the answer does not use the tool's result: \(answer.text)")
        }

        @Test func calculatorIsCalledAndItsResultUsed() async throws {
            let runtime = try await SharedModel.runtime.value
            let question = "What is 12 times 7?"
            let first = try await runtime.generateWithTools(
                question, tools: Self.tools, toolChoice: .tool("calculate"), options: greedy(60))
            let call = try #require(first.toolCalls.first, "\(first)")
            let expression = try #require(call.arguments["expression"]?.stringValue)
            #expect(first.stopReason == .toolCalls && call.name == "calculate" && !expression.isEmpty)
            let context = Context(messages: [
                Message(role: .user, content: question), Message(role: .assistant, content: "", toolCalls: first.toolCalls),
                .toolResult("84", for: call),
            ])
            let answer = try await runtime.generateWithTools(continuing: context, tools: Self.tools, toolChoice: .none, options: greedy(40))
            #expect(answer.text.contains("84"), "the answer does not use the tool's result: \(answer.text)")
            // Required: one of the tools, whichever the model picks; auto: the model decides between
            // text and a call.
            let required = try await runtime.generateWithTools(question, tools: Self.tools, toolChoice: .required, options: greedy(60))
            #expect(
                required.stopReason == .toolCalls && required.toolCalls.count == 1
                    && Self.tools.contains { $0.name == required.toolCalls.first?.name })
            let free = try await runtime.generateWithTools(question, tools: Self.tools, options: greedy(60))
            if free.toolCalls.isEmpty {
                #expect(free.stopReason == .stop && !free.text.isEmpty && !free.text.hasPrefix("{"), "\(free.text)")
            } else {
                #expect(free.stopReason == .toolCalls && free.toolCalls.allSatisfy { call in Self.tools.contains { $0.name == call.name } })
            }
        }

        /// The SDK runs the tools: each call goes to the executor and its result back to the model
        /// until it answers in text, within the rounds allowed.
        @Test func toolsRunUntilTheModelAnswers() async throws {
            let runtime = try await SharedModel.runtime.value
            let calls = Mutex<[ToolCall]>([])
            let run = try await runtime.generateWithTools(
                "What is 12 times 7?", tools: Self.tools, toolChoice: .tool("calculate"), options: greedy(60), maxRounds: 2
            ) { call in
                calls.withLock { $0.append(call) }
                return "84"
            }
            #expect((1...2).contains(run.steps.count) && run.steps.map(\.call) == calls.withLock { $0 }, "\(run.steps)")
            #expect(run.steps.first?.call.name == "calculate" && run.steps.allSatisfy { $0.output == "84" })
            #expect(run.result.toolCalls.isEmpty && run.result.stopReason != .toolCalls, "\(run.result)")
            let messages = run.context.messages
            #expect(messages.first?.role == .user && messages.first?.content == "What is 12 times 7?")
            #expect(
                messages.last?.role == .assistant && messages.last?.content == run.result.text && messages.last?.toolCalls.isEmpty == true)
            #expect(messages.filter { $0.role == .tool }.map(\.toolCallId) == run.steps.map(\.call.id))
            // No rounds: the tools are withdrawn at once.
            let none = try await runtime.generateWithTools(
                "What is 12 times 7?", tools: Self.tools, toolChoice: .required, options: greedy(20), maxRounds: 0
            ) { call in
                Issue.record("no call runs: \(call)")
                return ""
            }
            #expect(none.steps.isEmpty && none.result.toolCalls.isEmpty)
            // What the executor throws ends the answer with it.
            struct Unreachable: Error {}
            await #expect(throws: Unreachable.self) {
                _ = try await runtime.generateWithTools(
                    "What is 12 times 7?", tools: Self.tools, toolChoice: .tool("calculate"), options: greedy(60)
                ) { _ in throw Unreachable() }
            }
            await expectSDKError(.invalidInput, ["maxRounds must be 0 or more"]) {
                _ = try await runtime.generateWithTools("Hi", tools: Self.tools, maxRounds: -1) { _ in "" }
            }
        }

        /// The Hermes format end to end, on the default model registered as one trained on it: the
        /// tools in `<tools>`, the call in `<tool_call>` tags, the result in `<tool_response>`.
        @Test func hermesFormatCallsAndAnswers() async throws {
            let models = FileManager.default.temporaryDirectory.appendingPathComponent("runanywhere-models-\(UUID())")
            defer { try? FileManager.default.removeItem(at: models) }
            let runtime = try await makeRuntime(load: false, models: models)
            let file = try #require(TestEnvironment.defaultModelFile)
            try runtime.catalog.add(
                ModelInfo(
                    id: "smollm2-hermes", name: "SmolLM2 with Hermes tools", category: .language, format: .gguf, framework: .llamaCpp,
                    localPath: file, source: .local, toolCallFormat: .hermes
                ))
            try await runtime.loadModel("smollm2-hermes", options: testLoadOptions)
            var options = greedy(60)
            options.tools = Self.tools
            options.toolChoice = .tool("get_weather")
            let prompt = try await runtime.preparePrompt("Weather in Rome?", options: options).prompt
            #expect(
                prompt.contains("<tools>\n{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"") && prompt.contains("<tool_call>"),
                "\(prompt)")
            let first = try await runtime.generateWithTools(
                "Weather in Rome?", tools: Self.tools, toolChoice: .tool("get_weather"), options: greedy(60))
            let call = try #require(first.toolCalls.first, "\(first)")
            #expect(
                first.stopReason == .toolCalls && call.name == "get_weather"
                    && (try? call.decodeArguments(as: WeatherArguments.self)) != nil)
            let context = Context(messages: [
                Message(role: .user, content: "Weather in Rome?"), Message(role: .assistant, content: "", toolCalls: [call]),
                .toolResult("25 C, clear", for: call),
            ])
            let answer = try await runtime.generateWithTools(continuing: context, tools: Self.tools, toolChoice: .none, options: greedy(40))
            #expect(answer.stopReason == .stop && !answer.text.isEmpty && !answer.text.hasPrefix("<"), "\(answer.text)")
            await runtime.unloadModel()
        }

        @Test func streamingKeepsCallsOutOfTheText() async throws {
            let runtime = try await SharedModel.runtime.value
            var options = greedy(60)
            options.tools = Self.tools
            options.toolChoice = .tool("get_weather")
            let generation = try await runtime.generateStream("Weather in Rome?", options: options)
            var streamed = ""
            for try await piece in generation.stream { streamed += piece }
            let result = try await generation.result.value
            #expect(streamed.isEmpty && result.toolCalls.first?.name == "get_weather", "streamed \(streamed)")
            // The typed events: no text, the call as its own event, then the result.
            var events: [GenerationEvent] = []
            for try await event in try await runtime.generateEvents("Weather in Rome?", options: options) { events.append(event) }
            let calls = events.compactMap { if case .toolCall(let call) = $0 { call } else { nil } }
            #expect(calls.map(\.name) == ["get_weather"], "\(events)")
            #expect(!events.contains { if case .text = $0 { true } else { false } }, "\(events)")
            guard case .completed(let final)? = events.last else {
                Issue.record("the result comes last: \(events)")
                return
            }
            #expect(final.toolCalls == calls && final.stopReason == .toolCalls)
        }

        /// Parallel calls allowed and one forced: the default model repeats its call; it is stopped
        /// at the repeat, and every complete call comes back once, with no call markup as text.
        @Test func parallelCallsComeBackOnceAndNeverAsText() async throws {
            let runtime = try await SharedModel.runtime.value
            var options = greedy(60)
            options.tools = [Self.weather]
            options.toolChoice = .required
            options.parallelToolCalls = true
            var events: [GenerationEvent] = []
            for try await event in try await runtime.generateEvents("What is the weather in Paris?", options: options) {
                events.append(event)
            }
            guard case .completed(let result)? = events.last else {
                Issue.record("the result comes last: \(events)")
                return
            }
            #expect(!result.toolCalls.isEmpty && [.toolCalls, .length].contains(result.stopReason), "\(result)")
            #expect(
                Set(result.toolCalls.map { "\($0.name) \($0.arguments)" }).count == result.toolCalls.count,
                "each call once: \(result.toolCalls)")
            #expect(result.text.isEmpty && !events.contains { if case .text = $0 { true } else { false } }, "\(events)")
        }

        @Test func badToolsAndShortBudgetsAreClear() async throws {
            let runtime = try await SharedModel.runtime.value
            func failure(_ tools: [Tool], _ choice: ToolChoice = .auto, maxTokens: Int = 20) async -> SDKError? {
                await #expect(throws: SDKError.self) {
                    try await runtime.generateWithTools("Hi", tools: tools, toolChoice: choice, options: greedy(maxTokens))
                }
            }
            #expect(
                await failure([Tool(name: "get weather", description: "")])?.message.contains("Invalid tool name 'get weather'") == true)
            #expect(await failure([Self.weather, Self.weather])?.message.contains("two tools are named 'get_weather'") == true)
            #expect(await failure(Self.tools, .tool("get_time"))?.message.contains("'get_time', which is not one of the tools") == true)
            #expect(
                await failure([Tool(name: "f", description: "", parameters: ["type": "array"])])?.message.contains(
                    "must describe an object") == true)
            let email = Tool(
                name: "mail", description: "", parameters: ["type": "object", "properties": ["to": ["type": "string", "format": "email"]]])
            #expect(await failure([email])?.message.contains("Tool 'mail': Unsupported JSON Schema at #/properties/to") == true)
            let short = await failure(Self.tools, .required, maxTokens: 3)
            #expect(
                short?.code == .generationFailed && short?.message.contains("used all 3 tokens before its tool call was complete") == true,
                "\(short?.message ?? "")")
            // A conversation whose calls have no results yet cannot go on.
            let pending = Context(messages: [
                Message(role: .user, content: "Weather?"), Message(role: .assistant, content: "", toolCalls: [Self.oslo]),
            ])
            let unanswered = await #expect(throws: SDKError.self) {
                try await runtime.generateWithTools(continuing: pending, tools: Self.tools)
            }
            #expect(unanswered?.message.contains("have no results yet") == true)
        }
    }
}
