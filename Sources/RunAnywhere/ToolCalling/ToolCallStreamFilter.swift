/// Keeps a model's tool calls out of the streamed answer (its thinking is split off before, by
/// ``GenerationEventSplitter``): the answer's first character decides, as the grammar makes it
/// unambiguous: a call's opening character means the rest is calls, which the result carries
/// instead; anything else is text, streamed from there on.
struct ToolCallStreamFilter {
    private enum State { case deciding, text, calls }

    let format: ToolCallFormat
    private var state = State.deciding
    private var pending = ""

    /// A filter for answers in `format`.
    init(format: ToolCallFormat) {
        self.format = format
    }

    /// The part of `text` (the next piece of the answer) to stream now.
    mutating func feed(_ text: String) -> String {
        pending += text
        if state == .deciding {
            guard let first = pending.first(where: { !$0.isWhitespace }) else { return "" }
            state = first == format.callOpener ? .calls : .text
        }
        defer { pending = "" }
        return state == .text ? pending : ""
    }

    /// What is still held back when the answer ends.
    mutating func finish() -> String {
        defer { pending = "" }
        return state == .calls ? "" : pending
    }
}
