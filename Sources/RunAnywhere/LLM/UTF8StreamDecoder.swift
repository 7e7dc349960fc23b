/// Turns token bytes into text without ever splitting a character: a multi-byte UTF-8 character
/// cut across tokens is held back until its last byte arrives. Invalid bytes become U+FFFD.
package struct UTF8StreamDecoder: Sendable {
    private var pending: [UInt8] = []

    /// Creates a decoder with nothing pending.
    package init() {}

    /// Adds bytes and returns the text that is now complete.
    package mutating func decode(_ bytes: [UInt8]) -> String {
        pending.append(contentsOf: bytes)
        let complete = completePrefixLength(pending)
        guard complete > 0 else { return "" }
        let text = String(decoding: pending[..<complete], as: UTF8.self)
        pending.removeFirst(complete)
        return text
    }

    /// Returns whatever is still held back (an unfinished character becomes U+FFFD).
    package mutating func finish() -> String {
        defer { pending.removeAll() }
        return pending.isEmpty ? "" : String(decoding: pending, as: UTF8.self)
    }

    /// Length of the longest prefix that does not end inside a character that could still be completed.
    private func completePrefixLength(_ bytes: [UInt8]) -> Int {
        // Look back at most 3 bytes for the lead byte of the last character.
        var index = bytes.count - 1
        var continuationBytes = 0
        while index >= 0, continuationBytes < 3, bytes[index] & 0b1100_0000 == 0b1000_0000 {
            index -= 1
            continuationBytes += 1
        }
        guard index >= 0 else { return bytes.count }
        let lead = bytes[index]
        let needed: Int
        switch lead {
        case 0xC2...0xDF: needed = 1
        case 0xE0...0xEF: needed = 2
        case 0xF0...0xF4: needed = 3
        default: return bytes.count  // ASCII, or an invalid lead byte that no later byte can fix
        }
        return continuationBytes < needed ? index : bytes.count
    }
}
