import Foundation

extension Character {
    /// Whether the character shows as itself within one line: not a control, format,
    /// line-breaking, private-use or unassigned character, which would break a message or a log
    /// line, or change how the rest of it reads (a bidirectional override). The zero-width
    /// joiners that emoji and some scripts are written with are kept.
    package var isPrintableInLine: Bool {
        !isNewline
            && unicodeScalars.allSatisfy { scalar in
                if scalar == "\u{200C}" || scalar == "\u{200D}" { return true }
                switch scalar.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return false
                default: return true
                }
            }
    }
}

/// `text` as the name a person gives something (`what`, as a message starts: "A conversation
/// title"), trimmed: ``ErrorCode/invalidInput`` when it is empty, longer than `limit`
/// characters, or not one line of characters that show as themselves
/// (``Swift/Character/isPrintableInLine``), since such a name is shown on one line in lists.
package func checkedName(_ text: String, what: String, limit: Int) throws -> String {
    let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !name.isEmpty else { throw SDKError(.invalidInput, "\(what) cannot be empty") }
    guard name.count <= limit else { throw SDKError(.invalidInput, "\(what) is at most \(limit) characters; this one has \(name.count)") }
    if let character = name.first(where: { !$0.isPrintableInLine }) {
        let codes = character.unicodeScalars.map { String(format: "U+%04X", $0.value) }.joined(separator: " ")
        throw SDKError(.invalidInput, "\(what) is one line of printable characters; this one holds \(codes)")
    }
    return name
}
