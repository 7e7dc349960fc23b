/// Keeps a model's tool calls out of the streamed text: thinking passes through as it comes,
/// then the answer's first character decides (the grammar makes it unambiguous): a call's
/// opening character means the rest is calls, which the result carries instead; anything else
/// is text, streamed from there on.
struct ToolCallStreamFilter {
    private enum State { case start, thinking, deciding, text, calls }

    let format: ToolCallFormat
    let thinking: ThinkingTagPattern?
    private var state = State.start
    private var pending = ""

    /// A filter for answers in `format` from a model that thinks in `thinking` tags (nil: not a thinking model).
    init(format: ToolCallFormat, thinking: ThinkingTagPattern?) {
        self.format = format
        self.thinking = thinking
    }

    /// The part of `text` (the next piece of the answer) to stream now.
    mutating func feed(_ text: String) -> String {
        pending += text
        var out = ""
        while true {
            switch state {
            case .start:
                guard let thinking, !pending.isEmpty else {
                    if thinking == nil { state = .deciding; continue }
                    return out
                }
                if pending.hasPrefix(thinking.openingTag) {
                    state = .thinking
                } else if thinking.openingTag.hasPrefix(pending) {
                    return out  // could still become the opening tag
                } else {
                    state = .deciding
                }
            case .thinking:
                guard let close = pending.range(of: thinking!.closingTag) else {
                    // Stream all but what could be the start of the closing tag.
                    let keep = thinking!.closingTag.count - 1
                    let cut = pending.index(pending.endIndex, offsetBy: -min(keep, pending.count))
                    out += pending[..<cut]
                    pending = String(pending[cut...])
                    return out
                }
                out += pending[..<close.upperBound]
                pending = String(pending[close.upperBound...])
                state = .deciding
            case .deciding:
                guard let first = pending.first(where: { !$0.isWhitespace }) else { return out }
                state = first == format.callOpener ? .calls : .text
            case .text:
                out += pending
                pending = ""
                return out
            case .calls:
                pending = ""
                return out
            }
        }
    }

    /// What is still held back when the answer ends.
    mutating func finish() -> String {
        defer { pending = "" }
        return state == .calls ? "" : pending
    }
}
