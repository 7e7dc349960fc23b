import Foundation
import RunAnywhere

/// A tool call in an assistant message of `/api/chat`: `{"function": {"name", "arguments": {…}}}`
/// (an `id` when the client kept one; `arguments` may also come as JSON text).
struct OllamaToolCallParam: Decodable, Sendable {
    struct Function: Decodable, Sendable {
        let name: String
        let arguments: JSONValue?
    }
    let id: String?
    let function: Function

    /// The SDK's call, with `fallbackID` when the client sent none.
    func call(fallbackID: String) throws -> ToolCall {
        var arguments = function.arguments ?? .object(JSONObject())
        if let text = arguments.stringValue, let parsed = try? JSONValue(parsing: text) { arguments = parsed }
        guard arguments.objectValue != nil else {
            throw APIError(.badRequest, "The arguments of the call to '\(function.name)' are not a JSON object", param: "messages")
        }
        return ToolCall(id: id ?? fallbackID, name: function.name, arguments: arguments)
    }
}

/// One of `/api/chat`'s `messages`: `role` (`system`, `user`, `assistant` or `tool`), `content`,
/// `images` (base64, for vision-language models), an assistant's `tool_calls` and `thinking`, a
/// tool result's `tool_name` (and `tool_call_id`, where the client sends it).
struct OllamaChatMessage: Decodable, Sendable {
    let role: String
    let content: String
    let images: [String]
    let toolCalls: [OllamaToolCallParam]
    let toolName: String?
    let toolCallId: String?

    enum CodingKeys: String, CodingKey {
        case role, content, images, toolCalls = "tool_calls", toolName = "tool_name", toolCallId = "tool_call_id"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        role = try container.decode(String.self, forKey: .role)
        content = try container.decodeIfPresent(String.self, forKey: .content) ?? ""
        images = try container.decodeIfPresent([String].self, forKey: .images) ?? []
        toolCalls = try container.decodeIfPresent([OllamaToolCallParam].self, forKey: .toolCalls) ?? []
        toolName = try container.decodeIfPresent(String.self, forKey: .toolName)
        toolCallId = try container.decodeIfPresent(String.self, forKey: .toolCallId)
    }
}

/// `POST /api/chat`: the conversation, the tools, and the fields `/api/generate` shares.
struct OllamaChatRequest: Decodable, Sendable {
    let messages: [OllamaChatMessage]
    var fields: OllamaGenerationFields
    var tools: [ToolParam]

    enum CodingKeys: String, CodingKey { case messages, tools }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        messages = try container.decodeIfPresent([OllamaChatMessage].self, forKey: .messages) ?? []
        tools = try container.decodeIfPresent([ToolParam].self, forKey: .tools) ?? []
        fields = try OllamaGenerationFields(from: decoder)
    }

    /// Puts back the key order of the tools' parameters and of `format`'s schema.
    mutating func keepSchemaOrder(from ordered: JSONValue?) {
        fields.keepSchemaOrder(from: ordered)
        guard let list = ordered?["tools"]?.arrayValue, list.count == tools.count else { return }
        for (index, tool) in list.enumerated() {
            if let parameters = tool["function"]?["parameters"] { tools[index].function.parameters = parameters }
        }
    }

    /// The SDK options: the fields' and the tools (the model chooses whether to call one, and may
    /// call several).
    func options(threads: Int?, defaults: ModelDefaults?) throws -> LLMGenerationOptions {
        var options = try fields.generationOptions(threads: threads, applyChatTemplate: true, defaults: defaults)
        guard !tools.isEmpty else { return options }
        options.tools = try tools.map { try $0.tool() }
        options.toolChoice = .auto
        options.parallelToolCalls = true
        do {
            try options.validate()
        } catch let error as SDKError {
            throw APIError.tools(error, fields: ["structuredOutput": "format"])
        }
        return options
    }

    /// The conversation: the system messages as its system prompt, then the rest, ending with
    /// the user's message or tool results. Calls the client sent without ids get ones, and a
    /// tool result without `tool_call_id` answers the earliest unanswered call of its
    /// `tool_name` (else the earliest unanswered call), as ollama pairs them.
    func conversation() throws -> Context {
        var history: [Message] = []
        var system: [String] = []
        var unanswered: [ToolCall] = []
        for message in messages {
            switch message.role {
            case "system":
                system.append(message.content)
            case "user":
                history.append(Message(role: .user, content: message.content, images: message.images.map(VLMImage.init(base64:))))
            case "assistant":
                let calls = try message.toolCalls.enumerated().map { index, call in
                    try call.call(fallbackID: "call_\(history.count)_\(index)")
                }
                unanswered = calls
                history.append(Message(role: .assistant, content: message.content, toolCalls: calls))
            case "tool":
                let answered =
                    message.toolCallId.flatMap { id in unanswered.firstIndex { $0.id == id } }
                    ?? message.toolName.flatMap { name in unanswered.firstIndex { $0.name == name } }
                    ?? (unanswered.isEmpty ? nil : 0)
                guard let answered else {
                    throw APIError(
                        .badRequest, "A tool message must follow the assistant's tool_calls that it answers", param: "messages")
                }
                history.append(Message(role: .tool, content: message.content, toolCallId: unanswered.remove(at: answered).id))
            default:
                throw APIError(
                    .badRequest, "Unsupported message role '\(message.role)': use system, user, assistant or tool", param: "messages")
            }
        }
        guard let last = history.last else {
            throw APIError(.badRequest, "The messages hold no user message to answer, only a system prompt", param: "messages")
        }
        guard last.role == .user || last.role == .tool else {
            throw APIError(
                .badRequest, "The last message must be the user's, or a tool's result: this server does not continue an assistant message",
                param: "messages")
        }
        // Every message the client sent is read; only a full context window drops the oldest.
        return Context(systemPrompt: system.isEmpty ? nil : system.joined(separator: "\n"), messages: history, maxMessages: history.count)
    }
}

