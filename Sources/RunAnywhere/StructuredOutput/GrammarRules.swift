import Foundation

/// GBNF rules being written: named rules in order, each name once, with the shared pieces of
/// JSON (strings, numbers, whitespace…) added the first time something uses them.
struct GrammarRules {
    private(set) var rules: [(name: String, body: String)] = []
    private var names: Set<String> = []
    /// The last counter each base name was given: the next free name is found from there, not by
    /// trying every one taken before (a schema of thousands of properties adds as many `-rest` rules).
    private var counters: [String: Int] = [:]

    /// Adds a rule under a free name made from `hint` and returns the name.
    mutating func add(_ hint: String, _ body: String) -> String {
        let name = reserve(hint)
        define(name, body)
        return name
    }

    /// A free name made from `hint` (letters, digits and dashes), reserved for ``define(_:_:)``.
    mutating func reserve(_ hint: String) -> String {
        var base = String(hint.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" })
        while base.contains("--") { base = base.replacingOccurrences(of: "--", with: "-") }
        base = base.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        if base.isEmpty { base = "rule" }
        var name = base
        var counter = counters[base] ?? 1
        if counter > 1 { name = "\(base)-\(counter)" }
        while names.contains(name) || Self.reserved.contains(name) {
            counter += 1
            name = "\(base)-\(counter)"
        }
        counters[base] = counter
        names.insert(name)
        return name
    }

    /// Gives the reserved `name` its body.
    mutating func define(_ name: String, _ body: String) {
        rules.append((name, body))
    }

    /// The shared rule `name` (one of ``primitives``), added with what it uses on first use.
    mutating func primitive(_ name: String) -> String {
        guard !names.contains(name), let (body, uses) = Self.primitives[name] else { return name }
        names.insert(name)
        rules.append((name, body))
        for used in uses { _ = primitive(used) }
        return name
    }

    /// The grammar: `root` first, then every rule in the order added.
    func text(root: String) -> String {
        (["root ::= \(root)"] + rules.map { "\($0.name) ::= \($0.body)" }).joined(separator: "\n") + "\n"
    }

    /// Names the shared rules take, so that no schema rule is given one.
    private static let reserved: Set<String> = Set(primitives.keys).union(["root"])

    /// JSON's pieces: a value of each kind, and whitespace kept short (a newline and up to 20
    /// spaces or tabs of indentation) so that a model cannot spend its tokens on blanks.
    static let primitives: [String: (body: String, uses: [String])] = [
        "ws": (#"| " " | "\n" [ \t]{0,20}"#, []),
        "char": (#"[^"\\\x7F\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{4})"#, []),
        "string": (#""\"" char* "\"""#, ["char"]),
        "integer": (#"("-"? ([0-9] | [1-9] [0-9]{1,15}))"#, []),
        "number": (#"("-"? ([0-9] | [1-9] [0-9]{1,15})) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,3})?"#, []),
        "boolean": (#""true" | "false""#, []),
        "null": (#""null""#, []),
        "value": ("object | array | string | number | boolean | null", ["object", "array", "string", "number", "boolean", "null"]),
        "object": (#""{" ws ( string ws ":" ws value ws ( "," ws string ws ":" ws value ws )* )? "}""#, ["ws", "string", "value"]),
        "array": (#""[" ws ( value ws ( "," ws value ws )* )? "]""#, ["ws", "value"]),
    ]

    /// `text` as a GBNF literal: in double quotes, with quotes, backslashes and control
    /// characters escaped.
    static func literal(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += String(format: "\\x%02X", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A character inside a GBNF class: letters and digits as they are, anything else as `\xHH`
    /// or `\uHHHH`, so that none can end the class or start a range by accident.
    static func classCharacter(_ value: UInt32) -> String {
        if let scalar = Unicode.Scalar(value), scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
            return String(scalar)
        }
        return value < 0x100
            ? String(format: "\\x%02X", value) : value < 0x10000 ? String(format: "\\u%04X", value) : String(format: "\\U%08X", value)
    }
}
