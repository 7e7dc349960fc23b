import Foundation

/// The conversation's items: created, retrieved, deleted and truncated by the client, and shown
/// as the API shows them.
extension RealtimeSession {
    /// `conversation.item.create`: an item (``item(_:param:among:)``) added after the item
    /// `previous_item_id` names (`root`: first), at the end without one; an id the conversation
    /// holds already, or a previous item it does not hold, is refused.
    func create(_ json: JSONValue, after previousID: JSONValue?) throws {
        let entry = try Self.item(json, param: "item", among: items)
        guard !items.contains(where: { $0.id == entry.item.id }) else {
            throw RealtimeError("The conversation holds an item '\(entry.item.id)' already", param: "item.id")
        }
        let place: Int
        switch previousID {
        case nil, .null?: place = items.count
        case .string("root")?: place = 0
        case .string(let id)?:
            guard let index = items.firstIndex(where: { $0.id == id }) else {
                throw RealtimeError("The conversation has no item '\(id)'", param: "previous_item_id")
            }
            place = index + 1
        default: throw RealtimeError("previous_item_id must be an item's id or root", param: "previous_item_id")
        }
        let previous = place > 0 ? items[place - 1].id : nil
        items.insert(entry.item, at: place)
        let shown = Self.json(entry.item, text: entry.text)
        emit("conversation.item.added", ["previous_item_id": previous.map(JSONValue.string) ?? .null, "item": shown])
        emit("conversation.item.done", ["item": shown])
    }

    /// An item a client gives, with its text: a user or system message of `input_text`, an
    /// assistant message of `output_text`, a `function_call` (a call the assistant made, as
    /// history) or a `function_call_output` (a function's result for one of the calls in
    /// `among`, its `output` as text). Errors name `param`.
    static func item(_ item: JSONValue, param: String, among items: [Item]) throws -> (item: Item, text: String) {
        let id = item["id"]?.stringValue ?? newID("item")
        switch item["type"]?.stringValue {
        case "function_call", "function_call_output":
            guard let callID = item["call_id"]?.stringValue, !callID.isEmpty else {
                throw RealtimeError("A function item needs its call_id", param: "\(param).call_id")
            }
            if item["type"]?.stringValue == "function_call" {
                guard let name = item["name"]?.stringValue, let arguments = try? JSONValue(parsing: item["arguments"]?.stringValue ?? "{}")
                else { throw RealtimeError("A function_call item needs its name and arguments (a JSON object as text)", param: param) }
                return (Item(id: id, role: .assistant, text: "", call: ToolCall(id: callID, name: name, arguments: arguments)), "")
            }
            guard items.contains(where: { $0.call?.id == callID }) else {
                throw RealtimeError("No function call \(callID) in the conversation", param: "\(param).call_id")
            }
            let output = item["output"]?.stringValue ?? item["output"].map(\.text) ?? ""
            return (Item(id: id, role: .tool, text: output, callID: callID), output)
        default:
            guard item["type"]?.stringValue == "message", let roleName = item["role"]?.stringValue,
                let role = MessageRole(rawValue: roleName), role != .tool
            else {
                throw RealtimeError("An item is a message with role user, assistant or system, or a function_call(_output)", param: param)
            }
            let parts = item["content"]?.arrayValue ?? []
            let texts = parts.compactMap { part -> String? in
                switch part["type"]?.stringValue {
                case "input_text", "output_text", "text": part["text"]?.stringValue
                default: nil
                }
            }
            guard !texts.isEmpty, texts.count == parts.count else {
                throw RealtimeError(
                    "Message content must be text parts (input_text, or output_text for the assistant)", param: "\(param).content")
            }
            let text = texts.joined(separator: "\n")
            return (Item(id: id, role: role, text: text), text)
        }
    }

    /// The conversation's item `id`, by its place; `what` names the event for the error's code.
    private func place(of id: JSONValue?, for what: String) throws -> Int {
        guard let id = id?.stringValue, let index = items.firstIndex(where: { $0.id == id }) else {
            throw RealtimeError(
                "No conversation item \(id?.stringValue ?? "(none given)")", param: "item_id", code: "item_\(what)_invalid_item_id")
        }
        return index
    }