/// `POST /api/generate`: `prompt` (with `system`, formatted with the model's chat template, or
/// verbatim with `raw`) and `images`, or with `suffix` the gap between `prompt` and `suffix`
/// filled in (a code model's fill-in-the-middle), and the fields `/api/chat` shares. ollama's
/// `template` (a Go template) and `context` (token ids of an earlier answer, which ollama has
/// deprecated) are refused with a 400 that says what to send instead.
struct OllamaGenerateRequest: Decodable, Sendable {
    let prompt: String
    let system: String?
    let raw: Bool
    let images: [String]
    /// The text after the gap; nil (or empty, as ollama reads it) for a plain generation.
    let suffix: String?
    var fields: OllamaGenerationFields

    enum CodingKeys: String, CodingKey { case prompt, system, raw, images, template, suffix, context }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        prompt = try container.decodeIfPresent(String.self, forKey: .prompt) ?? ""
        system = try container.decodeIfPresent(String.self, forKey: .system)
        raw = try container.decodeIfPresent(Bool.self, forKey: .raw) ?? false
        images = try container.decodeIfPresent([String].self, forKey: .images) ?? []
        if let template = try container.decodeIfPresent(String.self, forKey: .template), !template.isEmpty {
            throw APIError(
                .badRequest,
                "template (an ollama Go template) is not supported: the model's own chat template is used; leave template out, or send raw: true with the prompt already formatted",
                param: "template"
            )
        }
        suffix = try container.decodeIfPresent(String.self, forKey: .suffix).flatMap { $0.isEmpty ? nil : $0 }
        if suffix != nil, system != nil || !images.isEmpty {
            throw APIError(
                .badRequest,
                "suffix fills in the gap between prompt and suffix, which has no place for \(images.isEmpty ? "a system prompt" : "images"): leave \(images.isEmpty ? "system" : "images") out",
                param: "suffix")
        }
        if let context = try container.decodeIfPresent([Int].self, forKey: .context), !context.isEmpty {
            throw APIError(
                .badRequest,
                "context (the token ids of an earlier answer, deprecated by ollama) is not supported: send the conversation to /api/chat",
                param: "context"
            )
        }
        fields = try OllamaGenerationFields(from: decoder)
    }

    /// The gap to fill, for a request with a suffix.
    var infill: Infill? { suffix.map { Infill(prefix: prompt, suffix: $0) } }

    /// The prompt as a conversation of one user message after `system`.
    var conversation: Context {
        Context(
            systemPrompt: system, messages: [Message(role: .user, content: prompt, images: images.map(VLMImage.init(base64:)))],
            maxMessages: 1)
    }
}

/// `POST /api/embed`: `input` (a text or a list), `truncate` (on by default, as in ollama: a text
/// longer than the model reads is cut; off, it is refused), `dimensions` (only the model's own),
/// `options` (`num_ctx`, `num_thread`…), `keep_alive`.
struct OllamaEmbedRequest: Decodable, Sendable {
    let model: String
    /// The texts; none (absent, or an empty list) loads the model, or with `keep_alive: 0` unloads it.
    let input: Input?
    let truncate: Bool?
    @NumberField var dimensions: Int?
    let options: OllamaOptions?
    let keepAlive: KeepAliveField?

    enum CodingKeys: String, CodingKey { case model, input, truncate, dimensions, options, keepAlive = "keep_alive" }

    /// `input`: one text, or a list of them, as ollama takes it.
    struct Input: Decodable, Sendable {
        let texts: [String]

        init(from decoder: any Decoder) throws {
            guard let texts = try EmbeddingRoutes.EmbeddingInput.texts(in: decoder.singleValueContainer()) else {
                throw APIError(.badRequest, "input must be a string or an array of strings", param: "input")
            }
            self.texts = texts
        }
    }
}

/// `POST /api/embeddings`, ollama's older form: one `prompt`, answered with one `embedding`.
struct OllamaEmbeddingsRequest: Decodable, Sendable {
    let model: String
    let prompt: String?
    let options: OllamaOptions?
    let keepAlive: KeepAliveField?

    enum CodingKeys: String, CodingKey { case model, prompt, options, keepAlive = "keep_alive" }
}

/// The body of `/api/show`, `/api/delete` and `/api/pull`: the model's name (`name`, its older
/// spelling, is read too).
struct OllamaModelRequest: Decodable, Sendable {
    let model: String
    let stream: Bool

    enum CodingKeys: String, CodingKey { case model, name, stream }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard
            let name = try container.decodeIfPresent(String.self, forKey: .model) ?? container.decodeIfPresent(String.self, forKey: .name),
            !name.isEmpty
        else {
            throw APIError(.badRequest, "model is required", param: "model")
        }
        model = OllamaName.modelID(name)
        stream = try container.decodeIfPresent(Bool.self, forKey: .stream) ?? true
    }
}
