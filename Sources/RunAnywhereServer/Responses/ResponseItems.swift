import Foundation
import RunAnywhere

/// One item of a Responses API conversation, in a request's `input` or a response's `output`:
/// a `message`, a `function_call`, its `function_call_output`, or a thinking model's `reasoning`.
/// A message may come without `type` (`{"role", "content"}`), its content a string or parts.
enum ResponseItem: Codable, Sendable {
    case message(ResponseMessage)
    case functionCall(ResponseFunctionCall)
    case functionCallOutput(ResponseFunctionCallOutput)
    case reasoning(ResponseReasoning)

    private enum CodingKeys: String, CodingKey { case type, role }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decodeIfPresent(String.self, forKey: .type) ?? (container.contains(.role) ? "message" : "")
        switch type {
        case "message": self = .message(try ResponseMessage(from: decoder))
        case "function_call": self = .functionCall(try ResponseFunctionCall(from: decoder))
        case "function_call_output": self = .functionCallOutput(try ResponseFunctionCallOutput(from: decoder))
        case "reasoning": self = .reasoning(try ResponseReasoning(from: decoder))
        default:
            throw APIError(
                .badRequest, "Input item type '\(type)' is not supported; use message, function_call, function_call_output or reasoning",
                param: "input")
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .message(let item): try item.encode(to: encoder)
        case .functionCall(let item): try item.encode(to: encoder)
        case .functionCallOutput(let item): try item.encode(to: encoder)
        case .reasoning(let item): try item.encode(to: encoder)
        }
    }

    /// A new item id: `prefix` and 32 hex digits, as OpenAI's ids look.
    static func newID(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}

/// A `message` item: `role` (`user`, `system`, `developer`, `assistant`) and content parts,
/// `input_text`, `output_text` or `input_image` (a data: URL: this server fetches no images).
struct ResponseMessage: Codable, Sendable {
    var id: String?
    var type = "message"
    let role: String
    var status: String?
    var content: [ResponseContentPart]

    private enum CodingKeys: String, CodingKey { case id, type, role, status, content }

    init(id: String, role: String, status: String, content: [ResponseContentPart]) {
        self.id = id
        self.role = role
        self.status = status
        self.content = content
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        role = try container.decode(String.self, forKey: .role)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        if let text = try container.decodeIfOfType(String.self, forKey: .content) {
            content = [ResponseContentPart(type: role == "assistant" ? "output_text" : "input_text", text: text)]
        } else {
            content = try container.decode([ResponseContentPart].self, forKey: .content)
        }
    }

    /// The text of its text parts.
    var text: String { content.compactMap(\.text).joined() }

    /// Its images, each checked to be a data: URL.
    func images() throws -> [VLMImage] {
        try content.filter { $0.type == "input_image" }.map { part in
            guard let url = part.imageURL, url.hasPrefix("data:") else {
                throw APIError(
                    .badRequest, "An input_image's image_url must be a data: URL (data:image/png;base64,…); this server fetches no images",
                    param: "input")
            }
            return VLMImage(base64: url)
        }
    }
}

/// A part of a message's content: `input_text`, `output_text` (with its `annotations`, none
/// here, and its tokens' `logprobs` when the request asked for them) or `input_image`.
struct ResponseContentPart: Codable, Sendable {
    let type: String
    var text: String?
    var imageURL: String?
    var annotations: [JSONValue]?
    var logprobs: [TokenLogprobObject]?

    private enum CodingKeys: String, CodingKey { case type, text, imageURL = "image_url", annotations, logprobs }

    init(type: String, text: String) {
        self.type = type
        self.text = text
        annotations = type == "output_text" ? [] : nil
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        guard ["input_text", "output_text", "input_image"].contains(type) else {
            throw APIError(
                .badRequest, "Content part type '\(type)' is not supported; use input_text, output_text or input_image", param: "input")
        }
        text = try container.decodeIfPresent(String.self, forKey: .text)
        imageURL = try container.decodeIfPresent(String.self, forKey: .imageURL)
        annotations = try container.decodeIfPresent([JSONValue].self, forKey: .annotations) ?? (type == "output_text" ? [] : nil)
        logprobs = try container.decodeIfPresent([TokenLogprobObject].self, forKey: .logprobs)
    }

    /// An `output_text` part, with its tokens' log-probabilities when they were asked for.
    static func outputText(_ text: String, logprobs: [TokenLogprob]? = nil) -> ResponseContentPart {
        var part = ResponseContentPart(type: "output_text", text: text)
        part.logprobs = logprobs?.map(TokenLogprobObject.init)
        return part
    }
}

/// A `function_call` item: the model's call of a function tool, `arguments` as JSON text.
struct ResponseFunctionCall: Codable, Sendable {
    var id: String?
    var type = "function_call"
    let callID: String
    let name: String
    var arguments: String
    var status: String?

    private enum CodingKeys: String, CodingKey { case id, type, callID = "call_id", name, arguments, status }

    init(id: String, call: ToolCall, arguments: String, status: String) {
        self.id = id
        callID = call.id
        name = call.name
        self.arguments = arguments
        self.status = status
    }