    /// `conversation.item.retrieve`: the item as the conversation holds it now (speech still
    /// being transcribed has a null transcript; an answer still being written is in progress).
    func retrieve(_ id: JSONValue?) throws {
        let item = items[try place(of: id, for: "retrieve")]
        emit("conversation.item.retrieved", ["item": Self.json(item, text: item.text)])
    }

    /// `conversation.item.delete`: the item leaves the conversation (an answer in progress
    /// keeps the conversation it started with).
    func delete(_ id: JSONValue?) throws {
        let item = items.remove(at: try place(of: id, for: "delete"))
        emit("conversation.item.deleted", ["item_id": .string(item.id)])
    }

    /// `conversation.item.truncate`: a spoken answer the client played only up to
    /// `audioEndMs` keeps only the words heard by then (whole sentences, and of the sentence
    /// cut, as many words as the share of its audio played), so that the conversation holds
    /// nothing the user did not hear.
    func truncate(_ id: JSONValue?, contentIndex: JSONValue?, audioEndMs: JSONValue?) throws {
        let index = try place(of: id, for: "truncate")
        let item = items[index]
        guard item.role == .assistant, item.isAudio else {
            throw RealtimeError(
                "Only an assistant message's audio can be truncated", param: "item_id", code: "item_truncate_invalid_item_id")
        }
        guard contentIndex?.numberValue ?? 0 == 0 else {
            throw RealtimeError("An answer has one content part: content_index is 0", param: "content_index")
        }
        let length = item.spoken.last?.endMs ?? 0
        guard let end = audioEndMs?.numberValue, end >= 0, end == end.rounded(), end <= Double(length) else {
            throw RealtimeError(
                "audio_end_ms must be a whole number of ms within the message's \(length) ms of audio", param: "audio_end_ms")
        }
        var heard = ""
        var kept: [SpokenSentence] = []
        var start = 0
        for sentence in item.spoken {
            if sentence.endMs <= Int(end) {
                heard += sentence.text
                kept.append(sentence)
            } else {
                let share = Double(Int(end) - start) / Double(max(1, sentence.endMs - start))
                let words = sentence.text.split(separator: " ", omittingEmptySubsequences: false)
                let part = words.prefix(Int(share * Double(words.count))).joined(separator: " ")
                heard += part
                if !part.isEmpty { kept.append(SpokenSentence(text: part, endMs: Int(end))) }
                break
            }
            start = sentence.endMs
        }
        items[index].text = heard
        items[index].spoken = kept
        items[index].truncated = true
        emit("conversation.item.truncated", ["item_id": .string(item.id), "content_index": 0, "audio_end_ms": .number(end)])
    }

    /// An item as the API shows it, with `text` as its words (nil: not known yet).
    static func json(_ item: Item, text: String?) -> JSONValue {
        if item.role == .user, item.isAudio { return userAudio(item.id, transcript: text) }
        let text = text ?? ""
        if let call = item.call {
            return [
                "id": .string(item.id), "object": "realtime.item", "type": "function_call", "status": "completed",
                "name": .string(call.name),
                "call_id": .string(call.id), "arguments": .string(call.argumentsJSON),
            ]
        }
        if item.role == .tool {
            return [
                "id": .string(item.id), "object": "realtime.item", "type": "function_call_output",
                "call_id": .string(item.callID ?? ""), "output": .string(text),
            ]
        }
        let part: JSONValue =
            switch (item.role, item.isAudio) {
            case (.assistant, true): ["type": "output_audio", "transcript": .string(text)]
            case (.assistant, false): ["type": "output_text", "text": .string(text)]
            default: ["type": "input_text", "text": .string(text)]
            }
        return [
            "id": .string(item.id), "object": "realtime.item", "type": "message", "role": .string(item.role.rawValue),
            "status": item.text == nil ? "in_progress" : "completed", "content": [part],
        ]
    }
}
