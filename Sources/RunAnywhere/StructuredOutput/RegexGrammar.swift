import Foundation

/// GBNF for the text inside a JSON string that matches a regular expression (a JSON Schema
/// `pattern`), for a useful subset: literals, `.`, classes (`[a-z]`, `[^…]`, `\d`, `\w`, `\s`
/// and their negations), groups (`(…)`, `(?:…)`), `|`, and the quantifiers `*`, `+`, `?`, `{n}`,
/// `{n,}`, `{n,m}`. The whole string matches (a leading `^` and trailing `$` change nothing):
/// such a string also contains a match, so it is valid for the schema. Characters a JSON string
/// must escape are written escaped; classes never produce `"`, `\` or control characters.
struct RegexGrammar {
    private let pattern: [Character]
    private var index = 0

    /// The expression for strings matching `pattern`, using the shared rules in `rules`.
    static func expression(_ pattern: String, rules: inout GrammarRules) throws -> String {
        var chars = Array(pattern)
        if chars.first == "^" { chars.removeFirst() }
        if chars.last == "$", chars.count < 2 || chars[chars.count - 2] != "\\" { chars.removeLast() }
        var parser = RegexGrammar(pattern: chars)
        let expression = try parser.alternation(rules: &rules)
        guard parser.index == chars.count else { throw parser.fail("unexpected ')'") }
        return expression.isEmpty ? "\"\"" : expression
    }

    private init(pattern: [Character]) { self.pattern = pattern }

    private func fail(_ why: String) -> SDKError {
        SDKError(.invalidInput, "Unsupported pattern \"\(String(pattern))\": \(why) (at character \(index))")
    }

    private var current: Character? { index < pattern.count ? pattern[index] : nil }

    private mutating func alternation(rules: inout GrammarRules) throws -> String {
        var options = [try sequence(rules: &rules)]
        while current == "|" {
            index += 1
            options.append(try sequence(rules: &rules))
        }
        if options.count == 1 { return options[0] }
        return "(" + options.map { $0.isEmpty ? "\"\"" : $0 }.joined(separator: " | ") + ")"
    }

    private mutating func sequence(rules: inout GrammarRules) throws -> String {
        var items: [String] = []
        while let char = current, char != "|", char != ")" {
            var term = try atom(rules: &rules)
            if let quantifier = try quantifier() { term = (term.contains(" ") ? "(\(term))" : term) + quantifier }
            items.append(term)
        }
        return items.joined(separator: " ")
    }

    private mutating func atom(rules: inout GrammarRules) throws -> String {
        let char = pattern[index]
        index += 1
        switch char {
        case "(":
            if current == "?" {
                guard index + 1 < pattern.count, pattern[index + 1] == ":" else {
                    throw fail("lookarounds and named groups are not supported")
                }
                index += 2
            }
            let inner = try alternation(rules: &rules)
            guard current == ")" else { throw fail("a group is not closed") }
            index += 1
            return "(" + (inner.isEmpty ? "\"\"" : inner) + ")"
        case "[": return try characterClass()
        case ".": return rules.primitive("char")
        case "\\": return try escape(inClass: false)
        case "*", "+", "?", "{": throw fail("a quantifier with nothing before it")
        case "^", "$": throw fail("anchors are only supported at the start and the end")
        default: return Self.jsonLiteral(char)
        }
    }

    /// `x*`, `x+`, `x?`, `x{n}`, `x{n,}`, `x{n,m}` (a lazy `?` after them changes nothing here).
    private mutating func quantifier() throws -> String? {
        guard let char = current else { return nil }
        var result: String
        switch char {
        case "*", "+", "?":
            index += 1
            result = String(char)
        case "{":
            guard let close = pattern[index...].firstIndex(of: "}") else { throw fail("a '{' quantifier is not closed") }
            let body = String(pattern[(index + 1)..<close])
            let parts = body.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard (1...2).contains(parts.count), let low = Int(parts[0]),
                parts.count == 1 || parts[1].isEmpty || Int(parts[1]).map({ $0 >= low }) == true
            else {
                throw fail("a malformed {…} quantifier")
            }
            index = close + 1
            result = parts.count == 1 ? "{\(low)}" : "{\(low),\(parts[1])}"
        default:
            return nil
        }
        if current == "?" { index += 1 }
        return result
    }

