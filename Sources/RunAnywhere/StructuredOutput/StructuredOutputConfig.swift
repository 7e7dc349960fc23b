import Foundation

/// A type a model can be asked to produce as JSON: its JSON Schema, and decoding from it.
/// `generateStructured(_:prompt:options:)` constrains the model to the schema and decodes the
/// answer as the type.
public protocol Generatable: Decodable, Sendable {
    /// The JSON Schema of the type's JSON form (``StructuredOutputConfig`` lists the keywords
    /// supported).
    static var jsonSchema: JSONValue { get }
}

/// Output the model must keep to (the spec's `structuredOutput`): a JSON Schema, any JSON
/// object, or a GBNF grammar of the caller's own. The engine samples only tokens that keep the
/// output inside it, so it is valid by construction; it ends when the grammar is complete, or at
/// `maxTokens` with stop reason `length` when the model runs out of tokens first.
///
/// A JSON Schema may use `type` (one or a list), `enum`, `const`; objects with `properties`
/// (written in their order, required ones first), `required` and `additionalProperties` (false,
/// or a schema for extra keys; by default none are written, but an object schema with neither is
/// any object); strings with `minLength`, `maxLength`, `pattern` (a regular expression) and
/// `format` `date`, `time`, `date-time`, `uuid`; integers with `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum`; numbers with whole-number bounds; booleans; null;
/// arrays with `items`, `prefixItems`, `minItems`, `maxItems`; `anyOf`, `oneOf`, a one-element
/// `allOf`; `$ref` to `#`, `#/$defs/…` and `#/definitions/…` (recursion included). Annotations
/// (`title`, `description`, `examples`…) are ignored. Anything else is an
/// ``ErrorCode/invalidInput`` error naming the keyword and where it is.
public struct StructuredOutputConfig: Codable, Sendable, Equatable {
    /// What the output must be.
    public enum Format: Codable, Sendable, Equatable {
        /// JSON that `schema` accepts.
        case jsonSchema(JSONValue)
        /// Any JSON object.
        case jsonObject
        /// Text that the GBNF grammar (root rule `root`) produces.
        case grammar(String)
    }

    /// What the output must be.
    public var format: Format
    /// Also tell the model, in the system prompt, to answer in JSON (with the schema): small models
    /// write better values when they know what the constraint is for. Ignored for a raw grammar.
    public var includeSchemaInPrompt: Bool

    /// Creates a configuration.
    public init(format: Format, includeSchemaInPrompt: Bool = true) {
        self.format = format
        self.includeSchemaInPrompt = includeSchemaInPrompt
    }

    /// JSON that `schema` accepts.
    public static func schema(_ schema: JSONValue, includeSchemaInPrompt: Bool = true) -> StructuredOutputConfig {
        StructuredOutputConfig(format: .jsonSchema(schema), includeSchemaInPrompt: includeSchemaInPrompt)
    }

    /// JSON of `type` (its ``Generatable/jsonSchema``).
    public static func type<T: Generatable>(_ type: T.Type, includeSchemaInPrompt: Bool = true) -> StructuredOutputConfig {
        schema(T.jsonSchema, includeSchemaInPrompt: includeSchemaInPrompt)
    }

    /// Any JSON object.
    public static let jsonObject = StructuredOutputConfig(format: .jsonObject)

    /// Text that the GBNF `grammar` produces.
    public static func grammar(_ grammar: String) -> StructuredOutputConfig {
        StructuredOutputConfig(format: .grammar(grammar), includeSchemaInPrompt: false)
    }

    /// The GBNF grammar the engine samples with; throws ``ErrorCode/invalidInput`` naming what is
    /// unsupported in a schema, and for a raw grammar with no rules or a NUL byte (llama.cpp would
    /// take it as no grammar at all, or read it only up to the NUL). Whether a raw grammar parses,
    /// the engine checks before it starts.
    package func grammar() throws -> String {
        switch format {
        case .jsonSchema(let schema): return try JSONSchemaGrammar.grammar(for: schema)
        case .jsonObject: return JSONSchemaGrammar.anyObject
        case .grammar(let grammar):
            guard !grammar.utf8.contains(0) else {
                throw SDKError(.invalidInput, "The grammar is not one llama.cpp can use: it contains a NUL byte")
            }
            let rules = grammar.split(separator: "\n").map { $0.prefix { $0 != "#" } }
            guard rules.contains(where: { !$0.allSatisfy(\.isWhitespace) }) else {
                throw SDKError(.invalidInput, "The grammar is not one llama.cpp can use: it has no rules (root ::= ...)")
            }
            return grammar
        }
    }

    /// What the system prompt gains: an instruction to answer in JSON, with the schema.
    package var instruction: String? {
        guard includeSchemaInPrompt else { return nil }
        switch format {
        case .jsonSchema(let schema): return "Answer with a JSON value that matches this JSON Schema, and nothing else:\n\(schema.text)"
        case .jsonObject: return "Answer with a JSON object, and nothing else."
        case .grammar: return nil
        }
    }
}
