import Foundation

/// A function the model may call: its name, what it does, and the JSON Schema of its arguments
/// (an object schema; see ``StructuredOutputConfig`` for the keywords supported). The model's call is
/// sampled through a grammar made from the schema, so its arguments always parse and match it.
public struct Tool: Codable, Sendable, Equatable {
    /// The name the model calls it by: letters, digits, `_` and `-`, at most 64 characters.
    public let name: String
    /// What it does and when to use it, for the model.
    public let description: String
    /// The JSON Schema of its arguments: an object schema.
    public let parameters: JSONValue

    /// Creates a tool; with no `parameters`, it takes no arguments.
    public init(name: String, description: String, parameters: JSONValue = ["type": "object", "properties": [:]]) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }

    /// Throws ``ErrorCode/invalidInput`` for a name a model cannot call or parameters that are
    /// not an object schema.
    package func validate() throws {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-"))
        guard !name.isEmpty, name.count <= 64, name.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) else {
            throw SDKError.llm(.invalidInput, "Invalid tool name '\(name)': use 1 to 64 letters, digits, '_' or '-'")
        }
        guard let schema = parameters.objectValue else {
            throw SDKError.llm(.invalidInput, "Tool '\(name)': parameters must be a JSON Schema object")
        }
        if let type = schema["type"], type != .string("object") {
            throw SDKError.llm(.invalidInput, "Tool '\(name)': parameters must describe an object (type \"object\"), not \(type.text)")
        }
    }
}

/// A call the model made: which tool, with which arguments.
public struct ToolCall: Codable, Sendable, Equatable, Identifiable {
    /// Identifies the call; a ``MessageRole/tool`` message answers it by this id.
    public let id: String
    /// The tool's name (one of the request's tools).
    public let name: String
    /// The arguments, a JSON object that matches the tool's parameters schema.
    public let arguments: JSONValue

    /// Creates a call; a new id unless one is given.
    public init(id: String = ToolCall.newID(), name: String, arguments: JSONValue) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }

    /// The arguments as JSON text (OpenAI's `function.arguments`).
    public var argumentsJSON: String { arguments.text }

    /// The arguments decoded as `type`.
    public func decodeArguments<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(argumentsJSON.utf8))
    }

    /// A fresh call id, `call_` and 24 random letters and digits.
    public static func newID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return "call_" + String((0..<24).map { _ in alphabet.randomElement()! })
    }
}

/// Whether and which tool the model must call (OpenAI's `tool_choice`).
public enum ToolChoice: Codable, Sendable, Equatable {
    /// The model answers in text or calls tools, as it decides.
    case auto
    /// The model answers in text; the tools are not offered.
    case none
    /// The model calls one or more of the tools.
    case required
    /// The model calls the tool of this name.
    case tool(String)

    /// The choice a word names: `auto`, `required`, `none`, or the name of one of `tools`; nil
    /// for any other (the CLI's `--tool-choice`, a conversation answer's `toolChoice`).
    package init?(naming word: String, among tools: [Tool]) {
        switch word {
        case "auto": self = .auto
        case "required": self = .required
        case "none": self = .none
        case let name where tools.contains { $0.name == name }: self = .tool(name)
        default: return nil
        }
    }

    /// The word ``init(naming:among:)`` reads as this choice.
    package var word: String {
        switch self {
        case .auto: "auto"
        case .none: "none"
        case .required: "required"
        case .tool(let name): name
        }
    }
}
