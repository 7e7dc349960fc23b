import Foundation

/// How tools are shown to a model, how it writes its calls, and how their results go back to it.
///
/// llama.cpp's built-in chat templates have no place for tools, so the SDK writes them itself:
/// in the format the model was trained on when its chat template shows one (``hermes``), else in
/// a plain built-in format (``json``). Either way the call is sampled through a grammar
/// (`grammar(tools:choice:parallel:thinking:)`), so it always parses.
public enum ToolCallFormat: String, Codable, Sendable, CaseIterable {
    /// The Hermes format that Qwen 2.5 and 3, Hermes, SmolLM3 and many fine-tunes are trained on:
    /// tools as JSON lines inside `<tools>` in the system prompt, each call as
    /// `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, results in a user turn inside
    /// `<tool_response>` tags.
    case hermes
    /// The built-in format for models with no tool format of their own: tools as JSON lines in the
    /// system prompt, the calls as one JSON object `{"tool_calls": [{"name": …, "arguments": …}]}`,
    /// results in a user turn that names the tool.
    case json

    /// The format for a model whose chat template source is `chatTemplate` (nil: none known).
    package static func detect(chatTemplate: String?) -> ToolCallFormat {
        chatTemplate?.contains("<tool_call>") == true ? .hermes : .json
    }

    /// The format of `model`, loaded as `service`: its own setting, else what its template shows.
    static func of(_ model: ModelInfo, service: any LLMService) -> ToolCallFormat {
        model.toolCallFormat ?? detect(chatTemplate: service.chatTemplateSource)
    }

    /// The character a call opens with; with `auto`, an answer in text may not start with it.
    var callOpener: Character { self == .hermes ? "<" : "{" }

    /// What the system prompt gains so that the model knows the tools and how to call them.
    func instruction(tools: [Tool], choice: ToolChoice) -> String {
        let lines = tools.map { tool -> String in
            let function: JSONValue = ["name": .string(tool.name), "description": .string(tool.description), "parameters": tool.parameters]
            let wrapped: JSONValue = ["type": "function", "function": function]
            return (self == .hermes ? wrapped : function).text
        }.joined(separator: "\n")
        let must =
            switch choice {
            case .auto, .none: ""
            case .required: "\n\nAnswer by calling one or more of the tools."
            case .tool(let name): "\n\nAnswer by calling the tool \(name)."
            }
        switch self {
        case .hermes:
            return """
                # Tools

                You may call one or more functions to assist with the user query.

                You are provided with function signatures within <tools></tools> XML tags:
                <tools>
                \(lines)
                </tools>

                For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
                <tool_call>
                {"name": <function-name>, "arguments": <args-json-object>}
                </tool_call>
                """ + must
        case .json:
            let otherwise =
                choice == .auto
                ? "\nIf no tool is needed, or a tool's result answers the question, answer the user in plain text instead." : ""
            return """
                You can call these tools (functions); each is described as JSON with the JSON Schema of its arguments:
                \(lines)

                To call tools, answer with only this JSON object: {"tool_calls": [{"name": "<tool name>", "arguments": {<the arguments>}}]}
                """ + otherwise + must
        }
    }

    /// `messages` as a chat template knows them: an assistant message's calls written into its
    /// text as the model writes them, and tool results (consecutive ones together) as a user turn.
    func prepare(_ messages: [Message]) -> [Message] {
        let names = Dictionary(messages.flatMap(\.toolCalls).map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        var prepared: [Message] = []
        var results: [String] = []
        func flushResults() {
            guard !results.isEmpty else { return }
            prepared.append(Message(role: .user, content: results.joined(separator: "\n")))
            results = []
        }
        for message in messages {
            if message.role == .tool {
                results.append(result(message, name: message.toolCallId.flatMap { names[$0] }))
                continue
            }
            flushResults()
            guard message.role == .assistant, !message.toolCalls.isEmpty else {
                prepared.append(message)
                continue
            }
            let calls = write(message.toolCalls)
            let content = message.content.isEmpty ? calls : message.content + "\n" + calls
            prepared.append(Message(role: .assistant, content: content, metadata: message.metadata, timestamp: message.timestamp))
        }
        flushResults()
        return prepared
    }

    /// A tool's result as the model reads it.
    private func result(_ message: Message, name: String?) -> String {
        switch self {
        case .hermes: "<tool_response>\n\(message.content)\n</tool_response>"
        case .json: "Result of the tool \(name ?? "call"): \(message.content)"
        }
    }

    /// Calls as the model writes them.
    func write(_ calls: [ToolCall]) -> String {
        let objects = calls.map { call -> JSONValue in ["name": .string(call.name), "arguments": call.arguments] }
        switch self {
        case .hermes: return objects.map { "<tool_call>\n\($0.text)\n</tool_call>" }.joined(separator: "\n")
        case .json:
            let all: JSONValue = ["tool_calls": .array(objects)]
            return all.text
        }
    }
}
