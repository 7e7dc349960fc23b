import Foundation

/// Turns a JSON Schema into a GBNF grammar for llama.cpp's grammar sampler, so that a model
/// sampled through it can only write JSON that the schema accepts.
///
/// It supports the keywords ``StructuredOutputConfig`` lists; `pattern` is compiled by
/// ``RegexGrammar``.
package enum JSONSchemaGrammar {
    /// A grammar for any JSON object (OpenAI's `json_object` response format).
    package static var anyObject: String {
        var rules = GrammarRules()
        let root = rules.primitive("object")
        return rules.text(root: root)
    }

    /// The grammar for the values `schema` accepts.
    package static func grammar(for schema: JSONValue) throws -> String {
        var converter = SchemaConverter(root: schema)
        let root = try converter.expression(schema, path: "#", hint: "root")
        return converter.rules.text(root: root)
    }
}

/// The rules of several schemas in one grammar, for grammars that hold them inside more of
/// their own (tool calls): each schema's `$ref`s resolve against that schema.
struct SchemaRuleSet {
    private var converter = SchemaConverter(root: .null)

    /// The GBNF expression for the values `schema` accepts, its rules added (named from `hint`).
    mutating func expression(for schema: JSONValue, hint: String) throws -> String {
        converter.root = schema
        converter.references = [:]
        return try converter.expression(schema, path: "#", hint: hint)
    }

    /// Adds a rule of the caller's own under a free name made from `hint`; returns the name.
    mutating func add(_ hint: String, _ body: String) -> String { converter.rules.add(hint, body) }

    /// The shared JSON rule `name` (`ws`, `string`, `value`…), added on first use.
    mutating func primitive(_ name: String) -> String { converter.rules.primitive(name) }

    /// The grammar, with `root` as its root rule.
    func text(root: String) -> String { converter.rules.text(root: root) }
}

/// One conversion: the rules written so far and the `$ref`s already named.
private struct SchemaConverter {
    var root: JSONValue
    var rules = GrammarRules()
    var references: [String: String] = [:]

    static let annotations: Set<String> = [
        "$schema", "$id", "$comment", "$anchor", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
        "$defs", "definitions", "strict",
    ]
    static let keywords: [String: Set<String>] = [
        "string": ["minLength", "maxLength", "pattern", "format"],
        "integer": ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
        "number": ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
        "object": ["properties", "required", "additionalProperties"],
        "array": ["items", "prefixItems", "minItems", "maxItems"],
        "boolean": [], "null": [],
    ]

    init(root: JSONValue) { self.root = root }

    func fail(_ path: String, _ why: String) -> SDKError {
        SDKError(.invalidInput, "Unsupported JSON Schema at \(path): \(why)")
    }

