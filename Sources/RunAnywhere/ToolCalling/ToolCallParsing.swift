import Foundation

extension ToolCallFormat {
    /// The calls in a model's answer and the text around them (the answer itself when it wrote
    /// no call). Only complete calls count: an answer cut short (by its token limit, a
    /// cancellation) loses its unfinished last call, and the markup of calls, finished or not,
    /// never becomes text. A call that repeats an earlier one exactly is dropped: a small model
    /// allowed several calls tends to write the same one until its limit.
    func parse(_ text: String) -> (content: String, calls: [ToolCall]) {
        guard let (content, objects) = split(text) else { return (text, []) }
        var calls: [ToolCall] = []
        for object in objects {
            guard let name = object["name"]?.stringValue, let arguments = object["arguments"], arguments.objectValue != nil else {
                continue
            }
            if !calls.contains(where: { $0.name == name && $0.arguments == arguments }) {
                calls.append(ToolCall(name: name, arguments: arguments))
            }
        }
        return (content.trimmingCharacters(in: .whitespacesAndNewlines), calls)
    }

    /// Whether the last complete call in `answer` (an answer so far) repeats an earlier one: the
    /// model is looping, and its answer is as complete as it will get.
    func repeatsACall(_ answer: String) -> Bool {
        guard let objects = split(answer)?.objects, let last = objects.last else { return false }
        return objects.dropLast().contains(last)
    }

    /// Whether `piece`, just added to `answer` (the answer so far, `piece` included), may have
    /// completed a call, so that ``repeatsACall(_:)``, which reads the whole answer, is asked only
    /// then: not for each `}` or `>` of an answer written as prose or code. Hermes: the piece ends a
    /// `</tool_call>`; JSON: it closes an object of an answer that opens with `{`.
    func mayCompleteACall(_ piece: String, answer: String) -> Bool {
        switch self {
        case .hermes:
            let closer = "</tool_call>"
            guard piece.contains(">") else { return false }
            return String(decoding: answer.utf8.suffix(piece.utf8.count + closer.utf8.count - 1), as: UTF8.self).contains(closer)
        case .json:
            return piece.contains("}") && answer.utf8.first { !Self.isSpace($0) } == UInt8(ascii: "{")
        }
    }

    /// The text outside the calls and each complete call's JSON, or nil when `text` holds no call.
    private func split(_ text: String) -> (content: String, objects: [JSONValue])? {
        switch self {
        case .hermes:
            var rest = Substring(text)
            var outside = ""
            var objects: [JSONValue] = []
            var sawCall = false
            while let open = rest.range(of: "<tool_call>") {
                sawCall = true
                outside += rest[..<open.lowerBound]
                guard let close = rest[open.upperBound...].range(of: "</tool_call>") else { return (outside, objects) }  // unfinished: dropped
                if let call = try? JSONValue(parsing: String(rest[open.upperBound..<close.lowerBound])) { objects.append(call) }
                rest = rest[close.upperBound...]
            }
            return sawCall ? (outside + rest, objects) : nil
        case .json:
            // `{"tool_calls": [`, or as much of it as the answer got to.
            let bytes = Array(text.utf8)
            guard let first = bytes.firstIndex(where: { !Self.isSpace($0) }), bytes[first] == UInt8(ascii: "{") else { return nil }
            let key = Array(#""tool_calls""#.utf8)
            let rest = bytes[(first + 1)...].drop(while: Self.isSpace)
            guard rest.starts(with: key) || key.starts(with: rest) else { return nil }
            guard let list = rest.firstIndex(of: UInt8(ascii: "[")) else { return ("", []) }
            return ("", Self.completeObjects(bytes, from: list + 1))
        }
    }

    /// The JSON objects that follow one another, separated by commas, from `start` in `bytes`,
    /// up to the list's end or the first one that is not complete.
    private static func completeObjects(_ bytes: [UInt8], from start: Int) -> [JSONValue] {
        var objects: [JSONValue] = []
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if isSpace(byte) || byte == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "{"), let end = objectEnd(bytes, from: index),
                let object = try? JSONValue(parsing: String(decoding: bytes[index..<end], as: UTF8.self))
            else { break }
            objects.append(object)
            index = end
        }
        return objects
    }

    /// The index just past the object that opens at `start`, or nil when it does not close.
    private static func objectEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for index in start..<bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return index + 1 }
            default: break
            }
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
