/// Where a voice can start speaking an answer that is still being written: the realtime
/// session's spoken answers and the voice pipeline's turns cut it the same way.
enum SpokenSentences {
    /// Where the last complete sentence of `text` ends (after its `.`, `!`, `?` or line break
    /// and the space that follows), if one has; in a long text without one, after its last
    /// comma or space, so that a list is spoken while it is written. The `first` words of an
    /// answer are cut at their last clause (a comma, semicolon or colon) once they hold 20
    /// characters, so that the voice starts as soon as it has a phrase to say.
    static func end(in text: String, first: Bool = false) -> String.Index? {
        var (end, pause): (String.Index?, String.Index?) = (nil, nil)
        // A line break before any words has nothing to say: it goes with the next sentence.
        var index = text.firstIndex { !$0.isWhitespace } ?? text.endIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            let spaced = next < text.endIndex && text[next].isWhitespace
            if text[index] == "\n" || ".!?".contains(text[index]) && spaced { end = next }
            if ",;:".contains(text[index]) && spaced { pause = next }
            index = next
        }
        if let end { return end }
        if first, let pause, text.distance(from: text.startIndex, to: pause) >= 20 { return pause }
        return text.count >= 120 ? pause ?? text.lastIndex(where: \.isWhitespace) : nil
    }
}
