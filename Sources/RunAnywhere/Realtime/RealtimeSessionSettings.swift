import Foundation

/// A realtime session's settings, as `session.update` sets them and `session.created` /
/// `session.updated` report them in OpenAI's shape: the instructions, whether answers are
/// spoken or only written, the voice, server voice activity detection and input transcription.
/// Audio is PCM16 at 24 kHz or G.711 at 8 kHz, each way as the client chooses.
package struct RealtimeSessionSettings: Sendable {
    /// OpenAI's voice names, which mean the default voice model's own voice (here and in
    /// `/v1/audio/speech`).
    package static let openAIVoices: Set<String> = [
        "alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse",
    ]

    /// Server voice activity detection: when speech starts and, after `silenceMs` of silence,
    /// ends, the input is committed and (with `createResponse`) answered; speech while an answer
    /// plays cancels it (with `interruptResponse`).
    struct TurnDetection: Sendable, Equatable {
        var threshold = 0.5
        var prefixPaddingMs = 300
        var silenceMs = 500
        var createResponse = true
        var interruptResponse = true
    }

    let id: String
    /// The language model that answers.
    var model: String
    var instructions = "You are a helpful voice assistant. Answer briefly, in plain sentences."
    var spoken = true
    /// An OpenAI voice name (the voice model's own voice) or an engine voice name.
    var voice = "alloy"
    var speed = 1.0
    var turnDetection: TurnDetection? = TurnDetection()
    /// The speech-to-text model that writes the user's audio, which the model answers; reported
    /// to the client (`conversation.item.input_audio_transcription.completed`) only when asked.
    var transcriptionModel = SDKConstants.Models.defaultSpeechRecognitionModelID
    var reportsTranscription = false
    var maxOutputTokens: Int?
    /// The answers' sampling temperature, as the beta API set it; the model's default when nil.
    var temperature: Double?
    /// The functions the model may call, and whether it must.
    var tools: [Tool] = []
    var toolChoice = ToolChoice.auto
    /// The format of the audio the client sends, and of the audio it hears.
    var inputFormat = RealtimeAudioFormat.pcm
    var outputFormat = RealtimeAudioFormat.pcm

    /// Applies `session.update`'s `session`; refuses what the session cannot do, naming it.
    mutating func update(_ session: JSONValue) throws(RealtimeError) {
        guard case .object = session else { throw RealtimeError("session must be an object", param: "session") }
        if let type = session["type"]?.stringValue, type != "realtime" {
            throw RealtimeError("Only realtime sessions are served, not \(type)", param: "session.type")
        }
        if let text = try session.member("instructions", "a string", param: "session.instructions", \.stringValue) { instructions = text }
        // OpenAI's model names keep the session's model (its clients send the one they connected with).
        if let name = try session.member("model", "a string", param: "session.model", \.stringValue), !name.hasPrefix("gpt-") {
            model = name
        }
        if let value = session["temperature"] {
            let range = SDKConstants.Generation.temperatureRange
            guard value == .null || value.numberValue.map({ range.contains(Float($0)) }) == true else {
                throw RealtimeError(
                    "temperature must be a number from \(Int(range.lowerBound)) to \(Int(range.upperBound)), or null",
                    param: "session.temperature")
            }
            temperature = value.numberValue
        }
        if let value = session["output_modalities"], value != .null {
            guard let modalities = value.arrayValue else {
                throw RealtimeError("output_modalities must be [\"audio\"] or [\"text\"]", param: "session.output_modalities")
            }
            let names = modalities.compactMap(\.stringValue)
            guard names == ["audio"] || names == ["text"] else {
                throw RealtimeError("output_modalities must be [\"audio\"] or [\"text\"]", param: "session.output_modalities")
            }
            spoken = names == ["audio"]
        }
        if let tokens = session["max_output_tokens"] {
            if tokens.stringValue == "inf" {
                maxOutputTokens = nil
            } else if let count = tokens.numberValue, count >= 1, count <= 4096, count == count.rounded() {
                maxOutputTokens = Int(count)
            } else {
                throw RealtimeError("max_output_tokens must be 1 to 4096 or \"inf\"", param: "session.max_output_tokens")
            }
        }
        if session["tools"] != nil || session["tool_choice"] != nil { try updateTools(session) }
        guard let audio = session["audio"], audio != .null else { return }
        guard case .object = audio else { throw RealtimeError("audio must be an object", param: "session.audio") }
        if let input = audio["input"] {
            if let format = input["format"] { inputFormat = try RealtimeAudioFormat(format, param: "session.audio.input.format") }
            if let transcription = input["transcription"] {
                if case .null = transcription {
                    reportsTranscription = false
                } else {
                    reportsTranscription = true
                    let model = try transcription.member(
                        "model", "a string", param: "session.audio.input.transcription.model", \.stringValue)
                    if let model, !model.hasPrefix("gpt-"), model != "whisper-1" {
                        transcriptionModel = model
                    }
                }
            }
            if let detection = input["turn_detection"] { turnDetection = try Self.turnDetection(detection, current: turnDetection) }
        }
        if let output = audio["output"] {
            if let format = output["format"] { outputFormat = try RealtimeAudioFormat(format, param: "session.audio.output.format") }
            if let name = try output.member("voice", "a string", param: "session.audio.output.voice", \.stringValue) { voice = name }
            if let value = output["speed"] {
                guard let number = value.numberValue, (0.25...1.5).contains(number) else {
                    throw RealtimeError("speed must be between 0.25 and 1.5", param: "session.audio.output.speed")
                }
                speed = number
            }
        }
    }

    /// `tools` (functions: a name, a description, a JSON Schema of their arguments) and
    /// `tool_choice` (`auto`, `none`, `required` or `{"type": "function", "name"}`), checked together.
    private mutating func updateTools(_ session: JSONValue) throws(RealtimeError) {
        var tools = self.tools
        if let list = session["tools"] {
            guard let entries = list.arrayValue else { throw RealtimeError("tools must be a list", param: "session.tools") }
            tools = []
            for (index, entry) in entries.enumerated() {
                guard entry["type"]?.stringValue == "function", let name = entry["name"]?.stringValue else {
                    throw RealtimeError("A tool is {\"type\": \"function\", \"name\", …}", param: "session.tools.\(index)")
                }
                tools.append(
                    Tool(
                        name: name,
                        description: try entry.member("description", "a string", param: "session.tools.\(index).description", \.stringValue)
                            ?? "",
                        parameters: entry["parameters"] ?? ["type": "object", "properties": [:]]))
            }
        }
        var choice = toolChoice
        if let value = session["tool_choice"] {
            switch (value.stringValue, value["type"]?.stringValue, value["name"]?.stringValue) {
            case ("auto", _, _): choice = .auto
            case ("none", _, _): choice = .none
            case ("required", _, _): choice = .required
            case (nil, "function", let name?): choice = .tool(name)
            default:
                throw RealtimeError(
                    "tool_choice must be auto, none, required or {\"type\": \"function\", \"name\"}", param: "session.tool_choice")
            }
        }
        do {
            try LLMGenerationOptions(tools: tools, toolChoice: choice).validate()
        } catch let error as SDKError {
            throw RealtimeError(error.message, param: session["tool_choice"] != nil ? "session.tool_choice" : "session.tools")
        } catch {
            throw RealtimeError("\(error)", param: "session.tools")
        }
        self.tools = tools
        toolChoice = choice
    }

    private static func turnDetection(_ value: JSONValue, current: TurnDetection?) throws(RealtimeError) -> TurnDetection? {
        if case .null = value { return nil }
        guard value["type"]?.stringValue == "server_vad" else {
            throw RealtimeError("turn_detection must be null or {\"type\": \"server_vad\", …}", param: "session.audio.input.turn_detection")
        }
        var detection = current ?? TurnDetection()
        if let threshold = try value.member("threshold", "a number", param: "session.audio.input.turn_detection.threshold", \.numberValue) {
            guard (0...1).contains(threshold) else {
                throw RealtimeError("threshold must be between 0 and 1", param: "session.audio.input.turn_detection.threshold")
            }
            detection.threshold = threshold
        }
        if let padding = try value.member(
            "prefix_padding_ms", "a number", param: "session.audio.input.turn_detection.prefix_padding_ms", \.numberValue)
        {
            guard (0...10_000).contains(padding) else {
                throw RealtimeError("prefix_padding_ms must be 0 to 10000", param: "session.audio.input.turn_detection.prefix_padding_ms")
            }
            detection.prefixPaddingMs = Int(padding)
        }
        if let silence = try value.member(
            "silence_duration_ms", "a number", param: "session.audio.input.turn_detection.silence_duration_ms", \.numberValue)
        {
            guard (100...10_000).contains(silence) else {
                throw RealtimeError(
                    "silence_duration_ms must be 100 to 10000", param: "session.audio.input.turn_detection.silence_duration_ms")
            }
            detection.silenceMs = Int(silence)
        }
        if let create = try value.member(
            "create_response", "true or false", param: "session.audio.input.turn_detection.create_response", \.boolValue)
        {
            detection.createResponse = create
        }
        if let interrupt = try value.member(
            "interrupt_response", "true or false", param: "session.audio.input.turn_detection.interrupt_response", \.boolValue)
        {
            detection.interruptResponse = interrupt
        }
        return detection
    }

    /// The session object of `session.created` and `session.updated`.
    var json: JSONValue {
        let detection: JSONValue =
            turnDetection.map { detection in
                [
                    "type": "server_vad", "threshold": .number(detection.threshold),
                    "prefix_padding_ms": .number(Double(detection.prefixPaddingMs)),
                    "silence_duration_ms": .number(Double(detection.silenceMs)), "create_response": .bool(detection.createResponse),
                    "interrupt_response": .bool(detection.interruptResponse),
                ]
            } ?? .null
        let session: JSONValue = [
            "type": "realtime", "object": "realtime.session", "id": .string(id), "model": .string(model),
            "output_modalities": spoken ? ["audio"] : ["text"], "instructions": .string(instructions),
            "max_output_tokens": maxOutputTokens.map { .number(Double($0)) } ?? "inf",
            "tools": .array(
                tools.map {
                    ["type": "function", "name": .string($0.name), "description": .string($0.description), "parameters": $0.parameters]
                }),
            "tool_choice": toolChoiceJSON,
            "audio": [
                "input": [
                    "format": inputFormat.json, "transcription": reportsTranscription ? ["model": .string(transcriptionModel)] : .null,
                    "turn_detection": detection,
                ],
                "output": ["format": outputFormat.json, "voice": .string(voice), "speed": .number(speed)],
            ],
        ]
        // The beta API's setting, reported once it is set.
        guard let temperature, case .object(var members) = session else { return session }
        members["temperature"] = .number(temperature)
        return .object(members)
    }
}

extension RealtimeSessionSettings {
    /// `tool_choice` as the API spells it.
    var toolChoiceJSON: JSONValue {
        switch toolChoice {
        case .auto: "auto"
        case .none: "none"
        case .required: "required"
        case .tool(let name): ["type": "function", "name": .string(name)]
        }
    }
}

/// A client event the session refuses: sent back as an `error` event, the session goes on.
struct RealtimeError: Error {
    let message: String
    let param: String?
    let code: String

    init(_ message: String, param: String? = nil, code: String = "invalid_request_error") {
        self.message = message
        self.param = param
        self.code = code
    }
}

extension JSONValue {
    /// The member `key` of this object as `read` takes it: nil when it is absent, and a
    /// ``RealtimeError`` naming `param` when it is there as something else (`null` included): a
    /// mistyped setting is refused, not ignored.
    func member<Value>(_ key: String, _ kind: String, param: String, _ read: (JSONValue) -> Value?) throws(RealtimeError) -> Value? {
        guard let member = self[key] else { return nil }
        guard let value = read(member) else { throw RealtimeError("\(key) must be \(kind)", param: param) }
        return value
    }
}
