import Foundation

/// A JSON value whose objects keep their keys in order: a JSON Schema's `properties` order is
/// the order a constrained model writes them in, and Foundation's JSON parsers do not keep it.
/// Parse text with ``init(parsing:)-(String)``; write literals in Swift (dictionary literals keep their
/// order); ``text`` writes compact JSON back.
public enum JSONValue: Sendable, Hashable {
    /// JSON null.
    case null
    /// A JSON boolean.
    case bool(Bool)
    /// A JSON number.
    case number(Double)
    /// A JSON string.
    case string(String)
    /// A JSON array.
    case array([JSONValue])
    /// A JSON object, its keys in their written order.
    case object(JSONObject)

    /// The string, if this is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, if this is one.
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    /// The Boolean, if this is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The object, if this is one.
    public var objectValue: JSONObject? { if case .object(let value) = self { value } else { nil } }

    /// The member `key` of an object (nil for a missing key or another kind of value).
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// Compact JSON text, keys in their order.
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value): out += Self.format(value)
        case .string(let value): Self.quote(value, into: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (index, (key, value)) in object.members.enumerated() {
                if index > 0 { out += "," }
                Self.quote(key, into: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// A number as JSON writes it: whole numbers without a fraction.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `string` as a JSON string literal.
    static func quote(_ string: String, into out: inout String) {
        out += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// A JSON object: its members in order, each key once (a repeated key keeps its last value, in
/// its first place, as most parsers do).
public struct JSONObject: Sendable, Hashable {
    /// The members in order.
    public private(set) var members: [(key: String, value: JSONValue)]
    /// Where each key is in `members`, once there are more than ``indexedFrom``: a request's body
    /// may hold an object of a hundred thousand keys (a `logit_bias`), which searching the members
    /// for each key read made quadratic; a small object is searched quicker than hashed.
    private var positions: [String: Int]?
    private static let indexedFrom = 16

    /// An object of `members`, in their order.
    public init(_ members: [(String, JSONValue)] = []) {
        self.members = []
        for (key, value) in members { self[key] = value }
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of `key`; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            switch (position(of: key), newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil):
                members.remove(at: index)
                reindex()
            case (nil, let value?):
                members.append((key, value))
                if positions != nil { positions?[key] = members.count - 1 } else { reindex() }
            case (nil, nil): break
            }
        }
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return members.firstIndex { $0.key == key }
    }

    /// Indexes the members anew, once there are enough of them.
    private mutating func reindex() {
        guard members.count > Self.indexedFrom else {
            positions = nil
            return
        }
        positions = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1.key, $0) })
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for (key, value) in members {
            hasher.combine(key)
            hasher.combine(value)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}

extension JSONValue: Codable {
    /// Decodes any JSON value. Object keys come in the decoder's order, which Foundation's
    /// `JSONDecoder` does not keep: parse text with ``init(parsing:)-(String)`` where order matters.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                JSONObject(
                    try container.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
                        ($0.stringValue, try container.decode(JSONValue.self, forKey: $0))
                    }))
        } else if var container = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !container.isAtEnd { values.append(try container.decode(JSONValue.self)) }
            self = .array(values)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Double.self) {
                self = .number(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    /// Encodes the value; object keys in their order.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try container.encode(value) }
        case .object(let object):
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in object.members { try container.encode(value, forKey: AnyKey(key)) }
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
