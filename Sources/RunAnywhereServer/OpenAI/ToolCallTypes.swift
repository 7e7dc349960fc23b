import Foundation
import RunAnywhere

/// One of a chat completion request's `tools`: `{"type": "function", "function": {"name", "description", "parameters", "strict"}}`.
struct ToolParam: Decodable, Sendable {
    struct Function: Decodable, Sendable {
        let name: String
        let description: String?
        var parameters: JSONValue?
        let strict: Bool?
    }
    let type: String
    var function: Function

    /// The SDK's tool; only functions exist.
    func tool() throws -> Tool {
        guard type == "function" else {
            throw APIError(.badRequest, "Tool type '\(type)' is not supported; use function", param: "tools")
        }
        return Tool(
            name: function.name, description: function.description ?? "",
            parameters: function.parameters ?? ["type": "object", "properties": [:]])
    }
}

/// `tool_choice`: `"auto"`, `"none"`, `"required"`, or `{"type": "function", "function": {"name": …}}`.
struct ToolChoiceParam: Decodable, Sendable {
    let value: ToolChoice

    private struct Named: Decodable {
        struct Function: Decodable { let name: String }
        let type: String
        let function: Function
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let word = try container.decodeIfOfType(String.self) {
            switch word {
            case "auto": value = .auto
            case "none": value = .none
            case "required": value = .required
            default:
                throw APIError(
                    .badRequest, "tool_choice '\(word)' is not supported; use auto, none, required or a function", param: "tool_choice")
            }
        } else if let named = try container.decodeIfOfType(Named.self), named.type == "function" {
            value = .tool(named.function.name)
        } else {
            throw APIError(
                .badRequest, "tool_choice must be auto, none, required or {\"type\": \"function\", \"function\": {\"name\": …}}",
                param: "tool_choice")
        }
    }
}

/// A tool call as OpenAI writes it, in an assistant message of a request or of a response:
/// `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`.
struct ToolCallObject: Codable, Sendable {
    struct Function: Codable, Sendable {
        let name: String
        let arguments: String
    }
    let id: String
    var type = "function"
    let function: Function

    init(_ call: ToolCall) {
        id = call.id
        function = Function(name: call.name, arguments: call.argumentsJSON)
    }

    /// The SDK's call; its arguments must be a JSON object.
    func call() throws -> ToolCall {
        guard let arguments = try? JSONValue(parsing: function.arguments), arguments.objectValue != nil else {
            throw APIError(.badRequest, "The arguments of tool call '\(id)' are not a JSON object", param: "messages")
        }
        return ToolCall(id: id, name: function.name, arguments: arguments)
    }
}

/// A streamed piece of a tool call: the first for a call carries its id, type and name, the
/// next its arguments; `index` tells the calls apart.
struct ToolCallDelta: Encodable, Sendable {
    struct Function: Encodable, Sendable {
        var name: String?
        var arguments: String
    }
    let index: Int
    var id: String?
    var type: String?
    let function: Function

    /// The deltas that stream `calls`.
    static func deltas(_ calls: [ToolCall]) -> [[ToolCallDelta]] {
        calls.enumerated().flatMap { index, call in
            [
                [ToolCallDelta(index: index, id: call.id, type: "function", function: Function(name: call.name, arguments: ""))],
                [ToolCallDelta(index: index, function: Function(arguments: call.argumentsJSON))],
            ]
        }
    }
}

/// The tool fields of a chat completion request: `tools`, `tool_choice`, `parallel_tool_calls`.
struct ToolFields: Decodable, Sendable {
    var tools: [ToolParam]?
    let toolChoice: ToolChoiceParam?
    let parallelToolCalls: Bool?

    enum CodingKeys: String, CodingKey {
        case tools, toolChoice = "tool_choice", parallelToolCalls = "parallel_tool_calls", functions, functionCall = "function_call"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // OpenAI's deprecated form of tools: refused with the way to say it now, never ignored
        // (an app that forced a call would get prose and no error).
        for (key, now) in [(CodingKeys.functions, "tools"), (.functionCall, "tool_choice")]
        where container.contains(key) && (try? container.decodeNil(forKey: key)) == false {
            throw APIError(
                .badRequest, "\(key.rawValue) is OpenAI's deprecated form of \(now): send \(now) instead", param: key.rawValue)
        }
        tools = try container.decodeIfPresent([ToolParam].self, forKey: .tools)
        toolChoice = try container.decodeIfPresent(ToolChoiceParam.self, forKey: .toolChoice)
        parallelToolCalls = try container.decodeIfPresent(Bool.self, forKey: .parallelToolCalls)
    }

    /// Puts back the key order of each tool's parameters from the body parsed as `ordered`.
    mutating func keepSchemaOrder(from ordered: JSONValue?) {
        guard let list = ordered?["tools"]?.arrayValue, list.count == tools?.count else { return }
        for (index, tool) in list.enumerated() {
            if let parameters = tool["function"]?["parameters"] { tools?[index].function.parameters = parameters }
        }
    }

    /// `options` with these tools (OpenAI's default choice: `auto` with tools).
    func apply(to options: inout LLMGenerationOptions) throws {
        guard tools?.isEmpty == false || toolChoice != nil else { return }
        options.tools = try (tools ?? []).map { try $0.tool() }
        options.toolChoice = toolChoice?.value ?? .auto
        options.parallelToolCalls = parallelToolCalls ?? false
        do {
            try options.validate()
        } catch let error as SDKError {
            throw APIError.tools(error, fields: ["toolChoice": "tool_choice", "structuredOutput": "response_format"])
        }
    }
}
