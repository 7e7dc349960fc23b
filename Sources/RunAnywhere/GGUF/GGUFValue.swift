/// One metadata value of a GGUF file.
package enum GGUFValue: Sendable, Equatable, CustomStringConvertible {
    /// An unsigned integer.
    case unsigned(UInt64)
    /// A signed integer.
    case signed(Int64)
    /// A floating-point number.
    case float(Double)
    /// A boolean.
    case bool(Bool)
    /// A string.
    case string(String)
    /// An array; long arrays (such as a vocabulary) keep only their first elements.
    case array(count: Int, prefix: [GGUFValue])

    /// The value as an integer, when it is one.
    package var intValue: Int? {
        switch self {
        case .unsigned(let v): Int(exactly: v)
        case .signed(let v): Int(exactly: v)
        default: nil
        }
    }

    /// The value as a string, when it is one.
    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A short rendering for people; long strings and arrays are abbreviated.
    package var description: String {
        switch self {
        case .unsigned(let v): return String(v)
        case .signed(let v): return String(v)
        case .float(let v): return String(v)
        case .bool(let v): return String(v)
        case .string(let s): return s.count > 80 ? "\"\(s.prefix(77))...\" (\(s.count) chars)" : "\"\(s)\""
        case .array(let count, let prefix):
            let shown = prefix.prefix(4).map(\.description).joined(separator: ", ")
            return count > 4 ? "[\(shown), ...] (\(count) items)" : "[\(shown)]"
        }
    }
}
