import Foundation
import RunAnywhere

/// `POST /v1/responses`: `input` (text, or items), `instructions`, function `tools` with
/// `tool_choice` and `parallel_tool_calls`, `text.format` (`text`, `json_object`, or
/// `json_schema` with `name`, `schema`, `strict`), `max_output_tokens`, `temperature`, `top_p`,
/// `reasoning` (echoed: a thinking model always reasons), `previous_response_id` or `conversation`, `store`
/// (default true), `background` (made while the client is away: ``BackgroundResponses``), `stream`
/// and `metadata` (strings by name, echoed).
struct ResponseRequest: Decodable, Sendable {
    /// A function tool: `{"type": "function", "name", "description", "parameters", "strict"}`.
    struct FunctionTool: Decodable, Sendable {
        let type: String
        let name: String?
        let description: String?
        var parameters: JSONValue?
        let strict: Bool?

        func tool() throws -> Tool {
            guard type == "function" else {
                throw APIError(.badRequest, "Tool type '\(type)' is not supported; use function tools", param: "tools")
            }
            guard let name, !name.isEmpty else { throw APIError(.badRequest, "A function tool needs a name", param: "tools") }
            return Tool(name: name, description: description ?? "", parameters: parameters ?? ["type": "object", "properties": [:]])
        }
    }

    /// `text`: its `format`.
    struct TextConfig: Decodable, Sendable {
        /// `{"type": "text" | "json_object" | "json_schema", "name", "schema", "strict"}`.
        struct Format: Decodable, Sendable {
            let type: String
            let name: String?
            var schema: JSONValue?
            let strict: Bool?
        }
        var format: Format?
    }

    let model: String
    let input: [ResponseItem]
    let instructions: String?
    var tools: [FunctionTool]?
    let toolChoice: JSONValue?
    let parallelToolCalls: Bool?
    var text: TextConfig?
    let maxOutputTokens: Int?
    let temperature: Float?
    let topP: Float?
    let reasoning: JSONValue?
    let previousResponseID: String?
    /// The conversation (Conversations API) whose items come before the input, and to which the
    /// input and the output are added once the response completes.
    let conversation: ConversationReference?
    let store: Bool
    let background: Bool
    let stream: Bool
    let metadata: [String: String]?
    /// `include` (only `message.output_text.logprobs` changes the answer) and `top_logprobs`.
    let include: [String]?
    let topLogprobs: Int?
    /// `auto` (the oldest items are dropped when the context cannot hold them with the answer) or
    /// `disabled` (OpenAI's default: such a request is a 400 `context_length_exceeded`).
    let truncation: String

