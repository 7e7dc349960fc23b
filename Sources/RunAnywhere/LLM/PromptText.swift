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

    /// `render`'s prompt for `messages`, with the ranges of their text. Rendering them again
    /// with each text replaced by a placeholder no text holds (it has a new random tag) shows
    /// the template's parts and where each text goes; those parts with the texts in their
    /// places (each as it is, or trimmed of surrounding white space, as some templates write
    /// it) must then be the prompt itself. A template that writes a text in any other way
    /// leaves the prompt with no ranges: read as the template wrote it.
    package static func rendering(_ messages: [Message], with render: ([Message]) throws -> String) throws -> PromptText {
        let prompt = try render(messages)
        let opening = "\u{E000}\(UUID().uuidString)#"
        let marked = messages.enumerated().map { index, message in
            message.content.isEmpty ? message : message.replacingContent(with: "\(opening)\(index)\u{E001}")
        }
        let template = try render(marked)
        guard template != prompt else { return PromptText(prompt) }  // no message text, or a template that writes none
        let ranges = locate(messages.map(\.content), in: Array(prompt.utf8), template: Array(template.utf8), opening: Array(opening.utf8))
        return PromptText(prompt, plainText: ranges ?? [])
    }

    /// The byte ranges of `texts` in `prompt`, where `template` (the prompt with a placeholder,
    /// `opening`, the text's index and U+E001, for each text) puts them; nil where `prompt` is
    /// not `template` with the texts in place.
    private static func locate(_ texts: [String], in prompt: [UInt8], template: [UInt8], opening: [UInt8]) -> [Range<Int>]? {
        let closing = Array("\u{E001}".utf8)
        func matches(_ literal: some Collection<UInt8>, in bytes: [UInt8], at position: Int) -> Bool {
            bytes.count - position >= literal.count && bytes[position..<position + literal.count].elementsEqual(literal)
        }
        func next(_ needle: [UInt8], in bytes: [UInt8], from position: Int) -> Int? {
            guard position <= bytes.count - needle.count else { return nil }
            return (position...(bytes.count - needle.count)).first { matches(needle, in: bytes, at: $0) }
        }
        var ranges: [Range<Int>] = []
        var (cursor, read) = (0, 0)  // in `prompt`, in `template`
        while true {
            // The template's literal up to the next placeholder (or its end) is the prompt's.
            let placeholder = next(opening, in: template, from: read)
            let literal = template[read..<(placeholder ?? template.count)]
            guard matches(literal, in: prompt, at: cursor) else { return nil }
            cursor += literal.count
            guard let placeholder else { break }
            let digits = placeholder + opening.count
            guard let end = next(closing, in: template, from: digits),
                let index = Int(String(decoding: template[digits..<end], as: UTF8.self)), texts.indices.contains(index)
            else { return nil }
            read = end + closing.count
            let after = template[read..<(next(opening, in: template, from: read) ?? template.count)]
            let text = texts[index]
            let written = [text, text.trimmingCharacters(in: .whitespacesAndNewlines)].map { Array($0.utf8) }.first {
                matches($0, in: prompt, at: cursor) && matches(after, in: prompt, at: cursor + $0.count)
            }
            guard let written else { return nil }
            if !written.isEmpty { ranges.append(cursor..<cursor + written.count) }
            cursor += written.count
        }
        return cursor == prompt.count ? ranges : nil
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