    private mutating func escape(inClass: Bool) throws -> String {
        guard let char = current else { throw fail("the pattern ends with '\\'") }
        index += 1
        switch char {
        case "d": return "[0-9]"
        case "w": return "[a-zA-Z0-9_]"
        case "s": return "\" \""
        case "D": return Self.negated("0-9")
        case "W": return Self.negated("a-zA-Z0-9_")
        case "S": return Self.negated("\\x20")
        case "n": return Self.jsonLiteral("\n")
        case "t": return Self.jsonLiteral("\t")
        case "r": return Self.jsonLiteral("\r")
        case "b", "B", "A", "Z", "z", "G", "k", "p", "P": throw fail("'\\\(char)' is not supported")
        case _ where char.isNumber: throw fail("backreferences are not supported")
        default: return Self.jsonLiteral(char)
        }
    }

    /// `[…]` or `[^…]`, as a GBNF class that never yields a character JSON must escape.
    private mutating func characterClass() throws -> String {
        var negate = false
        if current == "^" {
            negate = true
            index += 1
        }
        var items = ""
        var first = true
        while let char = current, char != "]" || first {
            first = false
            index += 1
            var low: Character = char
            if char == "\\" {
                guard let escaped = current else { throw fail("a class ends with '\\'") }
                index += 1
                switch escaped {
                case "d":
                    items += "0-9"
                    continue
                case "w":
                    items += "a-zA-Z0-9_"
                    continue
                case "s":
                    items += "\\x20"
                    continue
                case "n", "t", "r": continue  // control characters never appear unescaped in JSON
                case "D", "W", "S", "b", "p", "P": throw fail("'\\\(escaped)' inside a class is not supported")
                default: low = escaped
                }
            }
            if current == "-", index + 1 < pattern.count, pattern[index + 1] != "]" {
                index += 1
                var high = pattern[index]
                index += 1
                if high == "\\" {
                    guard let escaped = current else { throw fail("a class ends with '\\'") }
                    index += 1
                    high = escaped
                }
                guard low <= high else { throw fail("the range \(low)-\(high) runs backwards") }
                items += Self.classRange(low, high)
            } else {
                items += Self.classRange(low, low)
            }
        }
        guard current == "]" else { throw fail("a class is not closed") }
        index += 1
        if negate { return Self.negated(items) }
        guard !items.isEmpty else { throw fail("the class has no character a JSON string may hold unescaped") }
        return "[" + items + "]"
    }

    /// A class of every JSON string character except `items`.
    private static func negated(_ items: String) -> String {
        "[^" + items + "\"\\\\\\x00-\\x1F\\x7F]"
    }

    /// The characters `low` to `high` inside a GBNF class, without the ones a JSON string must
    /// escape (quote, backslash, control characters): a class in a pattern never yields those.
    private static func classRange(_ low: Character, _ high: Character) -> String {
        guard let from = low.unicodeScalars.first?.value, let to = high.unicodeScalars.first?.value else { return "" }
        var pieces: [(UInt32, UInt32)] = []
        var start = from
        for excluded: UInt32 in [0x22, 0x5C, 0x7F] where start <= to && (start...to).contains(excluded) {
            if start < excluded { pieces.append((start, excluded - 1)) }
            start = excluded + 1
        }
        if start <= to { pieces.append((start, to)) }
        return pieces.map { piece -> String in
            let first = max(piece.0, 0x20)
            guard first <= piece.1 else { return "" }
            return first == piece.1
                ? GrammarRules.classCharacter(first) : GrammarRules.classCharacter(first) + "-" + GrammarRules.classCharacter(piece.1)
        }.joined()
    }

    /// `char` as it appears inside a JSON string, as a GBNF literal.
    private static func jsonLiteral(_ char: Character) -> String {
        var json = ""
        JSONValue.quote(String(char), into: &json)
        return GrammarRules.literal(String(json.dropFirst().dropLast()))
    }
}
