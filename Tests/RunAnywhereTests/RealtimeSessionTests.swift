import Foundation
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhere

/// A realtime session in process, against the scripted language engine (it answers with the
/// words of the last user message): the settings `session.update` takes and refuses, the events
/// of a written turn in the API's order, cancelling an answer, and the errors of bad events. The
/// spoken path (server VAD, whisper, the voice) is checked with real models and the official
/// client in `CLIRealtimeTests`.
@Suite struct RealtimeSessionTests {
    /// A session on `runtime` whose events are collected.
    final class Wire: Sendable {
        let session: RealtimeSession
        private let iterator: Iterator

        /// The iterator, used by one test at a time.
        final class Iterator: @unchecked Sendable {
            var base: AsyncStream<JSONValue>.Iterator
            init(_ base: AsyncStream<JSONValue>.Iterator) { self.base = base }
        }

        init(_ runtime: RunAnywhereRuntime, model: String = "scripted") {
            session = RealtimeSession(runtime: runtime, model: model)
            iterator = Iterator(session.events.makeAsyncIterator())
        }

        /// The next event.
        func next() async throws -> JSONValue { try #require(await iterator.base.next()) }

        /// Events up to and including one of `type`.
        func until(_ type: String) async throws -> [JSONValue] {
            var seen: [JSONValue] = []
            while true {
                let event = try await next()
                seen.append(event)
                if event["type"]?.stringValue == type { return seen }
            }
        }

        func send(_ event: JSONValue) async { await session.handle(event) }

        /// Adds a user message of `text` to the conversation and asks for an answer.
        func ask(_ text: String) async {
            await send([
                "type": "conversation.item.create",
                "item": ["type": "message", "role": "user", "content": [["type": "input_text", "text": .string(text)]]],
            ])
            await send(["type": "response.create"])
        }

        /// Starts the session and makes its answers written, past `session.created` and `session.updated`.
        func startWritten() async throws {
            _ = try await next()
            await send(["type": "session.update", "session": ["output_modalities": ["text"]]])
            _ = try await next()
        }
    }

    static func types(_ events: [JSONValue]) -> [String] { events.compactMap { $0["type"]?.stringValue } }

    /// A written session asked to answer a seven-word message, whose answer writes its first word
    /// and then waits until it is cancelled.
    static func slowAnswer() async throws -> Wire {
        let wire = Wire(try scriptedRuntime(adapter: ScriptedAdapter(stallAfter: 1)))
        try await wire.startWritten()
        await wire.ask("one two three four five six seven")
        return wire
    }

