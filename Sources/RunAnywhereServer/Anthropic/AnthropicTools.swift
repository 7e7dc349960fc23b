import Foundation
import RunAnywhere

/// One of `tools`: `{"name", "description", "input_schema"}` (`type` absent or `custom`;
/// Anthropic's server tools, which run on Anthropic's side, do not exist here).
struct AnthropicToolParam: Decodable, Sendable {
    let type: String?
    let name: String
    let description: String?
    var inputSchema: JSONValue?

    enum CodingKeys: String, CodingKey { case type, name, description, inputSchema = "input_schema" }

    /// The SDK's tool.
    func tool() throws -> Tool {
        guard type == nil || type == "custom" else {
            throw APIError(
                .badRequest, "Tool type '\(type ?? "")' is not supported: only custom tools (name, description, input_schema) run here",
                param: "tools")
        }
        return Tool(name: name, description: description ?? "", parameters: inputSchema ?? ["type": "object", "properties": [:]])
    }
}

/// `tool_choice`: `{"type": "auto" | "any" | "tool" | "none", "name", "disable_parallel_tool_use"}`.
struct AnthropicToolChoice: Decodable, Sendable {
    let type: String
    let name: String?
    let disableParallelToolUse: Bool?

    enum CodingKeys: String, CodingKey { case type, name, disableParallelToolUse = "disable_parallel_tool_use" }

    /// The SDK's choice.
    func choice() throws -> ToolChoice {
        switch type {
        case "auto": return .auto
        case "any": return .required
        case "none": return .none
        case "tool":
            guard let name else { throw APIError(.badRequest, "tool_choice of type tool needs a name", param: "tool_choice.name") }
            return .tool(name)
        default:
            throw APIError(
                .badRequest, "tool_choice type '\(type)' is not supported; use auto, any, tool or none", param: "tool_choice.type")
        }
    }
}

/// The tool fields of a Messages request: `tools` and `tool_choice`.
struct AnthropicToolFields: Decodable, Sendable {
    var tools: [AnthropicToolParam]?
    let toolChoice: AnthropicToolChoice?

    enum CodingKeys: String, CodingKey { case tools, toolChoice = "tool_choice" }

    /// Puts back the key order of each tool's input schema from the body parsed as `ordered`.
    mutating func keepSchemaOrder(from ordered: JSONValue?) {
        guard let list = ordered?["tools"]?.arrayValue, list.count == tools?.count else { return }
        for (index, tool) in list.enumerated() {
            if let schema = tool["input_schema"] { tools?[index].inputSchema = schema }
        }
    }

    /// `options` with these tools (Anthropic's default choice: `auto`, calls in parallel allowed).
    func apply(to options: inout LLMGenerationOptions) throws {
        guard tools?.isEmpty == false || toolChoice != nil else { return }
        options.tools = try (tools ?? []).map { try $0.tool() }
        options.toolChoice = try toolChoice?.choice() ?? .auto
        options.parallelToolCalls = !(toolChoice?.disableParallelToolUse ?? false)
        do {
            try options.validate()
        } catch let error as SDKError {
            throw APIError.tools(error, fields: ["toolChoice": "tool_choice", "structuredOutput": "output_config.format"])
        }
    }
}
