import Foundation

/// Answers: started by `response.create` or a turn's end, and what they report back to the session.
extension RealtimeSession {
    /// Starts an answer (`response.create`): its `instructions`, `output_modalities`, `tools`,
    /// `tool_choice`, `max_output_tokens` and `temperature` replace the session's for this answer, `input` is its
    /// context instead of the conversation, and `conversation: none` keeps it out of the conversation.
    func respond(_ overrides: JSONValue?) throws {
        guard response == nil else {
            throw RealtimeError("The conversation already has a response in progress", code: "conversation_already_has_active_response")
        }
        var settings = settings
        if let instructions = try overrides?.member("instructions", "a string", param: "response.instructions", \.stringValue) {
            settings.instructions = instructions
        }
        // The session's settings a response may set for itself, with errors naming the response's field.
        let own = overrides?.objectValue?.members.filter {
            ["output_modalities", "tools", "tool_choice", "max_output_tokens", "temperature"].contains($0.key)
        }
        if let own, !own.isEmpty {
            do {
                try settings.update(.object(JSONObject(own.map { ($0.key, $0.value) })))
            } catch {
                throw RealtimeError(
                    error.message, param: error.param.map { "response." + $0.dropFirst("session.".count) }, code: error.code)
            }
        }
        var outOfBand = false
        switch overrides?["conversation"]?.stringValue {
        case nil, "auto": break
        case "none": outOfBand = true
        default: throw RealtimeError("conversation must be auto or none", param: "response.conversation")
        }
        // `input` is this response's own context instead of the conversation: items, and
        // references to the conversation's.
        var context = items
        if let input = overrides?["input"] {
            guard let entries = input.arrayValue else { throw RealtimeError("input must be a list of items", param: "response.input") }
            context = []
            for (index, entry) in entries.enumerated() {
                if entry["type"]?.stringValue == "item_reference" {
                    guard let id = entry["id"]?.stringValue, let found = items.first(where: { $0.id == id }) else {
                        throw RealtimeError(
                            "No conversation item \(entry["id"]?.stringValue ?? "(none given)")", param: "response.input.\(index).id")
                    }
                    context.append(found)
                } else {
                    context.append(try Self.item(entry, param: "response.input.\(index)", among: items + context).item)
                }
            }
        }
        let id = Self.newID("resp")
        let answer = RealtimeAnswer(id: id, session: self, settings: settings, items: context, outOfBand: outOfBand)
        interruptedBySpeech = false
        spokenSamples = 0
        response = (id, Task { await answer.run() })
        respondsOutOfBand = outOfBand
    }

    /// The answer `id` opened `item`, its message or a function call: unless the answer stays
    /// out of the conversation (`conversation: none`), it joins the conversation now, so that a
    /// client can truncate, retrieve or answer it before the answer ends.
    /// Returns the item it follows in the conversation.
    func opened(_ id: String, _ item: Item) -> String? {
        if held?.id == id {
            defer { held?.items.append(item) }
            return held?.items.last?.id ?? held?.userItem
        }
        guard response?.id == id, !respondsOutOfBand else { return nil }
        defer { items.append(item) }
        return items.last?.id
    }

    /// The answer `id` has spoken `sentence` of its message `item` in `samples` samples of audio
    /// at `rate`. Its end is counted from the samples of every sentence so far, so the last one
    /// ends where the audio sent does.
    func spoke(_ id: String, item: String, _ sentence: String, samples: Int, rate: Int) {
        if var answer = held, answer.id == id {
            answer.spokenSamples += samples
            if let index = answer.items.firstIndex(where: { $0.id == item }) {
                answer.items[index].spoken.append(SpokenSentence(text: sentence, endMs: answer.spokenSamples * 1000 / rate))
            }
            held = answer
            return
        }
        guard response?.id == id else { return }
        spokenSamples += samples
        guard let index = items.firstIndex(where: { $0.id == item }), !items[index].truncated else { return }
        items[index].spoken.append(SpokenSentence(text: sentence, endMs: spokenSamples * 1000 / rate))
    }

    /// The answer `id` wrote `text` in its message `item`, all it will (cut short if it was
    /// cancelled): the conversation holds it, unless the client truncated or deleted it meanwhile.
    func wrote(_ id: String, item: String, text: String) {
        if held?.id == id, let index = held?.items.firstIndex(where: { $0.id == item }) {
            held?.items[index].text = text
            return
        }
        guard response?.id == id, let index = items.firstIndex(where: { $0.id == item }), !items[index].truncated else { return }
        items[index].text = text
    }

    /// The answer `id` ended: another may start.
    func answered(_ id: String) {
        if held?.id == id { held?.finished = true }
        if response?.id == id { response = nil }
    }
}