    @Test func settingsTakeWhatTheServerCanDoAndNameWhatItCannot() throws {
        var settings = RealtimeSessionSettings(id: "s", model: "m")
        try settings.update([
            "type": "realtime", "instructions": "Be brief.", "output_modalities": ["text"], "max_output_tokens": 64,
            "audio": [
                "input": [
                    "format": ["type": "audio/pcm", "rate": 24000], "transcription": ["model": "whisper-1"],
                    "turn_detection": ["type": "server_vad", "threshold": 0.6, "silence_duration_ms": 800, "create_response": false],
                ],
                "output": ["voice": "espeak-ng-en-us", "speed": 1.2],
            ],
        ])
        let json = settings.json
        #expect(json["instructions"]?.stringValue == "Be brief." && json["output_modalities"] == ["text"])
        #expect(json["max_output_tokens"]?.numberValue == 64)
        let detection = try #require(json["audio"]?["input"]?["turn_detection"])
        #expect(detection["threshold"]?.numberValue == 0.6 && detection["silence_duration_ms"]?.numberValue == 800)
        #expect(detection["create_response"]?.boolValue == false && detection["interrupt_response"]?.boolValue == true)
        #expect(json["audio"]?["input"]?["transcription"]?["model"]?.stringValue == SDKConstants.Models.defaultSpeechRecognitionModelID)
        #expect(json["audio"]?["output"]?["voice"]?.stringValue == "espeak-ng-en-us")
        try settings.update([
            "tools": [
                ["type": "function", "name": "get_weather", "parameters": ["type": "object", "properties": ["city": ["type": "string"]]]]
            ],
            "tool_choice": ["type": "function", "name": "get_weather"],
        ])
        #expect(settings.json["tools"]?.arrayValue?.first?["name"] == "get_weather")
        #expect(settings.json["tool_choice"]?["name"] == "get_weather")
        try settings.update(["audio": ["input": ["turn_detection": nil, "transcription": nil]], "max_output_tokens": "inf"])
        #expect(settings.json["audio"]?["input"]?["turn_detection"] == .null && settings.json["max_output_tokens"]?.stringValue == "inf")

        let refusals: [(JSONValue, String)] = [
            (["type": "transcription"], "session.type"),
            (["output_modalities": ["audio", "text"]], "session.output_modalities"),
            (["tools": [["type": "code_interpreter"]]], "session.tools.0"),
            (["tool_choice": ["type": "function", "name": "nowhere"]], "session.tool_choice"),
            (["tool_choice": "sometimes"], "session.tool_choice"),
            (["max_output_tokens": 0], "session.max_output_tokens"),
            (["audio": ["input": ["format": ["type": "audio/opus"]]]], "session.audio.input.format"),
            (["audio": ["input": ["format": ["type": "audio/pcmu", "rate": 24000]]]], "session.audio.input.format"),
            (["audio": ["output": ["format": ["type": "audio/pcm", "rate": 16000]]]], "session.audio.output.format"),
            (["audio": ["input": ["turn_detection": ["type": "semantic_vad"]]]], "session.audio.input.turn_detection"),
            (
                ["audio": ["input": ["turn_detection": ["type": "server_vad", "threshold": 2]]]],
                "session.audio.input.turn_detection.threshold"
            ),
            (
                ["audio": ["input": ["turn_detection": ["type": "server_vad", "silence_duration_ms": 10]]]],
                "session.audio.input.turn_detection.silence_duration_ms"
            ),
            (["audio": ["output": ["speed": 3]]], "session.audio.output.speed"),
            // A setting of the wrong type is refused, not ignored.
            (["instructions": 42], "session.instructions"),
            (["instructions": nil], "session.instructions"),
            (["audio": ["output": ["voice": ["name": "alloy"]]]], "session.audio.output.voice"),
            (["audio": ["input": ["transcription": ["model": 1]]]], "session.audio.input.transcription.model"),
            (
                ["audio": ["input": ["turn_detection": ["type": "server_vad", "threshold": "high"]]]],
                "session.audio.input.turn_detection.threshold"
            ),
            (
                ["audio": ["input": ["turn_detection": ["type": "server_vad", "create_response": "yes"]]]],
                "session.audio.input.turn_detection.create_response"
            ),
            (["tools": [["type": "function", "name": "f", "description": 7]]], "session.tools.0.description"),
            (["output_modalities": "text"], "session.output_modalities"),
            (["audio": "x"], "session.audio"),
        ]
        var telephone = settings
        try telephone.update(["audio": ["input": ["format": ["type": "audio/pcmu"]], "output": ["format": ["type": "audio/pcma"]]]])
        #expect(telephone.inputFormat == .pcmu && telephone.outputFormat == .pcma)
        #expect(telephone.json["audio"]?["output"]?["format"] == ["type": "audio/pcma"])
        for (update, param) in refusals {
            var copy = settings
            #expect(throws: RealtimeError.self, "\(update.text)") { try copy.update(update) }
            do {
                try copy.update(update)
            } catch {
                #expect(error.param == param, "\(update.text): \(error.message)")
            }
        }
    }

