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
    let send: AsyncStream<JSONValue>.Continuation
    /// The server events, in order: `session.created` first; it ends when the session closes.
    public nonisolated let events: AsyncStream<JSONValue>

    var items: [Item] = []
    /// Uncommitted input, at the input format's rate, and where it starts in the session's audio (ms).
    var input: [Float] = []
    var inputStartMs = 0
    /// Server VAD: the item the speech in progress will become, and whether a check runs.
    var speechItem: String?
    var checking = false
    var uncheckedSamples = 0
    /// A transcription started at a pause in the speech, before the silence was long enough to
    /// end the turn: the speech up to window `speechEnd` of the input, which the turn takes if it
    /// ends with no more speech after it. So the words are mostly written while the silence runs.
    var early: (speechEnd: Int, transcription: Task<String, any Error>)?
    /// An answer to the speech up to that pause, started with its transcription when server VAD
    /// creates responses: it runs as any answer, but what it sends and adds waits here, unseen,
    /// until the turn ends at that pause (it all goes out at once, and the answer goes on
    /// live) or the speech goes on (it is cancelled and dropped). So the answer is mostly
    /// written, and its first sentence spoken, while the silence that ends the turn runs.
    var held: HeldAnswer?
    /// Server VAD's reading of the uncommitted input, window by window.
    var tracker = SpeechTracker(threshold: 0.5)
    var response: (id: String, task: Task<Void, Never>)?
    /// Whether the answer in progress was cancelled because the user spoke.
    var interruptedBySpeech = false
    /// Whether the session has closed: a check still running starts nothing more.
    var closed = false
    /// The samples of audio the answer in progress has spoken so far.
    var spokenSamples = 0
    /// Whether the answer in progress stays out of the conversation (`conversation: none`).
    var respondsOutOfBand = false

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
            refuse(RealtimeError("The message is not a JSON event: \((error as? SDKError)?.message ?? "\(error)")"), eventID: nil)
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
                // A model is checked when it is named, not at each turn it would fail.
                if updated.model != settings.model {
                    do {
                        updated.model = try runtime.model(id: updated.model, category: .language).id
                    } catch let error as SDKError {
                        throw RealtimeError(error.message, param: "session.model")
                    }
                }
                if updated.transcriptionModel != settings.transcriptionModel {
                    do {
                        _ = try runtime.model(id: updated.transcriptionModel, category: .speechRecognition)
                    } catch let error as SDKError {
                        throw RealtimeError(error.message, param: "session.audio.input.transcription.model")
                    }
                }
                settings = updated
                emit("session.updated", ["session": settings.json])
            case "input_audio_buffer.append": try append(event["audio"])
            case "input_audio_buffer.commit": try commit(as: nil)
            case "input_audio_buffer.clear":
                clearInput()
                emit("input_audio_buffer.cleared", [:])
            case "conversation.item.create": try create(event["item"] ?? .null, after: event["previous_item_id"])
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

    // MARK: Events

    /// Sends server event `type` with `fields`.
    func emit(_ type: String, _ fields: JSONValue) { send.yield(Self.event(type, fields)) }

    /// Server event `type` with `fields`.
    static func event(_ type: String, _ fields: JSONValue) -> JSONValue {
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

    func refuse(_ error: RealtimeError, eventID: String?) { emit("error", Self.errorFields(error, eventID: eventID)) }

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

    static func userAudio(_ id: String, transcript: String?) -> JSONValue {
        [
            "id": .string(id), "object": "realtime.item", "type": "message", "role": "user", "status": "completed",
            "content": [["type": "input_audio", "transcript": transcript.map(JSONValue.string) ?? .null]],
        ]
    }
}