    /// The GBNF expression for values of `schema` (at `path`; `hint` names its rules).
    mutating func expression(_ schema: JSONValue, path: String, hint: String) throws -> String {
        if case .bool(let accepts) = schema {
            guard accepts else { throw fail(path, "the schema false accepts nothing") }
            return rules.primitive("value")
        }
        guard let object = schema.objectValue else { throw fail(path, "a schema must be an object or a boolean") }
        if let reference = object["$ref"] {
            guard object.keys.allSatisfy({ $0 == "$ref" || Self.annotations.contains($0) }) else {
                throw fail(path, "keywords beside $ref are not supported")
            }
            return try resolve(reference, path: path)
        }
        if let value = object["const"] { return GrammarRules.literal(value.text) }
        if let values = object["enum"] {
            guard let values = values.arrayValue, !values.isEmpty else { throw fail(path, "enum must be a non-empty array") }
            return "(" + values.map { GrammarRules.literal($0.text) }.joined(separator: " | ") + ")"
        }
        for combinator in ["anyOf", "oneOf", "allOf"] {
            guard let options = object[combinator] else { continue }
            guard let options = options.arrayValue, !options.isEmpty else { throw fail(path, "\(combinator) must be a non-empty array") }
            if combinator == "allOf", options.count != 1 { throw fail(path, "allOf with more than one schema is not supported") }
            let alternatives = try options.enumerated().map { index, option in
                try expression(option, path: "\(path)/\(combinator)/\(index)", hint: "\(hint)-\(index)")
            }
            return alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " | ") + ")"
        }
        let types: [String]
        switch object["type"] {
        case .string(let type)?: types = [type]
        case .array(let list)?:
            types = try list.map {
                guard let type = $0.stringValue else { throw fail(path, "type must be a string or a list of strings") }
                return type
            }
        case nil: types = Self.impliedTypes(object)
        default: throw fail(path, "type must be a string or a list of strings")
        }
        if types.isEmpty {
            try checkKeywords(object, allowed: [], path: path)
            return rules.primitive("value")
        }
        let allowed = try types.reduce(into: Set<String>()) { set, type in
            guard let keywords = Self.keywords[type] else { throw fail(path, "unknown type '\(type)'") }
            set.formUnion(keywords)
        }
        try checkKeywords(object, allowed: allowed.union(["type"]), path: path)
        let alternatives = try types.map { try typed($0, object, path: path, hint: types.count > 1 ? "\(hint)-\($0)" : hint) }
        return alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " | ") + ")"
    }

    /// The type a schema without `type` means by its keywords (none: any value).
    static func impliedTypes(_ object: JSONObject) -> [String] {
        let keys = Set(object.keys)
        if !keys.isDisjoint(with: ["properties", "additionalProperties", "required"]) { return ["object"] }
        if !keys.isDisjoint(with: ["items", "prefixItems", "minItems", "maxItems"]) { return ["array"] }
        if !keys.isDisjoint(with: ["minLength", "maxLength", "pattern", "format"]) { return ["string"] }
        if !keys.isDisjoint(with: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) { return ["number"] }
        return []
    }

    func checkKeywords(_ object: JSONObject, allowed: Set<String>, path: String) throws {
        if let unknown = object.keys.first(where: { !allowed.contains($0) && !Self.annotations.contains($0) }) {
            throw fail(path, "the keyword '\(unknown)' is not supported here")
        }
    }

    mutating func typed(_ type: String, _ object: JSONObject, path: String, hint: String) throws -> String {
        switch type {
        case "string": return try string(object, path: path)
        case "integer", "number": return try number(object, integer: type == "integer", path: path)
        case "boolean": return rules.primitive("boolean")
        case "null": return rules.primitive("null")
        case "array": return try array(object, path: path, hint: hint)
        default: return try self.object(object, path: path, hint: hint)
        }
    }

    /// `#`, `#/$defs/Name` or `#/definitions/Name`, as a rule of its own (so it may recurse).
    mutating func resolve(_ reference: JSONValue, path: String) throws -> String {
        guard let ref = reference.stringValue else { throw fail(path, "$ref must be a string") }
        if let name = references[ref] { return name }
        guard ref == "#" || ref.hasPrefix("#/") else {
            throw fail(path, "only references inside the schema (#/…) are supported, not '\(ref)'")
        }
        var target = root
        for raw in ref.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) where ref != "#" {
            let key = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let next = target[key] {
                target = next
            } else if let index = Int(key), let list = target.arrayValue, list.indices.contains(index) {
                target = list[index]
            } else {
                throw fail(path, "$ref '\(ref)' points to nothing")
            }
        }
        let name = rules.reserve(ref == "#" ? "root-ref" : "ref-" + String(ref.split(separator: "/").last ?? "ref"))
        references[ref] = name
        rules.define(name, try expression(target, path: ref, hint: name))
        return name
    }

    mutating func string(_ object: JSONObject, path: String) throws -> String {
        let minLength = try count(object, "minLength", path: path) ?? 0
        let maxLength = try count(object, "maxLength", path: path)
        if let maxLength, maxLength < minLength { throw fail(path, "maxLength is below minLength") }
        if let format = object["format"] {
            guard object["pattern"] == nil, object["minLength"] == nil, object["maxLength"] == nil else {
                throw fail(path, "format together with pattern or a length is not supported")
            }
            return "\"\\\"\" " + (try formatted(format.stringValue ?? "", path: path)) + " \"\\\"\""
        }
        if let pattern = object["pattern"] {
            guard object["minLength"] == nil, object["maxLength"] == nil else {
                throw fail(path, "pattern together with minLength or maxLength is not supported")
            }
            guard let text = pattern.stringValue else { throw fail(path, "pattern must be a string") }
            return "\"\\\"\" " + (try RegexGrammar.expression(text, rules: &rules)) + " \"\\\"\""
        }
        if minLength == 0, maxLength == nil { return rules.primitive("string") }
        let char = rules.primitive("char")
        return "\"\\\"\" \(char){\(minLength),\(maxLength.map(String.init) ?? "")} \"\\\"\""
    }

    func formatted(_ format: String, path: String) throws -> String {
        let date = #"[0-9]{4} "-" ("0" [1-9] | "1" [0-2]) "-" ("0" [1-9] | [1-2] [0-9] | "3" [0-1])"#
        let time =
            #"([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,6})? ("Z" | [+-] ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9])"#
        switch format {
        case "date": return "(\(date))"
        case "time": return "(\(time))"
        case "date-time": return "(\(date) \"T\" \(time))"
        case "uuid": return #"([0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{12})"#
        default: throw fail(path, "the string format '\(format)' is not supported (date, time, date-time and uuid are)")
        }
    }

    /// A non-negative whole-number keyword's value.
    func count(_ object: JSONObject, _ key: String, path: String) throws -> Int? {
        guard let value = object[key] else { return nil }
        guard let number = value.numberValue, number >= 0, number == number.rounded(), number < 1e6 else {
            throw fail(path, "\(key) must be a whole number from 0 to 999999")
        }
        return Int(number)
    }

    mutating func number(_ object: JSONObject, integer: Bool, path: String) throws -> String {
        func bound(_ key: String) throws -> Double? {
            guard let value = object[key] else { return nil }
            guard let number = value.numberValue, abs(number) < 1e15 else { throw fail(path, "\(key) must be a number within ±10^15") }
            return number
        }
        let (minimum, maximum) = (try bound("minimum"), try bound("maximum"))
        let (exclusiveMinimum, exclusiveMaximum) = (try bound("exclusiveMinimum"), try bound("exclusiveMaximum"))
        if minimum == nil, maximum == nil, exclusiveMinimum == nil, exclusiveMaximum == nil {
            return rules.primitive(integer ? "integer" : "number")
        }
        if integer {
            // Integers: the bounds rounded inwards, exclusive ones one step in.
            let low = [minimum.map { $0.rounded(.up) }, exclusiveMinimum.map { $0.rounded(.down) + 1 }].compactMap(\.self).max()
            let high = [maximum.map { $0.rounded(.down) }, exclusiveMaximum.map { $0.rounded(.up) - 1 }].compactMap(\.self).min()
            if let low, let high, low > high { throw fail(path, "no integer lies between the bounds") }
            return IntegerRangeGrammar.expression(minimum: low.map { Int64($0) }, maximum: high.map { Int64($0) })
        }
        for (key, value) in [
            ("minimum", minimum), ("maximum", maximum), ("exclusiveMinimum", exclusiveMinimum), ("exclusiveMaximum", exclusiveMaximum),
        ] {
            if let value, value != value.rounded() {
                throw fail(path, "\(key) \(JSONValue.format(value)) on a number: only whole-number bounds are supported")
            }
        }
        // Whole-number bounds, made inclusive (an exclusive one moves a whole unit in: stricter,
        // never wrong): an integer part inside the range with any fraction, or a bound itself with
        // a zero fraction. Negative numbers are "-" and a magnitude, mirrored.
        let low = [minimum, exclusiveMinimum.map { $0 + 1 }].compactMap(\.self).max().map { Int64($0) }
        let high = [maximum, exclusiveMaximum.map { $0 - 1 }].compactMap(\.self).min().map { Int64($0) }
        if let low, let high, low > high {
            throw fail(path, "no number lies between the bounds (exclusive bounds are kept a whole unit away)")
        }
        let fraction = #"("." [0-9]{1,16})?"#
        let zeros = #"("." "0"{1,16})?"#
        var options: [String] = []
        if high.map({ $0 >= 0 }) ?? true {
            let from = max(low ?? 0, 0)
            if let high {
                if from <= high - 1 { options.append(IntegerRangeGrammar.magnitudes(from: from, to: high - 1) + " " + fraction) }
                options.append("\"\(high)\" " + zeros)
            } else {
                options.append(IntegerRangeGrammar.magnitudes(from: from, to: nil) + " " + fraction)
            }
        }
        if low.map({ $0 < 0 }) ?? true {
            let nearest = high.map { $0 < 0 ? -$0 : 0 } ?? 0  // the smallest magnitude allowed
            if let low {
                if nearest <= -low - 1 {
                    options.append("\"-\" " + IntegerRangeGrammar.magnitudes(from: nearest, to: -low - 1) + " " + fraction)
                }
                options.append("\"-\(-low)\" " + zeros)
            } else {
                options.append("\"-\" " + IntegerRangeGrammar.magnitudes(from: nearest, to: nil) + " " + fraction)
            }
        }
        return "(" + options.joined(separator: " | ") + ")"
    }

    mutating func array(_ object: JSONObject, path: String, hint: String) throws -> String {
        let ws = rules.primitive("ws")
        let minItems = try count(object, "minItems", path: path) ?? 0
        let maxItems = try count(object, "maxItems", path: path)
        if let maxItems, maxItems < minItems { throw fail(path, "maxItems is below minItems") }
        if let prefix = object["prefixItems"] {
            guard let schemas = prefix.arrayValue, !schemas.isEmpty else { throw fail(path, "prefixItems must be a non-empty array") }
            guard object["items"] == nil || object["items"] == .bool(false), object["minItems"] == nil, object["maxItems"] == nil else {
                throw fail(path, "prefixItems with items, minItems or maxItems is not supported")
            }
            let elements = try schemas.enumerated().map { try expression($1, path: "\(path)/prefixItems/\($0)", hint: "\(hint)-\($0)") }
            return "\"[\" \(ws) " + elements.map { "\($0) \(ws)" }.joined(separator: " \",\" \(ws) ") + " \"]\""
        }
        let item = try object["items"].map { try expression($0, path: "\(path)/items", hint: "\(hint)-item") } ?? rules.primitive("value")
        let element = rules.add("\(hint)-item", "\(item) \(ws)")
        let more = "(\",\" \(ws) \(element))"
        let tail: String
        switch (minItems, maxItems) {
        case (_, 0?): return "\"[\" \(ws) \"]\""
        case (0, nil): tail = "(\(element) \(more)*)?"
        case (0, let max?): tail = "(\(element) \(more){0,\(max - 1)})?"
        case (let min, nil): tail = "\(element) \(more){\(min - 1),}"
        case (let min, let max?): tail = "\(element) \(more){\(min - 1),\(max - 1)}"
        }
        return "\"[\" \(ws) \(tail) \"]\""
    }

    mutating func object(_ object: JSONObject, path: String, hint: String) throws -> String {
        // Neither properties nor additionalProperties: any object.
        if object["properties"] == nil, object["additionalProperties"] == nil { return rules.primitive("object") }
        let ws = rules.primitive("ws")
        let properties =
            try object["properties"].map { value -> JSONObject in
                guard let properties = value.objectValue else { throw fail(path, "properties must be an object") }
                return properties
            } ?? JSONObject()
        let required =
            try object["required"].map { value -> [String] in
                guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count else {
                    throw fail(path, "required must be a list of strings")
                }
                return names
            } ?? []
        if let missing = required.first(where: { properties[$0] == nil }) {
            throw fail(path, "'\(missing)' is required but not among the properties")
        }
        let isRequired = Set(required)
        var pairs: [(name: String, rule: String, required: Bool)] = []
        for (name, schema) in properties.members {
            let value = try expression(schema, path: "\(path)/properties/\(name)", hint: "\(hint)-\(name)")
            let key = GrammarRules.literal(JSONValue.string(name).text)
            pairs.append((name, rules.add("\(hint)-\(name)-kv", "\(key) \(ws) \":\" \(ws) \(value) \(ws)"), isRequired.contains(name)))
        }
        // Required properties first, in their order, then the optional ones, each optional.
        let ordered = pairs.filter(\.required) + pairs.filter { !$0.required }
        var extra: String?
        switch object["additionalProperties"] {
        case nil, .bool(false)?: extra = nil
        case .bool(true)?: extra = rules.primitive("value")
        case let schema?: extra = try expression(schema, path: "\(path)/additionalProperties", hint: "\(hint)-additional")
        }
        let extraPair = extra.map { value -> String in
            let string = rules.primitive("string")
            return rules.add("\(hint)-additional-kv", "\(string) \(ws) \":\" \(ws) \(value) \(ws)")
        }
        let requiredRules = ordered.filter(\.required).map(\.rule)
        let optionalRules = ordered.filter { !$0.required }.map(\.rule)
        var body: String
        if !requiredRules.isEmpty {
            body = requiredRules.joined(separator: " \",\" \(ws) ")
            for rule in optionalRules { body += " (\",\" \(ws) \(rule))?" }
            if let extraPair { body += " (\",\" \(ws) \(extraPair))*" }
        } else if !optionalRules.isEmpty {
            // Any subset of the optional ones, in order: chain(i) = kv_i ("," chain(i+1))? | chain(i+1).
            var chain = optionalRules.last!
            if let extraPair { chain = "\(chain) (\",\" \(ws) \(extraPair))*" }
            chain = rules.add("\(hint)-rest", chain + (extraPair.map { " | \($0) (\",\" \(ws) \($0))*" } ?? ""))
            for rule in optionalRules.dropLast().reversed() {
                chain = rules.add("\(hint)-rest", "\(rule) (\",\" \(ws) \(chain))? | \(chain)")
            }
            body = "(\(chain))?"
        } else if let extraPair {
            body = "(\(extraPair) (\",\" \(ws) \(extraPair))*)?"
        } else {
            body = ""
        }
        return "\"{\" \(ws) \(body) \"}\""
    }
}