    enum CodingKeys: String, CodingKey {
        case model, input, instructions, tools, toolChoice = "tool_choice", parallelToolCalls = "parallel_tool_calls", text
        case maxOutputTokens = "max_output_tokens", temperature, topP = "top_p", reasoning, previousResponseID = "previous_response_id"
        case store, background, stream, metadata, include, topLogprobs = "top_logprobs"
        case conversation, prompt, truncation
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // What would change the answer's context and is not here is refused, not silently lost.
        if container.contains(.prompt), try !container.decodeNil(forKey: .prompt) {
            throw APIError(
                .badRequest, "prompt templates are kept by OpenAI's platform, not here: send instructions and input", param: "prompt")
        }
        model = try container.decode(String.self, forKey: .model)
        if let text = try container.decodeIfOfType(String.self, forKey: .input) {
            input = [
                .message(
                    ResponseMessage(
                        id: ResponseItem.newID("msg"), role: "user", status: "completed", content: [.init(type: "input_text", text: text)]))
            ]
        } else {
            input = try container.decode([ResponseItem].self, forKey: .input).map { try $0.checked(param: "input", loadingImages: false) }
            let ids = input.compactMap(\.id).filter { !$0.isEmpty }
            guard Set(ids).count == ids.count else { throw APIError(.badRequest, "Two input items have the same id", param: "input") }
        }
        instructions = try container.decodeIfPresent(String.self, forKey: .instructions)
        tools = try container.decodeIfPresent([FunctionTool].self, forKey: .tools)
        toolChoice = try container.decodeIfPresent(JSONValue.self, forKey: .toolChoice)
        parallelToolCalls = try container.decodeIfPresent(Bool.self, forKey: .parallelToolCalls)
        text = try container.decodeIfPresent(TextConfig.self, forKey: .text)
        maxOutputTokens = try container.decode(NumberField<Int>.self, forKey: .maxOutputTokens).wrappedValue
        temperature = try container.decode(NumberField<Float>.self, forKey: .temperature).wrappedValue
        topP = try container.decode(NumberField<Float>.self, forKey: .topP).wrappedValue
        reasoning = try container.decodeIfPresent(JSONValue.self, forKey: .reasoning)
        guard reasoning == nil || reasoning == .null || reasoning?.objectValue != nil else {
            throw APIError(.badRequest, "reasoning must be an object such as {\"effort\": \"low\"}", param: "reasoning")
        }
        previousResponseID = try container.decodeIfPresent(String.self, forKey: .previousResponseID)
        conversation = try container.decodeIfPresent(ConversationReference.self, forKey: .conversation)
        guard previousResponseID == nil || conversation == nil else {
            throw APIError(
                .badRequest, "A response continues either a conversation or a previous response: send conversation or previous_response_id",
                param: "conversation")
        }
        store = try container.decodeIfPresent(Bool.self, forKey: .store) ?? true
        background = try container.decodeIfPresent(Bool.self, forKey: .background) ?? false
        guard store || !background else {
            throw APIError(.badRequest, "A background response is stored, to be retrieved: background needs store true", param: "store")
        }
        stream = try container.decodeIfPresent(Bool.self, forKey: .stream) ?? false
        metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata)
        include = try container.decodeIfPresent([String].self, forKey: .include)
        topLogprobs = try container.decode(NumberField<Int>.self, forKey: .topLogprobs).wrappedValue
        truncation = try container.decodeIfPresent(String.self, forKey: .truncation) ?? "disabled"
        guard ["auto", "disabled"].contains(truncation) else {
            throw APIError(.badRequest, "truncation must be \"auto\" or \"disabled\"", param: "truncation")
        }
    }

    /// Puts back the key order of the schemas (`text.format.schema`, each tool's `parameters`)
    /// from the body parsed as `ordered`: Foundation's decoder loses it, and properties are written in it.
    mutating func keepSchemaOrder(from ordered: JSONValue?) {
        if let schema = ordered?["text"]?["format"]?["schema"] { text?.format?.schema = schema }
        guard let list = ordered?["tools"]?.arrayValue, list.count == tools?.count else { return }
        for (index, tool) in list.enumerated() {
            if let parameters = tool["parameters"] { tools?[index].parameters = parameters }
        }
    }

    /// The SDK options this request asks for over the model's `defaults`, on `threads` threads.
    func options(threads: Int?, defaults: ModelDefaults?) throws -> LLMGenerationOptions {
        var options = LLMGenerationOptions(threads: threads, applyChatTemplate: true)
        defaults?.apply(to: &options)
        if let maxOutputTokens {
            guard maxOutputTokens >= 1 else {
                throw APIError(.badRequest, "max_output_tokens must be at least 1", param: "max_output_tokens")
            }
            options.maxTokens = maxOutputTokens
        }
        if let temperature { options.temperature = temperature }
        if let topP { options.topP = topP }
        options.dropsOldestMessages = truncation == "auto"
        // As OpenAI's: the answer's log-probabilities with `include` naming them, or with `top_logprobs`.
        let asked = include?.contains("message.output_text.logprobs") == true || topLogprobs != nil
        options.logprobs = try requestedLogprobs(asked ? .flag(true) : nil, top: topLogprobs)
        if let format = text?.format {
            let jsonSchema = ResponseFormat.JSONSchemaFormat(name: format.name, schema: format.schema, strict: format.strict)
            options.structuredOutput = try ResponseFormat(type: format.type, jsonSchema: jsonSchema)
                .structuredOutput(field: "text.format", schemaField: "text.format.schema")
        }
        try options.check(fields: ["temperature": "temperature", "topP": "top_p", "logprobs": "top_logprobs"])
        guard tools?.isEmpty == false || toolChoice != nil else { return options }
        options.tools = try (tools ?? []).map { try $0.tool() }
        options.toolChoice = try Self.toolChoice(toolChoice)
        options.parallelToolCalls = parallelToolCalls ?? false
        do {
            try options.validate()
        } catch let error as SDKError {
            throw APIError.tools(error, fields: ["toolChoice": "tool_choice", "structuredOutput": "text.format"])
        }
        return options
    }

    /// `tool_choice`: `auto` (the default), `none`, `required`, or `{"type": "function", "name"}`.
    private static func toolChoice(_ value: JSONValue?) throws -> ToolChoice {
        switch value {
        case nil, "auto": return .auto
        case "none": return .none
        case "required": return .required
        default:
            guard value?["type"] == "function", let name = value?["name"]?.stringValue else {
                throw APIError(
                    .badRequest, "tool_choice must be auto, none, required or {\"type\": \"function\", \"name\": …}", param: "tool_choice")
            }
            return .tool(name)
        }
    }

    /// The conversation `items` make, with `instructions` first in the system prompt: messages
    /// in order, function calls on the assistant's message, each output as a tool message;
    /// reasoning is left out. It must end with the user's message or a function's output, and each
    /// output must answer a call made before it.
    func conversation(_ items: [ResponseItem]) throws -> Context {
        var system = instructions.map { [$0] } ?? []
        var messages: [Message] = []
        var calls: Set<String> = []
        for item in items {
            switch item {
            case .message(let message):
                switch message.role {
                case "system", "developer": system.append(message.text)
                case "user": messages.append(Message(role: .user, content: message.text, images: try message.images()))
                case "assistant": messages.append(Message(role: .assistant, content: message.text))
                default: throw APIError(.badRequest, "Unsupported message role '\(message.role)'", param: "input")
                }
            case .functionCall(let call):
                calls.insert(call.callID)
                if let last = messages.last, last.role == .assistant {
                    messages[messages.count - 1] = Message(
                        role: .assistant, content: last.content, toolCalls: last.toolCalls + [try call.call()])
                } else {
                    messages.append(Message(role: .assistant, content: "", toolCalls: [try call.call()]))
                }
            case .functionCallOutput(let output):
                // As OpenAI: an output answers a call made before it (in the input or the turns it continues).
                guard calls.contains(output.callID) else {
                    throw APIError(
                        .badRequest, "No tool call found for function call output with call_id \(output.callID)", param: "input")
                }
                messages.append(Message(role: .tool, content: output.output, toolCallId: output.callID))
            case .reasoning:
                continue
            }
        }
        guard let last = messages.last, last.role == .user || last.role == .tool else {
            throw APIError(.badRequest, "The input must end with a user message or a function_call_output", param: "input")
        }
        // Every item is read; only a full context window drops the oldest.
        return Context(systemPrompt: system.isEmpty ? nil : system.joined(separator: "\n"), messages: messages, maxMessages: messages.count)
    }
}
