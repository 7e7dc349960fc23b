/// GBNF for the whole numbers between two bounds, written digit by digit (no leading zeros), so
/// that a constrained model can only write numbers in range.
enum IntegerRangeGrammar {
    /// Most digits a number without an upper bound may have.
    static let maxDigits = 16

    /// An expression for the integers from `minimum` to `maximum` (either may be open; both
    /// within ±10^15, and `minimum` ≤ `maximum`).
    static func expression(minimum lo: Int64?, maximum hi: Int64?) -> String {
        var parts: [String] = []
        if lo.map({ $0 < 0 }) ?? true {
            let nearest = min(hi ?? -1, -1)  // the negative number nearest zero
            if lo.map({ $0 <= nearest }) ?? true {
                parts.append("\"-\" " + group(magnitudes(from: -nearest, to: lo.map { -$0 })))
            }
        }
        if hi.map({ $0 >= 0 }) ?? true {
            parts.append(magnitudes(from: max(0, lo ?? 0), to: hi))
        }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " | ") + ")"
    }

    private static func group(_ expression: String) -> String {
        expression.contains(" ") ? "(" + expression + ")" : expression
    }

    /// Non-negative integers from `low` to `high` (nil: any number of digits up to ``maxDigits``).
    static func magnitudes(from low: Int64, to high: Int64?) -> String {
        let lowDigits = String(low).count
        let highDigits = high.map { String($0).count } ?? maxDigits
        var alternatives: [String] = []
        for length in lowDigits...max(lowDigits, highDigits) {
            let first: Int64 = length == 1 ? 0 : power(length - 1)
            let last: Int64 = length >= 19 ? Int64.max : power(length) - 1
            let from = max(low, first)
            let to = min(high ?? last, last)
            guard from <= to else { continue }
            if high == nil, length > lowDigits {  // every number of this length and longer
                alternatives.append("[1-9] [0-9]{\(length - 1),\(maxDigits - 1)}")
                break
            }
            alternatives.append(sameLength(Array(String(from)), Array(String(to))))
        }
        return alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " | ") + ")"
    }

    /// Strings of digits as long as `low` and `high` (leading zeros allowed: they are the tail of
    /// a longer number), from `low` to `high`.
    private static func sameLength(_ low: [Character], _ high: [Character]) -> String {
        guard let a = low.first, let b = high.first else { return "" }
        let rest = low.count - 1
        let any = rest == 0 ? "" : " [0-9]" + (rest == 1 ? "" : "{\(rest)}")
        if low.dropFirst().allSatisfy({ $0 == "0" }), high.dropFirst().allSatisfy({ $0 == "9" }) {
            return (a == b ? "[\(a)]" : "[\(a)-\(b)]") + any
        }
        if a == b { return "[\(a)] " + sameLength(Array(low.dropFirst()), Array(high.dropFirst())) }
        var options = ["[\(a)] " + sameLength(Array(low.dropFirst()), Array(repeating: "9", count: rest))]
        let (next, previous) = (Character(UnicodeScalar(a.asciiValue! + 1)), Character(UnicodeScalar(b.asciiValue! - 1)))
        if next <= previous { options.append((next == previous ? "[\(next)]" : "[\(next)-\(previous)]") + any) }
        options.append("[\(b)] " + sameLength(Array(repeating: "0", count: rest), Array(high.dropFirst())))
        return "(" + options.joined(separator: " | ") + ")"
    }

    private static func power(_ exponent: Int) -> Int64 {
        (0..<exponent).reduce(Int64(1)) { value, _ in value.multipliedReportingOverflow(by: 10).overflow ? Int64.max : value * 10 }
    }
}
