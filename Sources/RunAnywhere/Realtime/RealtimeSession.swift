import Foundation
import Logging

/// A spoken (or written) conversation in OpenAI's Realtime API: what `runanywhere serve` runs
/// for each `/v1/realtime` connection, for an app to hold in process. Client events go in through
/// `handle(_:)` (`session.update`, `input_audio_buffer.append` of base64 audio,
/// `conversation.item.create`, `response.create`, …) and the server events come out, in the API's
/// order, from ``events``: `session.created` first, then the speech started and stopped that
/// server voice activity detection finds, the transcription, the answer's text and audio
/// deltas (each sentence spoken as soon as it is written), function calls, `response.done`, and
/// `error` events for what the session cannot do. The answer is begun at the first pause in
/// the speech, held unseen until the turn ends there; speech over an answer cancels it.
///
/// Every model is the runtime's, shared with every other session and request: voice activity
/// detection, speech to text, the language model (in the one batch scheduler) and the voice.
///
/// ```swift
/// let session = RealtimeSession(runtime: try RunAnywhere.runtime())
/// await session.handle(["type": "input_audio_buffer.append", "audio": .string(pcm16At24kHz.base64EncodedString())])
/// for await event in session.events where event["type"]?.stringValue == "response.output_audio.delta" {
///     play(Data(base64Encoded: event["delta"]?.stringValue ?? ""))
/// }
/// ```
public actor RealtimeSession {
    /// A conversation item: the user's words (written, or heard from committed audio once
    /// transcribed) or an answer.
    struct Item: Sendable {
        let id: String
        let role: MessageRole
        /// Its words once known: nil while the user's speech is transcribed or the answer is written.
        var text: String?
        /// The transcription of the user's speech, while `text` waits for it.
        var transcription: Task<String, Never>?
        /// Whether it is audio: the user's speech, or an answer the voice spoke.
        var isAudio = false
        /// An answer's sentences as the voice spoke them, each with where its audio ends (ms).
        var spoken: [SpokenSentence] = []
        /// Whether the client cut the answer to what it played (`conversation.item.truncate`):
        /// what the answer writes or speaks afterwards stays out of it.
        var truncated = false
        /// A function call the model made (an assistant item without words).
        var call: ToolCall?
        /// The call a function's output (a tool item) answers.
        var callID: String?

        init(
            id: String, role: MessageRole, text: String?, transcription: Task<String, Never>? = nil, isAudio: Bool = false,
            call: ToolCall? = nil, callID: String? = nil
        ) {
            self.id = id
            self.role = role
            self.text = text
            self.transcription = transcription
            self.isAudio = isAudio
            self.call = call
            self.callID = callID
        }

        /// Its words, waiting for the transcription of the user's speech if it still runs.
        func words() async -> String {
            if let text { return text }
            return await transcription?.value ?? ""
        }
    }

    /// An answer started before its turn ended (``held``): what it has sent and added so far.
    struct HeldAnswer {
        let id: String
        /// The user's speech it answers, which the turn commits as this item.
        let userItem: String
        let task: Task<Void, Never>
        var events: [JSONValue] = []
        var items: [Item] = []
        var spokenSamples = 0
        /// Whether it has ended (``answered(_:)``).
        var finished = false
        /// Whether its turn has ended: it goes out once the words it answers are reported.
        var turnEnded = false
    }

    /// A sentence of an answer and where its audio ends, from the answer's first audio (ms).
    struct SpokenSentence: Sendable {
        let text: String
        let endMs: Int
    }

    let runtime: RunAnywhereRuntime
    /// Threads for each model's work; nil for the engines' default.
    let threads: Int?
    /// The most audio the input buffer holds before it must be committed or cleared.
    let maxAudioDuration: TimeInterval
    let logger: Logger
    var settings: RealtimeSessionSettings
    private let send: AsyncStream<JSONValue>.Continuation
    /// The server events, in order: `session.created` first; it ends when the session closes.
    public nonisolated let events: AsyncStream<JSONValue>

    private var items: [Item] = []
    /// Uncommitted input, at the input format's rate, and where it starts in the session's audio (ms).
    private var input: [Float] = []
    private var inputStartMs = 0
    /// Server VAD: the item the speech in progress will become, and whether a check runs.
    private var speechItem: String?
    private var checking = false
    private var uncheckedSamples = 0
    /// A transcription started at a pause in the speech, before the silence was long enough to
    /// end the turn: the speech up to window `speechEnd` of the input, which the turn takes if it
    /// ends with no more speech after it. So the words are mostly written while the silence runs.
    private var early: (speechEnd: Int, transcription: Task<String, any Error>)?
    /// An answer to the speech up to that pause, started with its transcription when server VAD
    /// creates responses: it runs as any answer, but what it sends and adds waits here, unseen,
    /// until the turn ends at that pause (it all goes out at once, and the answer goes on
    /// live) or the speech goes on (it is cancelled and dropped). So the answer is mostly
    /// written, and its first sentence spoken, while the silence that ends the turn runs.
    private var held: HeldAnswer?
    /// Server VAD's reading of the uncommitted input, window by window.
    private var tracker = SpeechTracker(threshold: 0.5)
    private(set) var response: (id: String, task: Task<Void, Never>)?
    /// Whether the answer in progress was cancelled because the user spoke.
    private(set) var interruptedBySpeech = false
    /// Whether the session has closed: a check still running starts nothing more.
    private var closed = false
    /// The samples of audio the answer in progress has spoken so far.
    private var spokenSamples = 0
    /// Whether the answer in progress stays out of the conversation (`conversation: none`).
    private var respondsOutOfBand = false

    /// A session that answers with language model `model` (the default one unless named), its
    /// models' work on `threads` threads (nil: the engines' default), and an input buffer that
    /// holds at most `maxAudioDuration` seconds; it logs to `logger` (nil: the runtime's). Its
    /// first event, `session.created`, is in ``events`` at once.
    public init(
        runtime: RunAnywhereRuntime, model: String = SDKConstants.Models.defaultModelID, threads: Int? = nil,
        maxAudioDuration: TimeInterval = 600, logger: Logger? = nil
    ) {
        self.runtime = runtime
        self.threads = threads
        self.maxAudioDuration = maxAudioDuration
        self.logger = logger ?? runtime.configuration.logger
        settings = RealtimeSessionSettings(id: Self.newID("sess"), model: model)
        (events, send) = AsyncStream.makeStream(of: JSONValue.self)
        send.yield(Self.event("session.created", ["session": settings.json]))
    }

    /// Ends the session: an answer in progress stops, and so do ``events``.
    public func close() async {
        closed = true
        dropEarlyTurn()
        response?.task.cancel()
        await response?.task.value
        send.finish()
    }

    /// Handles one client event as JSON text (a WebSocket message); text that is not JSON is an
    /// `error` event.
    public func handle(_ text: String) async {
        do {
            await handle(try JSONValue(parsing: text))
        } catch {
            refuse(RealtimeError("The message is not a JSON event: \(error)"), eventID: nil)
        }
    }

    /// Handles one client event; what the session cannot do is an `error` event naming it.
    public func handle(_ event: JSONValue) async {
        let eventID = event["event_id"]?.stringValue
        // An answer started ahead of its turn answers the session as it was, with nothing after
        // it: another event cancels it, unless its turn has ended (it is the turn's answer).
        if event["type"]?.stringValue != "input_audio_buffer.append", let answer = held {
            if answer.turnEnded { releaseHeldAnswer(to: answer.userItem) } else { dropHeldAnswer() }
        }
        do {
            switch event["type"]?.stringValue ?? "" {
            case "session.update":
                var updated = settings
                try updated.update(event["session"] ?? .null)
                guard updated.inputFormat == settings.inputFormat || input.isEmpty else {
                    throw RealtimeError(
                        "The input audio buffer holds audio in the current format: commit or clear it before changing the format",
                        param: "session.audio.input.format")
                }
                settings = updated
                emit("session.updated", ["session": settings.json])
            case "input_audio_buffer.append": try append(event["audio"])
            case "input_audio_buffer.commit": try commit(as: nil)
            case "input_audio_buffer.clear":
                clearInput()
                emit("input_audio_buffer.cleared", [:])
            case "conversation.item.create": try create(event["item"] ?? .null)
            case "conversation.item.retrieve": try retrieve(event["item_id"])
            case "conversation.item.delete": try delete(event["item_id"])
            case "conversation.item.truncate":
                try truncate(event["item_id"], contentIndex: event["content_index"], audioEndMs: event["audio_end_ms"])
            case "response.create": try respond(event["response"])
            case "response.cancel":
                guard let running = response else {
                    throw RealtimeError("There is no response in progress", code: "response_cancel_not_active")
                }
                running.task.cancel()
            case let type: throw RealtimeError("Unknown client event type '\(type)'", param: "type")
            }
        } catch let error as RealtimeError {
            refuse(error, eventID: eventID)
        } catch {
            refuse(RealtimeError("\(error)"), eventID: eventID)
        }
    }

    /// A binary message: the API speaks JSON text only.
    package func refuseBinary() {
        refuse(RealtimeError("Send events as JSON text messages; audio goes base64 in input_audio_buffer.append"), eventID: nil)
    }

    // MARK: Input audio

    /// The rate of the input audio: the input format's.
    private var rate: Int { settings.inputFormat.sampleRate }

    private func append(_ audio: JSONValue?) throws {
        guard let base64 = audio?.stringValue, let data = Data(base64Encoded: base64) else {
            throw RealtimeError("audio must be base64 \(settings.inputFormat.rawValue) audio (the session's input format)", param: "audio")
        }
        let samples = try settings.inputFormat.decode(data, param: "audio")
        guard !samples.isEmpty else { return }
        guard Double(input.count + samples.count) / Double(rate) <= maxAudioDuration else {
            throw RealtimeError(
                "The input audio buffer holds at most \(Int(maxAudioDuration)) s; commit or clear it",
                code: "input_audio_buffer_full")
        }
        input += samples
        uncheckedSamples += samples.count
        if settings.turnDetection != nil, !checking, uncheckedSamples >= checkEvery {
            checking = true
            Task { await detectTurns() }
        }
    }

    /// Samples of new audio between two checks of server VAD: 100 ms, so that the end of a turn
    /// is found within 100 ms of its silence.
    private var checkEvery: Int { rate / 10 }

    /// How long a pause in the speech starts its transcription early (``early``).
    static let earlyTranscriptionPauseMs = 100

    /// Checks the input for turns until the audio that came in meanwhile is less than a check's worth.
    private func detectTurns() async {
        defer { checking = false }
        while !closed, settings.turnDetection != nil, uncheckedSamples >= checkEvery {
            uncheckedSamples = 0
            await detectTurn()
        }
    }

    private func clearInput() {
        inputStartMs += input.count * 1000 / rate
        input = []
        speechItem = nil
        early?.transcription.cancel()
        early = nil
        tracker = SpeechTracker(threshold: tracker.threshold)
    }

    /// The words of `audio`, by the session's transcription model.
    private func transcription(of audio: AudioSamples) -> Task<String, any Error> {
        let (runtime, model, threads) = (runtime, settings.transcriptionModel, threads)
        return Task {
            try await runtime.transcribe(
                audio, model: model, options: STTOptions(enableTimestamps: false, threads: threads),
                loadOptions: ModelLoadOptions(threads: threads)
            )
            .text
        }
    }

    /// Server VAD over the uncommitted audio: speech starting (which interrupts an answer),
    /// and speech followed by enough silence, which commits the turn and answers it. Only the
    /// windows that came in since the last check are scored, each check with the 16 windows
    /// (0.5 s) before them to settle the detector's state.
    private func detectTurn() async {
        guard let detection = settings.turnDetection else { return }
        let perWindow = VADWindow.samples * rate / 16_000  // input samples in a window
        let (start, scored, whole) = (inputStartMs, tracker.count, input.count / perWindow)
        guard whole > scored else { return }
        let context = min(scored, 16)
        let scores: [Float]
        do {
            let audio = try AudioSamples(samples: Array(input[(scored - context) * perWindow..<whole * perWindow]), sampleRate: rate)
            scores = try await runtime.speechProbabilities(in: audio)
        } catch {
            return refuse(RealtimeError("Voice activity detection failed: \(error)", code: "server_error"), eventID: nil)
        }
        // Committed or cleared meanwhile: the audio checked is gone.
        guard inputStartMs == start, tracker.count == scored, !closed else { return }
        tracker.threshold = Float(detection.threshold)
        tracker.append(scores.dropFirst(context).prefix(whole - scored))
        let window = VADWindow.milliseconds
        guard let started = tracker.speechStart, let lastSpeech = tracker.lastSpeech, let silent = tracker.silence else {
            // No speech yet: keep only what could pad the start of the next speech.
            if tracker.candidate == nil, speechItem == nil {
                let drop = tracker.count - detection.prefixPaddingMs / window
                if drop > 0 {
                    tracker.dropFirst(drop)
                    input.removeFirst(drop * perWindow)
                    inputStartMs += drop * window
                }
            }
            return
        }
        if speechItem == nil {
            // The last turn's answer, held until its words are reported, is that turn's answer:
            // it goes out now, so that this speech interrupts it as any answer.
            if let answer = held, answer.turnEnded { releaseHeldAnswer(to: answer.userItem) }
            let item = Self.newID("item")
            speechItem = item
            emit(
                "input_audio_buffer.speech_started",
                ["audio_start_ms": .number(Double(inputStartMs + max(0, started * window - 30))), "item_id": .string(item)])
            if detection.interruptResponse, let running = response {
                interruptedBySpeech = true
                running.task.cancel()
            }
        }
        if let begun = early, begun.speechEnd < lastSpeech { dropEarlyTurn() }  // the speech went on: its words are not all in it
        guard let item = speechItem, silent * window >= detection.silenceMs else {
            if let item = speechItem, silent * window >= Self.earlyTranscriptionPauseMs, early?.speechEnd != lastSpeech,
                let audio = try? AudioSamples(samples: input, sampleRate: rate)
            {
                dropEarlyTurn()
                let words = transcription(of: audio)
                early = (lastSpeech, words)
                if detection.createResponse, response == nil { holdAnswer(to: item, words: words) }
            }
            return
        }
        emit(
            "input_audio_buffer.speech_stopped",
            ["audio_end_ms": .number(Double(inputStartMs + (lastSpeech + 1) * window + 30)), "item_id": .string(item)])
        let begun = early.flatMap { $0.speechEnd == lastSpeech ? $0.transcription : nil }
        if begun == nil { dropHeldAnswer() }
        do {
            try commit(as: item, transcribed: begun)
            // An answer held since the pause goes out once the words it answers are reported.
            if held != nil {
                held?.turnEnded = true
            } else if detection.createResponse {
                try respond(nil)
            }
        } catch let error as RealtimeError {
            refuse(error, eventID: nil)
        } catch {
            refuse(RealtimeError("\(error)"), eventID: nil)
        }
    }

    /// Commits the input as a user item (`as` names it, after server VAD) and starts writing it,
    /// unless a transcription of its words already runs (`transcribed`).
    private func commit(as id: String?, transcribed: Task<String, any Error>? = nil) throws {
        guard input.count >= rate / 10 else {
            throw RealtimeError(
                "The input audio buffer holds \(input.count * 1000 / rate) ms; commit at least 100 ms",
                code: "input_audio_buffer_commit_empty")
        }
        let transcribing = try transcribed ?? transcription(of: AudioSamples(samples: input, sampleRate: rate))
        if transcribed != nil { early = nil }
        let item = id ?? Self.newID("item")
        let previous = items.last?.id
        clearInput()
        let reports = settings.reportsTranscription
        let heard = Task { [weak self] () -> String in
            do {
                let text = try await transcribing.value
                await self?.heard(item, text, report: reports)
                return text
            } catch {
                await self?.notHeard(item, error)
                return ""
            }
        }
        items.append(Item(id: item, role: .user, text: nil, transcription: heard, isAudio: true))
        emit("input_audio_buffer.committed", ["previous_item_id": previous.map(JSONValue.string) ?? .null, "item_id": .string(item)])
        emit(
            "conversation.item.added",
            ["previous_item_id": previous.map(JSONValue.string) ?? .null, "item": Self.userAudio(item, transcript: nil)])
    }

    private func heard(_ item: String, _ transcript: String, report: Bool) {
        if let index = items.firstIndex(where: { $0.id == item }) { items[index].text = transcript }
        if report {
            emit(
                "conversation.item.input_audio_transcription.completed",
                ["item_id": .string(item), "content_index": 0, "transcript": .string(transcript)])
        }
        emit("conversation.item.done", ["item": Self.userAudio(item, transcript: transcript)])
        releaseHeldAnswer(to: item)
    }

    private func notHeard(_ item: String, _ error: any Error) {
        if let index = items.firstIndex(where: { $0.id == item }) { items[index].text = "" }
        emit(
            "conversation.item.input_audio_transcription.failed",
            ["item_id": .string(item), "content_index": 0, "error": ["type": "transcription_error", "message": .string("\(error)")]])
        releaseHeldAnswer(to: item)
    }

    /// Starts answering the user's speech `item`, whose words `words` will be, before its turn
    /// has ended (``held``).
    private func holdAnswer(to item: String, words: Task<String, any Error>) {
        let heard = Task { (try? await words.value) ?? "" }
        let speech = Item(id: item, role: .user, text: nil, transcription: heard, isAudio: true)
        let id = Self.newID("resp")
        let answer = RealtimeAnswer(id: id, session: self, settings: settings, items: items + [speech])
        held = HeldAnswer(id: id, userItem: item, task: Task { await answer.run() })
        logger.debug("realtime: answering \(item) at a pause, held until its turn ends", metadata: ["response": "\(id)"])
    }

    /// Cancels what was begun at a pause (the early transcription and the answer held with it).
    private func dropEarlyTurn() {
        early?.transcription.cancel()
        early = nil
        dropHeldAnswer()
    }

    /// Cancels the answer held ahead of its turn, if there is one, and forgets what it did.
    private func dropHeldAnswer() {
        guard let answer = held else { return }
        answer.task.cancel()
        held = nil
        logger.debug("realtime: the answer held for \(answer.userItem) is dropped", metadata: ["response": "\(answer.id)"])
    }

    /// The turn of the user's speech `item` ended where the held answer started: it becomes the
    /// session's answer, what it did so far goes out, and the rest goes out as it comes.
    private func releaseHeldAnswer(to item: String) {
        guard let answer = held, answer.userItem == item else { return }
        held = nil
        items += answer.items
        interruptedBySpeech = false
        respondsOutOfBand = false
        spokenSamples = answer.spokenSamples
        answer.events.forEach { send.yield($0) }
        logger.debug(
            "realtime: the turn of \(item) ended at its pause; the answer held sends its \(answer.events.count) events",
            metadata: ["response": "\(answer.id)"])
        response = answer.finished ? nil : (answer.id, answer.task)
    }

    // MARK: Conversation

    /// `conversation.item.create`: an item (``item(_:param:among:)``) added at the end.
    private func create(_ json: JSONValue) throws {
        let entry = try Self.item(json, param: "item", among: items)
        let previous = items.last?.id
        items.append(entry.item)
        let shown = Self.json(entry.item, text: entry.text)
        emit("conversation.item.added", ["previous_item_id": previous.map(JSONValue.string) ?? .null, "item": shown])
        emit("conversation.item.done", ["item": shown])
    }

    /// An item a client gives, with its text: a user or system message of `input_text`, an
    /// assistant message of `output_text`, a `function_call` (a call the assistant made, as
    /// history) or a `function_call_output` (a function's result for one of the calls in
    /// `among`, its `output` as text). Errors name `param`.
    private static func item(_ item: JSONValue, param: String, among items: [Item]) throws -> (item: Item, text: String) {
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
    private func retrieve(_ id: JSONValue?) throws {
        let item = items[try place(of: id, for: "retrieve")]
        emit("conversation.item.retrieved", ["item": Self.json(item, text: item.text)])
    }

    /// `conversation.item.delete`: the item leaves the conversation (an answer in progress
    /// keeps the conversation it started with).
    private func delete(_ id: JSONValue?) throws {
        let item = items.remove(at: try place(of: id, for: "delete"))
        emit("conversation.item.deleted", ["item_id": .string(item.id)])
    }

    /// `conversation.item.truncate`: a spoken answer the client played only up to
    /// `audioEndMs` keeps only the words heard by then (whole sentences, and of the sentence
    /// cut, as many words as the share of its audio played), so that the conversation holds
    /// nothing the user did not hear.
    private func truncate(_ id: JSONValue?, contentIndex: JSONValue?, audioEndMs: JSONValue?) throws {
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
    private static func json(_ item: Item, text: String?) -> JSONValue {
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

    // MARK: Responses

    /// Starts an answer (`response.create`): its `instructions`, `output_modalities`, `tools`,
    /// `tool_choice` and `max_output_tokens` replace the session's for this answer, `input` is its
    /// context instead of the conversation, and `conversation: none` keeps it out of the conversation.
    private func respond(_ overrides: JSONValue?) throws {
        guard response == nil else {
            throw RealtimeError("The conversation already has a response in progress", code: "conversation_already_has_active_response")
        }
        var settings = settings
        if let instructions = overrides?["instructions"]?.stringValue { settings.instructions = instructions }
        // The session's settings a response may set for itself, with errors naming the response's field.
        let own = overrides?.objectValue?.members.filter {
            ["output_modalities", "tools", "tool_choice", "max_output_tokens"].contains($0.key)
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

    // MARK: Events

    /// Sends server event `type` with `fields`.
    func emit(_ type: String, _ fields: JSONValue) { send.yield(Self.event(type, fields)) }

    /// Server event `type` with `fields`.
    private static func event(_ type: String, _ fields: JSONValue) -> JSONValue {
        let members = fields.objectValue?.members.map { ($0.key, $0.value) } ?? []
        return .object(JSONObject([("type", .string(type)), ("event_id", .string(newID("event")))] + members))
    }

    /// Sends server event `type` with `fields` for the answer `id`: held with it while it is
    /// held ahead of its turn, dropped once it is neither held nor the session's answer (a
    /// held answer that was cancelled).
    func emit(for id: String, _ type: String, _ fields: JSONValue) {
        if held?.id == id {
            held?.events.append(Self.event(type, fields))
        } else if response?.id == id {
            emit(type, fields)
        }
    }

    /// Sends `error`, which the answer `id` met, as an `error` event that answers no client event.
    func emitError(for id: String, _ error: RealtimeError) {
        emit(for: id, "error", Self.errorFields(error, eventID: nil))
    }

    private func refuse(_ error: RealtimeError, eventID: String?) { emit("error", Self.errorFields(error, eventID: eventID)) }

    /// An `error` event's fields for `error`, answering the client event `eventID` if any.
    private static func errorFields(_ error: RealtimeError, eventID: String?) -> JSONValue {
        [
            "error": [
                "type": error.code == "server_error" ? "server_error" : "invalid_request_error", "code": .string(error.code),
                "message": .string(error.message), "param": error.param.map(JSONValue.string) ?? .null,
                "event_id": eventID.map(JSONValue.string) ?? .null,
            ]
        ]
    }

    package static func newID(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(20).lowercased()
    }

    private static func userAudio(_ id: String, transcript: String?) -> JSONValue {
        [
            "id": .string(id), "object": "realtime.item", "type": "message", "role": "user", "status": "completed",
            "content": [["type": "input_audio", "transcript": transcript.map(JSONValue.string) ?? .null]],
        ]
    }
}
