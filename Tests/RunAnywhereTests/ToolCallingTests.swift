import Foundation
import Testing

@testable import RunAnywhere

/// Tool calling without a model: the two call formats (writing, parsing, the prompt's tool
/// results), the filter that keeps calls out of streamed text, the request checks, and the
/// conversation types' JSON.
struct ToolCallingTests {
    let oslo = ToolCall(id: "call_1", name: "get_weather", arguments: ["city": "Oslo", "unit": "celsius"])
    let sum = ToolCall(id: "call_2", name: "calculate", arguments: ["expression": "2 + 2"])

    @Test func eachFormatParsesTheCallsItWrites() throws {
        for format in ToolCallFormat.allCases {
            let parsed = format.parse(format.write([oslo, sum]))
            #expect(parsed.content.isEmpty)
            #expect(
                parsed.calls.map(\.name) == ["get_weather", "calculate"]
                    && parsed.calls.map(\.arguments) == [oslo.arguments, sum.arguments])
            #expect(Set(parsed.calls.map(\.id)).count == 2 && parsed.calls.allSatisfy { $0.id.hasPrefix("call_") && $0.id.count == 29 })
            // Text that is no call stays text.
            let text = format.parse("It is sunny.")
            #expect(text.content == "It is sunny." && text.calls.isEmpty)
        }
        #expect(ToolCallFormat.json.parse(#"{"answer": 4}"#).calls.isEmpty)
        #expect(ToolCallFormat.json.parse(#"{"tool_calls": [{"name": "f", "arguments": "not an object"}]}"#).calls.isEmpty)
        let hermes = ToolCallFormat.hermes.parse(
            "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>")
        #expect(hermes.content == "Let me look." && hermes.calls.first?.arguments["city"] == "Oslo")
        // A call cut off before its end is no call, and its markup no text.
        let cut = ToolCallFormat.hermes.parse("<tool_call>\n{\"name\": \"get_weather\", \"argu")
        #expect(cut.calls.isEmpty && cut.content.isEmpty)
        #expect(ToolCallFormat.detect(chatTemplate: "{% for tool in tools %}<tool_call>{% endfor %}") == .hermes)
        #expect(ToolCallFormat.detect(chatTemplate: "<|im_start|>") == .json && ToolCallFormat.detect(chatTemplate: nil) == .json)
    }

    /// An answer cut by its token limit keeps its complete calls and drops the unfinished last
    /// one; a call repeated exactly counts once (small models given parallel calls write the same
    /// call until their limit); the markup never becomes text.
    @Test func anAnswerCutShortKeepsItsCompleteCallsOnce() throws {
        let paris = #"{"name": "get_weather", "arguments": {"city": "Paris", "note": "a } and a \" inside"}}"#
        let cut = #"{"name": "get_weather", "arguments": {"#
        let json = ToolCallFormat.json.parse(#"{"tool_calls": [\#(paris), \#(paris), \#(cut)"#)
        #expect(json.content.isEmpty && json.calls.count == 1, "\(json)")
        #expect(json.calls.first?.arguments["note"] == #"a } and a " inside"#)
        for early in [#"{"tool_calls": [{"name": "get_w"#, #"{"tool_"#, "{"] {
            let parsed = ToolCallFormat.json.parse(early)
            #expect(parsed.content.isEmpty && parsed.calls.isEmpty, "\(early): \(parsed)")
        }
        let hermesCall = "<tool_call>\n\(paris)\n</tool_call>"
        let hermes = ToolCallFormat.hermes.parse("\(hermesCall)\n\(hermesCall)\n<tool_call>\n\(cut)")
        #expect(hermes.content.isEmpty && hermes.calls.count == 1, "\(hermes)")
        // Repeats: the pipeline stops the model at the first one.
        let other = #"{"name": "calculate", "arguments": {"expression": "2 + 2"}}"#
        #expect(!ToolCallFormat.json.repeatsACall(#"{"tool_calls": [\#(paris), \#(other)"#))
        #expect(ToolCallFormat.json.repeatsACall(#"{"tool_calls": [\#(paris), \#(other), \#(paris)"#))
        #expect(!ToolCallFormat.json.repeatsACall(#"{"tool_calls": [\#(paris), \#(cut)"#))
        #expect(ToolCallFormat.hermes.repeatsACall("\(hermesCall)\n\(hermesCall)") && !ToolCallFormat.hermes.repeatsACall(hermesCall))
        // The whole answer is read again only when a piece may have completed a call.
        #expect(ToolCallFormat.json.mayCompleteACall("}}", answer: #" {"tool_calls": [\#(paris)"#))
        #expect(!ToolCallFormat.json.mayCompleteACall("}", answer: "int main() { return 0; }"), "prose or code")
        #expect(!ToolCallFormat.json.mayCompleteACall(#"": "#, answer: #"{"tool_calls": [{"name": ""#))
        #expect(ToolCallFormat.hermes.mayCompleteACall("call>", answer: "\(hermesCall)"))
        #expect(ToolCallFormat.hermes.mayCompleteACall(">\nMore", answer: "\(hermesCall)\nMore"), "the tag ends inside the piece")
        #expect(!ToolCallFormat.hermes.mayCompleteACall("<b>", answer: "\(hermesCall)\nSome <b>"), "markup after a call")
    }

    @Test func toolResultsBecomeTurnsTheTemplateKnows() {
        let messages = [
            Message(role: .user, content: "Weather in Oslo, and 2 + 2?"),
            Message(role: .assistant, content: "", toolCalls: [oslo, sum]),
            .toolResult("18 C", for: oslo), .toolResult("4", for: sum),
        ]
        let json = ToolCallFormat.json.prepare(messages)
        #expect(json.map(\.role) == [.user, .assistant, .user])
        #expect(json[1].content == ToolCallFormat.json.write([oslo, sum]) && json[1].toolCalls.isEmpty)
        #expect(json[2].content == "Result of the tool get_weather: 18 C\nResult of the tool calculate: 4")
        let hermes = ToolCallFormat.hermes.prepare(messages)
        #expect(hermes[2].content == "<tool_response>\n18 C\n</tool_response>\n<tool_response>\n4\n</tool_response>")
        // The instruction lists every tool and, for a named choice, says which to call.
        let tool = Tool(
            name: "get_weather", description: "Weather now", parameters: ["type": "object", "properties": ["city": ["type": "string"]]])
        let instruction = ToolCallFormat.hermes.instruction(tools: [tool], choice: .tool("get_weather"))
        #expect(instruction.contains(#"{"type":"function","function":{"name":"get_weather","description":"Weather now","parameters":"#))
        #expect(instruction.hasSuffix("Answer by calling the tool get_weather."))
    }

    @Test func streamedTextLeavesOutTheCalls() {
        func stream(_ pieces: [String], _ format: ToolCallFormat) -> String {
            var filter = ToolCallStreamFilter(format: format)
            return pieces.map { filter.feed($0) }.joined() + filter.finish()
        }
        #expect(stream(["{\"tool", "_calls\": []}"], .json) == "")
        #expect(stream(["\n", " Hello", " there"], .json) == "\n Hello there")
        #expect(stream(["  ", "\n{\"tool_calls\""], .json) == "")
        #expect(stream(["<tool_call>\n{}", "\n</tool_call>"], .hermes) == "")
        #expect(stream(["<b>bold</b>"], .json) == "<b>bold</b>" && stream(["Fine."], .hermes) == "Fine.")
        // A thinking model's answer: the splitter passes on the answer only, calls kept out.
        var splitter = GenerationEventSplitter(pattern: .defaultPattern, toolCalls: .json)
        let events = ["<thi", "nk>a <", "/thi", "nk>\n", "{\"tool_calls\""].flatMap { splitter.feed($0) } + splitter.finish()
        #expect(events == [.reasoning("a")], "\(events)")
    }

    @Test func badToolRequestsAreRefusedByName() {
        func message(_ options: LLMGenerationOptions) -> String? {
            do {
                try options.validate()
                return nil
            } catch let error as SDKError { return error.message } catch { return "\(error)" }
        }
        let weather = Tool(name: "get_weather", description: "")
        #expect(message(LLMGenerationOptions(tools: [weather])) == nil)
        #expect(message(LLMGenerationOptions(tools: [Tool(name: "", description: "")]))?.contains("Invalid tool name ''") == true)
        #expect(
            message(LLMGenerationOptions(tools: [Tool(name: String(repeating: "a", count: 65), description: "")]))?.contains(
                "Invalid tool name") == true)
        #expect(message(LLMGenerationOptions(toolChoice: .required))?.contains("there are no tools") == true)
        #expect(
            message(LLMGenerationOptions(tools: [weather], toolChoice: .tool("x")))?.contains("'x', which is not one of the tools") == true)
        #expect(message(LLMGenerationOptions(structuredOutput: .jsonObject, tools: [weather]))?.contains("exclude each other") == true)
        #expect(message(LLMGenerationOptions(structuredOutput: .jsonObject, tools: [weather], toolChoice: .none)) == nil)
        #expect(message(LLMGenerationOptions(applyChatTemplate: false, tools: [weather]))?.contains("need the chat template") == true)
    }

    @Test func aConversationGoesOnOnlyAfterItsCallsHaveResults() throws {
        let user = Message(role: .user, content: "Weather?")
        let calling = Message(role: .assistant, content: "", toolCalls: [oslo])
        let (history, turn) = try RunAnywhereRuntime.split(
            Context(
                systemPrompt: "Be brief",
                messages: [
                    Message(role: .user, content: "Hi"), Message(role: .assistant, content: "Hello"), user, calling,
                    .toolResult("18 C", for: oslo),
                ]))
        #expect(history.messages.map(\.content) == ["Hi", "Hello"] && history.systemPrompt == "Be brief")
        #expect(turn.map(\.role) == [.user, .assistant, .tool])
        func failure(_ messages: [Message]) -> String? {
            do {
                _ = try RunAnywhereRuntime.split(Context(messages: messages))
                return nil
            } catch let error as SDKError { return error.message } catch { return "\(error)" }
        }
        #expect(failure([user]) == nil)
        #expect(failure([])?.contains("it has no user message") == true)
        #expect(failure([user, calling])?.contains("have no results yet") == true)
        #expect(
            failure([user, Message(role: .assistant, content: "Sunny")])?.contains("not a assistant message without tool calls") == true)
    }

    @Test func messagesAndResultsKeepTheirCallsInJSON() throws {
        let message = Message(role: .assistant, content: "", timestamp: Date(timeIntervalSince1970: 0), toolCalls: [oslo])
        let decoded = try JSONDecoder().decode(Message.self, from: try JSONEncoder().encode(message))
        #expect(decoded == message && decoded.toolCalls.first?.arguments["city"] == "Oslo")
        let old = try JSONDecoder().decode(Message.self, from: Data(#"{"role":"user","content":"hi","timestamp":0}"#.utf8))
        #expect(old.toolCalls.isEmpty && old.toolCallId == nil)
        let result = LLMGenerationResult(
            text: "", inputTokens: 1, tokensUsed: 2, modelUsed: "m", latencyMs: 3, stopReason: .toolCalls, toolCalls: [oslo])
        let data = try JSONEncoder().encode(result)
        #expect(try JSONDecoder().decode(LLMGenerationResult.self, from: data) == result)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["toolCalls"] = nil
        let older = try JSONDecoder().decode(LLMGenerationResult.self, from: try JSONSerialization.data(withJSONObject: object))
        #expect(older.toolCalls.isEmpty)
        struct Arguments: Decodable { let city: String }
        #expect(try oslo.decodeArguments(as: Arguments.self).city == "Oslo" && oslo.argumentsJSON == #"{"city":"Oslo","unit":"celsius"}"#)
    }
}
