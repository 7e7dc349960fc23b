import Foundation

extension JSONValue {
    /// Parses JSON text (RFC 8259), keeping object keys in their order; throws
    /// ``ErrorCode/invalidInput`` saying where the text stops being JSON.
    public init(parsing text: String) throws {
        var parser = JSONParser(Array(text.utf8))
        self = try parser.document()
    }

    /// Parses JSON bytes (UTF-8).
    public init(parsing data: Data) throws {
        var parser = JSONParser(Array(data))
        self = try parser.document()
    }
}

/// A strict recursive-descent JSON parser over UTF-8 bytes (nesting at most 256 deep).
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws -> JSONValue {
        skipSpace()
        let value = try self.value()
        skipSpace()
        guard index == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private func fail(_ why: String) -> SDKError {
        SDKError(.invalidInput, "Not valid JSON at byte \(index): \(why)")
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func value() throws -> JSONValue {
        guard index < bytes.count else { throw fail("the text ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) throws -> JSONValue {
        let utf8 = Array(word.utf8)
        guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else { throw fail("expected \(word)") }
        index += utf8.count
        return value
    }

    private mutating func nest() throws {
        depth += 1
        guard depth <= 256 else { throw fail("nested more than 256 deep") }
    }

    private mutating func object() throws -> JSONValue {
        try nest()
        defer { depth -= 1 }
        index += 1
        var object = JSONObject()
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key in quotes") }
            let key = try string()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after the key \"\(key)\"") }
            index += 1
            skipSpace()
            object[key] = try value()
            skipSpace()
            guard index < bytes.count else { throw fail("the object is not closed") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}' in an object") }
            index += 1
            return .object(object)
        }
    }

    private mutating func array() throws -> JSONValue {
        try nest()
        defer { depth -= 1 }
        index += 1
        var values: [JSONValue] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipSpace()
            values.append(try value())
            skipSpace()
            guard index < bytes.count else { throw fail("the array is not closed") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']' in an array") }
            index += 1
            return .array(values)
        }
    }

    private mutating func string() throws -> String {
        index += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        var start = index
        func flush() throws {
            guard let piece = String(bytes: bytes[start..<index], encoding: .utf8) else { throw fail("the string is not UTF-8") }
            scalars.append(contentsOf: piece.unicodeScalars)
        }
        while true {
            guard index < bytes.count else { throw fail("the string is not closed") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try flush()
                index += 1
                return String(scalars)
            }
            guard byte >= 0x20 else { throw fail("a control character inside a string") }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            try flush()
            index += 1
            guard index < bytes.count else { throw fail("the string ends inside an escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("a lone surrogate \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone surrogate \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("a lone surrogate \\u escape") }
                scalars.append(scalar)
            default: throw fail("an unknown escape \\\(Character(Unicode.Scalar(escape)))")
            }
            start = index
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - index >= 4, let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw fail("expected four hex digits after \\u")
        }
        index += 4
        return code
    }

    private mutating func number() throws -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        guard index < bytes.count else { throw fail("a number without digits") }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { throw fail("a number without digits") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw fail("no digits after the decimal point") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw fail("no digits in the exponent") }
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            throw fail("a number out of range")
        }
        return value
    }
}
