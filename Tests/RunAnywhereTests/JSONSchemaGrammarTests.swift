import Foundation
import RunAnywhere
import Testing

/// The JSON Schema → GBNF converter's text and its refusals. (What the grammars accept is checked
/// by llama.cpp itself in the llama.cpp tests, and by sampling in the structured-output tests.)
struct JSONSchemaGrammarTests {
    func grammar(_ schema: JSONValue) throws -> String { try JSONSchemaGrammar.grammar(for: schema) }

    @Test func everySupportedKeywordConverts() throws {
        let schemas: [JSONValue] = [
            ["type": "string"], ["type": "string", "minLength": 2, "maxLength": 5],
            ["type": "string", "pattern": "^[A-Z][a-z]+ \\d{2,3}$"], ["type": "string", "pattern": "[!-\"][ -~]{2}[^\\d]"],
            ["type": "string", "format": "date-time"], ["type": "string", "format": "uuid"],
            ["type": "integer", "minimum": -5, "maximum": 120],
            ["type": "integer", "exclusiveMinimum": 0], ["type": "number", "minimum": 0, "maximum": 1], ["type": "number"],
            ["type": "boolean"],
            ["type": "null"], ["enum": ["red", "green", 3, nil]], ["const": ["a": 1]], ["type": ["string", "null"]],
            ["type": "array", "items": ["type": "integer"], "minItems": 1, "maxItems": 3],
            ["type": "array", "prefixItems": [["type": "string"], ["type": "number"]]],
            ["anyOf": [["type": "string"], ["type": "integer"]]], ["oneOf": [["const": 1], ["const": 2]]], ["allOf": [["type": "boolean"]]],
            [
                "type": "object", "properties": ["name": ["type": "string"], "age": ["type": "integer"]], "required": ["name"],
                "additionalProperties": false,
            ],
            ["type": "object", "additionalProperties": ["type": "number"]], ["type": "object", "properties": ["a": ["type": "string"]]],
            [
                "$defs": [
                    "node": [
                        "type": "object", "properties": ["next": ["anyOf": [["$ref": "#/$defs/node"], ["type": "null"]]]],
                        "required": ["next"],
                    ]
                ], "$ref": "#/$defs/node",
            ],
            ["title": "Anything", "description": "no type at all"], true,
        ]
        for schema in schemas {
            let text = try grammar(schema)
            #expect(text.hasPrefix("root ::= "), "\(schema.text)")
            // Every rule used is defined, and each once.
            let defined = text.split(separator: "\n").compactMap { $0.components(separatedBy: " ::= ").first }
            #expect(Set(defined).count == defined.count, "\(schema.text): a rule defined twice\n\(text)")
            let used = Set(
                text.split(separator: "\n").flatMap { line in
                    line.components(separatedBy: " ::= ").dropFirst().joined().replacingOccurrences(
                        of: #""([^"\\]|\\.)*""#, with: " ", options: .regularExpression
                    )
                    .replacingOccurrences(of: #"\[([^\]\\]|\\.)*\]"#, with: " ", options: .regularExpression)
                    .components(separatedBy: CharacterSet(charactersIn: " ()|*+?{},")).filter { !$0.isEmpty }
                })
            let names = used.filter { $0.first?.isLetter == true }
            #expect(names.isSubset(of: Set(defined)), "\(schema.text): undefined \(names.subtracting(defined))\n\(text)")
        }
    }

    @Test func objectsWriteRequiredPropertiesFirstAndInOrder() throws {
        let schema: JSONValue = [
            "type": "object", "properties": ["b": ["type": "string"], "a": ["type": "integer"], "c": ["type": "boolean"]],
            "required": ["c", "a"],
        ]
        let text = try grammar(schema)
        let root = try #require(text.split(separator: "\n").first)
        // a and c are required (in the properties' order: a, then c), b optional after them.
        #expect(root.contains("root-a-kv \",\" ws root-c-kv (\",\" ws root-b-kv)?"), "\(text)")
        #expect(text.contains(#"root-a-kv ::= "\"a\"" ws ":" ws integer ws"#), "\(text)")
    }

    @Test func unsupportedSchemasNameTheKeyword() {
        let cases: [(JSONValue, String)] = [
            (["type": "string", "format": "email"], "format 'email'"), (["type": "array", "uniqueItems": true], "'uniqueItems'"),
            (["type": "object", "patternProperties": [:]], "'patternProperties'"),
            (["allOf": [["type": "string"], ["minLength": 1]]], "allOf with more than one"),
            (["$ref": "https://example.com/s.json"], "only references inside the schema"),
            (["$ref": "#/$defs/missing"], "points to nothing"),
            (["type": "decimal"], "unknown type 'decimal'"), (["type": "integer", "minimum": 5, "maximum": 1], "no integer lies between"),
            (["type": "number", "minimum": 0.5], "only whole-number bounds"), (["type": "string", "pattern": "(?=a)b"], "lookarounds"),
            (["type": "string", "pattern": "(a)\\1"], "backreferences"),
            (["type": "object", "properties": ["a": true], "required": ["b"]], "'b' is required but not"),
            (false, "accepts nothing"), (["enum": []], "enum must be a non-empty array"),
            (["type": "string", "minLength": 3, "maxLength": 2], "maxLength is below"),
            (
                ["type": "object", "properties": ["x": ["type": "string", "contentEncoding": "base64"]]],
                "#/properties/x: the keyword 'contentEncoding'"
            ),
        ]
        for (schema, fragment) in cases {
            let error = #expect(throws: SDKError.self, "\(schema.text)") { try grammar(schema) }
            #expect(error?.code == .invalidInput && error?.message.contains(fragment) == true, "\(schema.text): \(error?.message ?? "")")
        }
    }

    @Test func theOptionsCarryTheGrammarAndTheInstruction() throws {
        let config = StructuredOutputConfig.schema(["type": "object", "properties": ["ok": ["type": "boolean"]], "required": ["ok"]])
        #expect(try config.grammar().contains("root-ok-kv"))
        #expect(config.instruction?.contains(#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#) == true)
        #expect(StructuredOutputConfig.grammar("root ::= \"yes\"").instruction == nil)
        #expect(try StructuredOutputConfig.jsonObject.grammar() == JSONSchemaGrammar.anyObject)
        let options = LLMGenerationOptions(structuredOutput: config)
        // Through Codable (Foundation's decoder keeps no key order: keys come back sorted).
        let decoded = try JSONDecoder().decode(LLMGenerationOptions.self, from: JSONEncoder().encode(options))
        #expect(try decoded.structuredOutput?.grammar().contains("root-ok-kv") == true)
    }

    /// llama.cpp takes an empty grammar as none, and reads one only up to a NUL byte.
    @Test func aRawGrammarWithoutRulesOrWithANulByteIsRefused() throws {
        #expect(try StructuredOutputConfig.grammar("root ::= \"yes\"\n").grammar() == "root ::= \"yes\"\n")
        for grammar in ["", "  \n\t\n", "# only a comment\n", "\0root ::= \"yes\""] {
            let error = #expect(throws: SDKError.self) { try StructuredOutputConfig.grammar(grammar).grammar() }
            #expect(error?.code == .invalidInput, "\(grammar.debugDescription)")
        }
    }
}