    @Test func spokenAnswersAreCutAtSentencesOrInLongListsAtCommas() {
        func cut(_ text: String) -> String? { SpokenSentences.end(in: text).map { String(text[..<$0]) } }
        #expect(cut("Paris is the capital. It is") == "Paris is the capital.")
        #expect(cut("Is it? Yes! And then") == "Is it? Yes!")
        #expect(cut("One line\nand more") == "One line\n")
        #expect(cut("3.14 is pi") == nil, "a point inside a number ends nothing")
        #expect(cut("No end yet") == nil)
        let list = (1...60).map(String.init).joined(separator: ", ")
        #expect(cut(list)?.hasSuffix(",") == true && (cut(list)?.count ?? 0) > 100)
        // An answer's first words are cut at a clause once they are long enough.
        let opening = "The capital of France, as you asked, is Paris"
        #expect(
            SpokenSentences.end(in: opening, first: true).map { String(opening[..<$0]) } == "The capital of France, as you asked,")
        #expect(SpokenSentences.end(in: "Yes, it is", first: true) == nil, "a clause too short to say alone")
        #expect(cut(opening) == nil)
        // A line break before any words ends nothing: it goes with the next sentence.
        #expect(cut("\n\nParis is the capital. It") == "\n\nParis is the capital.")
        #expect(
            SpokenSentences.end(in: "\n" + opening, first: true).map { String(("\n" + opening)[..<$0]) }?.hasSuffix("asked,") == true
        )
    }

    @Test func aWrittenTurnComesInTheAPIsOrder() async throws {
        let wire = Wire(try scriptedRuntime())
        let created = try await wire.next()
        #expect(created["type"] == "session.created" && created["session"]?["model"] == "scripted")
        await wire.send(["type": "session.update", "session": ["output_modalities": ["text"], "instructions": "Echo."]])
        #expect(try await wire.next()["session"]?["instructions"] == "Echo.")
        await wire.ask("red green blue")
        let events = try await wire.until("response.done")
        #expect(
            Self.types(events) == [
                "conversation.item.added", "conversation.item.done", "response.created", "response.output_item.added",
                "conversation.item.added", "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
                "response.output_text.delta", "response.output_text.done", "response.content_part.done", "response.output_item.done",
                "conversation.item.done", "response.done",
            ])
        let deltas = events.filter { $0["type"] == "response.output_text.delta" }.compactMap { $0["delta"]?.stringValue }
        let done = try #require(events.last?["response"])
        #expect(deltas.joined() == events.first { $0["type"] == "response.output_text.done" }?["text"]?.stringValue)
        #expect(deltas.joined().contains("blue"))
        #expect(done["status"] == "completed" && (done["usage"]?["output_tokens"]?.numberValue ?? 0) == 3)
        #expect(done["output"]?.arrayValue?.first?["status"] == "completed")
        #expect(Set(events.compactMap { $0["event_id"]?.stringValue }).count == events.count, "every event has its own id")
        await wire.session.close()
    }

    /// An answer cut at the session's `max_output_tokens` is incomplete, for that reason, and
    /// keeps what it wrote.
    @Test func anAnswerCutAtItsTokenLimitIsIncomplete() async throws {
        let wire = Wire(try scriptedRuntime())
        _ = try await wire.next()
        await wire.send(["type": "session.update", "session": ["output_modalities": ["text"], "max_output_tokens": 2]])
        _ = try await wire.until("session.updated")
        await wire.ask("red green blue")
        let done = try #require(try await wire.until("response.done").last?["response"])
        #expect(done["status"] == "incomplete" && done["status_details"]?["reason"] == "max_output_tokens", "\(done.text)")
        #expect(done["usage"]?["output_tokens"] == 2)
        let item = try #require(done["output"]?.arrayValue?.first)
        let text = item["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(item["status"] == "incomplete" && !text.isEmpty && !text.contains("blue"), "\(text)")
        await wire.session.close()
    }

    /// A model's own limit (``ModelDefaults``, as a Modelfile's `num_predict`) bounds its answers
    /// unless the session sets one.
    @Test func aModelsDefaultsBoundItsAnswersUnderTheSessionsLimit() async throws {
        let runtime = try scriptedRuntime()
        var defaults = ModelDefaults()
        defaults.maxTokens = 2
        _ = try runtime.copyModel("scripted", to: "brief", defaults: defaults)
        for (limit, words) in [(nil, 2), (3, 3)] as [(Int?, Int)] {
            let wire = Wire(runtime, model: "brief")
            _ = try await wire.next()
            let settings: JSONValue =
                limit.map { ["output_modalities": ["text"], "max_output_tokens": .number(Double($0))] } ?? ["output_modalities": ["text"]]
            await wire.send(["type": "session.update", "session": settings])
            _ = try await wire.until("session.updated")
            await wire.ask("one two three four five")
            let done = try #require(try await wire.until("response.done").last?["response"])
            #expect(
                done["usage"]?["output_tokens"] == .number(Double(words)) && done["status"] == "incomplete", "\(limit as Any): \(done.text)"
            )
            await wire.session.close()
        }
    }

    @Test func aCancelledAnswerKeepsWhatItWrote() async throws {
        let wire = try await Self.slowAnswer()
        await wire.send(["type": "response.create"])  // one at a time
        let refused = try await wire.until("error")
        #expect(refused.last?["error"]?["code"] == "conversation_already_has_active_response")
        _ = try await wire.until("response.output_text.delta")
        await wire.send(["type": "response.cancel"])
        let done = try #require(try await wire.until("response.done").last?["response"])
        #expect(done["status"] == "cancelled" && done["status_details"]?["reason"] == "client_cancelled")
        let item = try #require(done["output"]?.arrayValue?.first)
        let text = item["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(item["status"] == "incomplete" && !text.isEmpty && !text.contains("seven"), "\(text)")
        await wire.session.close()
    }

    /// Items are retrieved as the conversation holds them and deleted; a written answer has no
    /// audio to truncate, and an unknown item is an error naming `item_id`.
    @Test func itemsAreRetrievedAndDeleted() async throws {
        let wire = Wire(try scriptedRuntime())
        try await wire.startWritten()
        await wire.send([
            "type": "conversation.item.create",
            "item": ["type": "message", "role": "user", "id": "item_q", "content": [["type": "input_text", "text": "red green blue"]]],
        ])
        await wire.send(["type": "response.create"])
        let done = try #require(try await wire.until("response.done").last?["response"])
        let answer = try #require(done["output"]?.arrayValue?.first?["id"]?.stringValue)

        // An id the conversation holds already, or a previous item it does not hold, is refused.
        let again: JSONValue = ["type": "message", "role": "user", "id": "item_q", "content": [["type": "input_text", "text": "x"]]]
        await wire.send(["type": "conversation.item.create", "item": again])
        #expect(try await wire.until("error").last?["error"]?["param"] == "item.id")
        let other: JSONValue = ["type": "message", "role": "user", "id": "item_r", "content": [["type": "input_text", "text": "x"]]]
        await wire.send(["type": "conversation.item.create", "previous_item_id": "zzz", "item": other])
        #expect(try await wire.until("error").last?["error"]?["param"] == "previous_item_id")
        // One placed first.
        await wire.send(["type": "conversation.item.create", "previous_item_id": "root", "item": other])
        #expect(try await wire.until("conversation.item.added").last?["previous_item_id"] == .null)

        await wire.send(["type": "conversation.item.retrieve", "item_id": "item_q"])
        let question = try #require(try await wire.until("conversation.item.retrieved").last?["item"])
        #expect(question["role"] == "user" && question["content"]?.arrayValue?.first?["text"] == "red green blue", "\(question.text)")
        await wire.send(["type": "conversation.item.retrieve", "item_id": .string(answer)])
        let written = try #require(try await wire.until("conversation.item.retrieved").last?["item"])
        #expect(written["role"] == "assistant" && written["content"]?.arrayValue?.first?["type"] == "output_text")
        #expect(written["content"]?.arrayValue?.first?["text"]?.stringValue?.contains("blue") == true, "\(written.text)")

        await wire.send(["type": "conversation.item.truncate", "item_id": .string(answer), "content_index": 0, "audio_end_ms": 0])
        #expect(try await wire.until("error").last?["error"]?["code"] == "item_truncate_invalid_item_id")
        await wire.send(["type": "conversation.item.delete", "item_id": "item_q"])
        #expect(try await wire.until("conversation.item.deleted").last?["item_id"] == "item_q")
        for type in ["conversation.item.retrieve", "conversation.item.delete", "conversation.item.truncate"] {
            await wire.send(["type": .string(type), "item_id": "item_q"])
            let error = try #require(try await wire.until("error").last?["error"])
            #expect(error["param"] == "item_id" && error["code"]?.stringValue?.hasPrefix("item_") == true, "\(type): \(error.text)")
        }
        await wire.session.close()
    }

    /// An answer's items join the conversation as they open: one being written is retrieved in
    /// progress, one cancelled holds what was written as soon as the answer is done, and a
    /// function call is answered as soon as its item is done; its words and calls are one
    /// assistant message to the model.
    @Test func anAnswersItemsJoinTheConversationAsTheyOpen() async throws {
        let wire = try await Self.slowAnswer()
        let answer = try #require(try await wire.until("response.output_text.delta").last?["item_id"])
        await wire.send(["type": "conversation.item.retrieve", "item_id": answer])
        let writing = try #require(try await wire.until("conversation.item.retrieved").last?["item"])
        #expect(writing["status"] == "in_progress", "\(writing.text)")
        await wire.send(["type": "response.cancel"])
        let done = try #require(try await wire.until("response.done").last?["response"]?["output"]?.arrayValue?.first)
        await wire.send(["type": "conversation.item.retrieve", "item_id": answer])
        let kept = try #require(try await wire.until("conversation.item.retrieved").last?["item"])
        #expect(kept["status"] == "completed" && kept["content"] == done["content"], "\(kept.text) after \(done.text)")

        let tools: JSONValue = [["type": "function", "name": "get_weather", "parameters": ["type": "object"]]]
        await wire.send(["type": "session.update", "session": ["tools": tools]])
        _ = try await wire.until("session.updated")
        let call = #"{"tool_calls":[{"name":"get_weather","arguments":{"city":"Oslo"}}]}"#
        await wire.ask(call)
        let made = try #require(
            try await wire.until("response.output_item.done").last?["item"], "the call's item is done before the response")
        await wire.send([
            "type": "conversation.item.create",
            "item": ["type": "function_call_output", "call_id": made["call_id"] ?? .null, "output": "18 C"],
        ])
        let events = try await wire.until("response.done")
        #expect(!Self.types(events).contains("error"), "\(events.map(\.text))")
        await wire.session.close()

        let messages = await RealtimeAnswer.messages([
            RealtimeSession.Item(id: "a", role: .user, text: "weather?"),
            RealtimeSession.Item(id: "b", role: .assistant, text: "Let me look."),
            RealtimeSession.Item(id: "c", role: .assistant, text: "", call: ToolCall(id: "c1", name: "get_weather", arguments: [:])),
            RealtimeSession.Item(id: "d", role: .tool, text: "18 C", callID: "c1"),
        ])
        #expect(messages.map(\.role) == [.user, .assistant, .tool])
        #expect(messages[1].content == "Let me look." && messages[1].toolCalls.map(\.id) == ["c1"])
    }

    /// G.711 input is taken at its 8 kHz (1.5 s of µ-law is heard as two started seconds), and
    /// the format changes only while the input buffer is empty.
    @Test func g711InputIsHeardAtItsRate() async throws {
        let runtime = try scriptedRuntime()
        try addScriptedSpeech(to: runtime)
        let wire = Wire(runtime)
        try await wire.startWritten()
        let format: JSONValue = ["type": "audio/pcmu"]
        await wire.send([
            "type": "session.update",
            "session": ["audio": ["input": ["format": format, "turn_detection": .null, "transcription": ["model": "scripted-stt"]]]],
        ])
        let updated = try #require(try await wire.until("session.updated").last?["session"])
        #expect(updated["audio"]?["input"]?["format"] == format)
        let speech = G711.muLaw.encode((0..<12_000).map { Float(sin(Double($0) * 0.3) * 0.5) })
        await wire.send(["type": "input_audio_buffer.append", "audio": .string(speech.base64EncodedString())])
        await wire.send(["type": "session.update", "session": ["audio": ["input": ["format": ["type": "audio/pcm"]]]]])
        let refused = try #require(try await wire.until("error").last?["error"])
        #expect(refused["param"] == "session.audio.input.format", "\(refused.text)")
        await wire.send(["type": "input_audio_buffer.commit"])
        let heard = try #require(try await wire.until("conversation.item.input_audio_transcription.completed").last)
        #expect(heard["transcript"] == "second 1 second 2", "\(heard.text)")
        await wire.session.close()
    }

    /// `response.create` with `input` answers from the items it gives (and references), and with
    /// `conversation: none` its answer stays out of the conversation.
    @Test func aResponseMayHaveItsOwnInputAndStayOutOfTheConversation() async throws {
        let wire = Wire(try scriptedRuntime())
        try await wire.startWritten()
        await wire.send([
            "type": "conversation.item.create",
            "item": ["type": "message", "role": "user", "id": "item_kept", "content": [["type": "input_text", "text": "amber jade"]]],
        ])
        _ = try await wire.until("conversation.item.done")
        await wire.send([
            "type": "response.create",
            "response": [
                "conversation": "none",
                "input": [
                    ["type": "item_reference", "id": "item_kept"],
                    ["type": "message", "role": "user", "content": [["type": "input_text", "text": "coral slate"]]],
                ],
            ],
        ])
        let events = try await wire.until("response.done")
        #expect(!Self.types(events).contains { $0.hasPrefix("conversation.item") }, "\(Self.types(events))")
        let done = try #require(events.last?["response"])
        let text = done["output"]?.arrayValue?.first?["content"]?.arrayValue?.first?["text"]?.stringValue ?? ""
        #expect(done["status"] == "completed" && text.contains("slate"), "\(done.text)")
        let answer = try #require(done["output"]?.arrayValue?.first?["id"])
        await wire.send(["type": "conversation.item.retrieve", "item_id": answer])
        #expect(try await wire.until("error").last?["error"]?["code"] == "item_retrieve_invalid_item_id", "out of band: not kept")

        let refusals: [(JSONValue, String)] = [
            (["input": [["type": "item_reference", "id": "item_gone"]]], "response.input.0.id"),
            (["conversation": "other"], "response.conversation"),
            (["tool_choice": "required"], "response.tool_choice"),
            (["max_output_tokens": 0], "response.max_output_tokens"),
            (["instructions": ["text": "Be brief."]], "response.instructions"),
        ]
        for (response, param) in refusals {
            await wire.send(["type": "response.create", "response": response])
            let error = try #require(try await wire.until("error").last?["error"])
            #expect(error["param"]?.stringValue == param, "\(response.text): \(error.text)")
        }
        await wire.session.close()
    }

    @Test func badEventsAreErrorEventsAndTheSessionGoesOn() async throws {
        let wire = Wire(try scriptedRuntime())
        _ = try await wire.next()
        func error(after message: String) async throws -> JSONValue {
            await wire.session.handle(message)
            return try #require(try await wire.until("error").last?["error"])
        }
        let notJSON = try await error(after: "not json")["message"]?.stringValue ?? ""
        #expect(
            notJSON.hasPrefix("The message is not a JSON event: Not valid JSON at byte 0"),
            "the parser's message, not the error's debug form: \(notJSON)")
        #expect(try await error(after: #"{"type": "no.such", "event_id": "e1"}"#)["event_id"] == "e1")
        #expect(try await error(after: #"{"type": "input_audio_buffer.append", "audio": "%%%"}"#)["param"] == "audio")
        // A transcription model that is not one is refused when it is named, not at every turn.
        #expect(
            try await error(
                after: #"{"type": "session.update", "session": {"audio": {"input": {"transcription": {"model": "nope"}}}}}"#)["param"]
                == "session.audio.input.transcription.model")
        #expect(try await error(after: #"{"type": "input_audio_buffer.append", "audio": "AAAA"}"#)["param"] == "audio", "3 bytes of PCM16")
        #expect(try await error(after: #"{"type": "input_audio_buffer.commit"}"#)["code"] == "input_audio_buffer_commit_empty")
        #expect(try await error(after: #"{"type": "response.cancel"}"#)["code"] == "response_cancel_not_active")
        #expect(
            try await error(after: #"{"type": "conversation.item.create", "item": {"type": "message", "role": "tool"}}"#)["param"] == "item"
        )
        #expect(
            try await error(
                after: #"{"type": "conversation.item.create", "item": {"type": "function_call_output", "call_id": "c9", "output": "x"}}"#)[
                    "param"] == "item.call_id", "an output for no call")
        await wire.session.refuseBinary()
        #expect(try await wire.until("error").last?["error"]?["message"]?.stringValue?.contains("JSON text") == true)
        // An answer needs a user message last.
        await wire.send(["type": "response.create"])
        let failed = try await wire.until("response.done")
        #expect(Self.types(failed).contains("error") && failed.last?["response"]?["status"] == "failed")
        // And still works.
        await wire.send(["type": "input_audio_buffer.clear"])
        #expect(try await wire.next()["type"] == "input_audio_buffer.cleared")
        await wire.session.close()
    }
}
