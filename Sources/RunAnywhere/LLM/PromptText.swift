import Foundation

/// A formatted prompt and where the messages' own text lies in it. An engine reads
/// special-token text in those ranges as text (``LLMEngineRequest/plainText``), so that a message,
/// or a tool's result, that writes a template's markup (`<|im_end|>` then
/// `<|im_start|>assistant`) cannot end its turn or write another's; the template's own markup
/// around them is read as the special tokens it names.
package struct PromptText: Sendable, Equatable {
    /// The prompt.
    package var text: String
    /// The UTF-8 byte ranges of `text` that are messages' text, in order, none overlapping.
    package var plainText: [Range<Int>]

    /// A prompt with no message text marked: read whole as the template or the caller wrote it.
    package init(_ text: String, plainText: [Range<Int>] = []) {
        self.text = text
        self.plainText = plainText
    }

    /// `render`'s prompt for `messages`, with the ranges of their text. The template renders
    /// the messages with each text replaced by a placeholder no text holds (a new random tag),
    /// padded on each side with white space: the prompt is what it wrote, each placeholder
    /// replaced by its text, trimmed of white space (as C's `isspace` reads it) on a side where
    /// the template trimmed the padding, as some of llama.cpp's templates trim a message. Built
    /// so, the ranges are exact whatever a text holds. A template that writes a placeholder in
    /// any other way (cut short) gives its own prompt, with no ranges.
    package static func rendering(_ messages: [Message], with render: ([Message]) throws -> String) throws -> PromptText {
        let opening = "\u{E000}\(UUID().uuidString)#"
        let marked = messages.enumerated().map { index, message in
            message.content.isEmpty
                ? message : message.replacingContent(with: "\(padding)\(opening)\(index)\u{E001}\(padding)")
        }
        let template = Array(try render(marked).utf8)
        return try splice(messages.map { Array($0.content.utf8) }, into: template, opening: Array(opening.utf8))
            ?? PromptText(try render(messages))
    }

    /// White space a template that trims a message's text removes, in an order no template writes.
    private static let padding = "\r\u{0B}\t \u{0C}\n"

    /// `template` with each placeholder (with its padding, where the template kept it) replaced
    /// by its text; nil where a placeholder is not whole.
    private static func splice(_ texts: [[UInt8]], into template: [UInt8], opening: [UInt8]) -> PromptText? {
        let closing = Array("\u{E001}".utf8)
        let pad = Array(padding.utf8)
        func matches(_ literal: [UInt8], at position: Int) -> Bool {
            position >= 0 && template.count - position >= literal.count
                && template[position..<position + literal.count].elementsEqual(literal)
        }
        func next(_ needle: [UInt8], from position: Int) -> Int? {
            guard position <= template.count - needle.count else { return nil }
            return (position...(template.count - needle.count)).first { matches(needle, at: $0) }
        }
        // What is left of a placeholder cut short (U+E000 and its tag's first characters) is no part of a prompt.
        let cut = Array(opening.prefix(7))
        func holdsCutPlaceholder(_ literal: Range<Int>) -> Bool {
            literal.count >= cut.count && (literal.lowerBound...(literal.upperBound - cut.count)).contains { matches(cut, at: $0) }
        }
        var prompt: [UInt8] = []
        var ranges: [Range<Int>] = []
        var read = 0
        while let start = next(opening, from: read) {
            guard !holdsCutPlaceholder(read..<start) else { return nil }
            let digits = start + opening.count
            guard let end = next(closing, from: digits), let index = Int(String(decoding: template[digits..<end], as: UTF8.self)),
                texts.indices.contains(index)
            else { return nil }
            let keptBefore = start - read >= pad.count && matches(pad, at: start - pad.count)
            prompt += template[read..<(keptBefore ? start - pad.count : start)]
            read = end + closing.count
            let keptAfter = matches(pad, at: read)
            if keptAfter { read += pad.count }
            var text = texts[index][...]
            let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
            if !keptBefore { text = text.drop(while: isSpace) }
            if !keptAfter { while let last = text.last, isSpace(last) { text = text.dropLast() } }
            if !text.isEmpty { ranges.append(prompt.count..<prompt.count + text.count) }
            prompt += text
        }
        guard !holdsCutPlaceholder(read..<template.count) else { return nil }
        prompt += template[read...]
        return PromptText(String(decoding: prompt, as: UTF8.self), plainText: ranges)
    }

    /// How many times `marker` stands outside the messages' text.
    package func count(of marker: String) -> Int {
        marker.isEmpty ? 0 : (text.utf8.count - removing(marker).text.utf8.count) / marker.utf8.count
    }

    /// The prompt without `marker` where it stands outside the messages' text (an image's place,
    /// which the text's tokens do not count), the ranges moved to match.
    package func removing(_ marker: String) -> PromptText {
        let bytes = Array(text.utf8)
        let needle = Array(marker.utf8)
        guard !needle.isEmpty else { return self }
        var kept: [UInt8] = []
        var ranges: [Range<Int>] = []
        var position = 0
        var next = plainText.makeIterator()
        var range = next.next()
        while position < bytes.count {
            if let current = range, position == current.lowerBound {
                let start = kept.count
                kept += bytes[current]
                if !current.isEmpty { ranges.append(start..<kept.count) }
                position = current.upperBound
                range = next.next()
                continue
            }
            let end = range?.lowerBound ?? bytes.count
            if end - position >= needle.count, bytes[position..<position + needle.count].elementsEqual(needle) {
                position += needle.count
            } else {
                kept.append(bytes[position])
                position += 1
            }
        }
        return PromptText(String(decoding: kept, as: UTF8.self), plainText: ranges)
    }
}

extension Message {
    /// The message with `content` in place of its text; everything else kept.
    func replacingContent(with content: String) -> Message {
        Message(
            role: role, content: content, images: images, metadata: metadata, timestamp: timestamp, toolCalls: toolCalls,
            toolCallId: toolCallId)
    }
}
