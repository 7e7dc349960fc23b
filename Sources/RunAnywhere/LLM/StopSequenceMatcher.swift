/// Finds stop sequences in streamed text, holding back text that could be the start of one so
/// that no part of a stop sequence is ever emitted.
struct StopSequenceMatcher: Sendable {
    private let sequences: [String]
    private var pending = ""
    /// The stop sequence that was reached, once one is.
    private(set) var matched: String?

    init(sequences: [String]) {
        self.sequences = sequences.filter { !$0.isEmpty }
    }

    /// Feeds text; returns what can be emitted and whether a stop sequence was reached (the text
    /// returned then ends just before it).
    mutating func feed(_ text: String) -> (emit: String, stopped: Bool) {
        guard !sequences.isEmpty else { return (text, false) }
        let buffer = pending + text
        guard sequences.contains(where: { ThinkingParser.mayMeet($0, in: buffer) }) else {
            pending = ""
            return (buffer, false)
        }
        let earliest = sequences.compactMap { buffer.range(of: $0) }.min { $0.lowerBound < $1.lowerBound }
        if let earliest {
            pending = ""
            matched = sequences.first { buffer[earliest] == $0 }
            return (String(buffer[..<earliest.lowerBound]), true)
        }
        let held = sequences.map { ThinkingParser.longestSuffix(of: buffer, thatPrefixes: $0) }.max() ?? 0
        pending = String(buffer.suffix(held))
        return (String(buffer.dropLast(held)), false)
    }

    /// Returns the held-back text at the end of generation.
    mutating func finish() -> String {
        defer { pending = "" }
        return pending
    }
}