    /// The SDK's call; its arguments must be a JSON object.
    func call() throws -> ToolCall {
        guard let value = try? JSONValue(parsing: arguments), value.objectValue != nil else {
            throw APIError(.badRequest, "The arguments of function call '\(callID)' are not a JSON object", param: "input")
        }
        return ToolCall(id: callID, name: name, arguments: value)
    }
}

/// A `function_call_output` item: the result of the call `call_id`, as text (or text parts).
struct ResponseFunctionCallOutput: Codable, Sendable {
    var id: String?
    var type = "function_call_output"
    let callID: String
    let output: String
    var status: String?

    private enum CodingKeys: String, CodingKey { case id, type, callID = "call_id", output, status }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        callID = try container.decode(String.self, forKey: .callID)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        if let text = try container.decodeIfOfType(String.self, forKey: .output) {
            output = text
        } else if (try? container.decode(JSONValue.self, forKey: .output))?.arrayValue != nil {
            output = try container.decode([ResponseContentPart].self, forKey: .output).compactMap(\.text).joined()
        } else {
            throw APIError(
                .badRequest, "The output of function call '\(callID)' must be text or a list of content parts", param: "input")
        }
    }
}

/// A `reasoning` item: a thinking model's reasoning as `reasoning_text` content (no summary is
/// made). Reasoning sent back in `input` is accepted and not shown to the model again.
struct ResponseReasoning: Codable, Sendable {
    struct Text: Codable, Sendable {
        var type = "reasoning_text"
        let text: String
    }
    var id: String?
    var type = "reasoning"
    var summary: [JSONValue] = []
    var content: [Text]?
    var status: String?

    init(id: String, text: String, status: String) {
        self.id = id
        content = [Text(text: text)]
        self.status = status
    }
}

extension ResponseItem {
    /// The item's status, when it has one.
    var status: String? {
        switch self {
        case .message(let item): item.status
        case .functionCall(let item): item.status
        case .functionCallOutput(let item): item.status
        case .reasoning(let item): item.status
        }
    }

    /// The item's id, when it has one.
    var id: String? {
        switch self {
        case .message(let item): item.id
        case .functionCall(let item): item.id
        case .functionCallOutput(let item): item.id
        case .reasoning(let item): item.id
        }
    }

    /// The item with an id: its own (one not empty), else a new one with its kind's prefix (`msg`, `fc`, `fco`,
    /// `rs`), as OpenAI gives the input items it stores.
    var identified: ResponseItem {
        if let id, !id.isEmpty { return self }
        switch self {
        case .message(var item):
            item.id = Self.newID("msg")
            return .message(item)
        case .functionCall(var item):
            item.id = Self.newID("fc")
            return .functionCall(item)
        case .functionCallOutput(var item):
            item.id = Self.newID("fco")
            return .functionCallOutput(item)
        case .reasoning(var item):
            item.id = Self.newID("rs")
            return .reasoning(item)
        }
    }

    /// The item with a status, `completed` where it has none: as a conversation keeps the items
    /// it was given (a reasoning item's status is left as it is).
    var completed: ResponseItem {
        switch self {
        case .message(var item):
            item.status = item.status ?? "completed"
            return .message(item)
        case .functionCall(var item):
            item.status = item.status ?? "completed"
            return .functionCall(item)
        case .functionCallOutput(var item):
            item.status = item.status ?? "completed"
            return .functionCallOutput(item)
        case .reasoning: return self
        }
    }

    /// The item if it is one to read and keep as it is (a request's input, a conversation's
    /// item), or a 400 naming `param`: a message of a role the chat knows (`user`, `system`,
    /// `developer`, `assistant`) whose text parts have text, whose log-probabilities are zero or
    /// below and whose images are data: URLs (with `loadingImages`, ones that load); a function
    /// call whose arguments are a JSON object; `reasoning_text` reasoning; a status, if any, of
    /// `in_progress`, `completed` or `incomplete`. Stored items are read back as they were kept.
    func checked(param: String, loadingImages: Bool) throws -> ResponseItem {
        do {
            if let status, !["in_progress", "completed", "incomplete"].contains(status) {
                throw APIError(.badRequest, "Item status '\(status)' is not one of in_progress, completed or incomplete", param: param)
            }
            switch self {
            case .message(let message):
                guard ["user", "system", "developer", "assistant"].contains(message.role) else {
                    throw APIError(.badRequest, "Unsupported message role '\(message.role)'", param: param)
                }
                for part in message.content where part.type != "input_image" {
                    guard part.text != nil else { throw APIError(.badRequest, "A \(part.type) part needs its text", param: param) }
                    guard part.logprobs?.allSatisfy(\.isALogProbability) ?? true else {
                        throw APIError(.badRequest, "A log-probability must be zero or below", param: param)
                    }
                }
                let images = try message.images()
                if loadingImages {
                    for image in images {
                        do {
                            _ = try image.load()
                        } catch {
                            throw APIError(.badRequest, "An input_image cannot be read: \(error.localizedDescription)", param: param)
                        }
                    }
                }
            case .functionCall(let call): _ = try call.call()
            case .reasoning(let reasoning):
                if let part = reasoning.content?.first(where: { $0.type != "reasoning_text" }) {
                    throw APIError(.badRequest, "Reasoning content type '\(part.type)' is not supported; use reasoning_text", param: param)
                }
            case .functionCallOutput: break
            }
        } catch let error as APIError {
            throw error.naming(param)
        }
        return self
    }
}
