import Foundation

/// One realtime response: the language model answers the conversation, its text goes out as
/// deltas as it is written and, when the session speaks, each sentence is spoken as soon as it
/// is complete, while the model writes the next (`response.output_audio.delta`, in the
/// session's output format).
/// Cancelling its task (`response.cancel`, or speech while it plays) stops the generation and
/// the voice; the part already written stays in the conversation, cut short (unless the
/// response keeps out of it, `conversation: none`).
/// It reaches its session only through calls that name it, so that an answer started before
/// its turn ended (``RealtimeSession/HeldAnswer``) is held there, or dropped, unseen.
struct RealtimeAnswer: Sendable {
    let id: String
    let session: RealtimeSession
    let settings: RealtimeSessionSettings
    let items: [RealtimeSession.Item]
    /// Whether its items stay out of the conversation (`conversation: none`): no
    /// `conversation.item` events, nothing added.
    var outOfBand = false

    func run() async {
        let modalities: JSONValue = settings.spoken ? ["audio"] : ["text"]
        await emit(
            "response.created",
            [
                "response": [
                    "id": .string(id), "object": "realtime.response", "status": "in_progress", "output": [],
                    "output_modalities": modalities,
                ]
            ])
        let messages = await Self.messages(items)
        guard let last = items.last, last.role == .user || last.role == .tool, messages.last?.role == last.role else {
            let error = RealtimeError(
                "The conversation does not end with a user message or a function's output to answer (or nothing was heard in the last one)",
                code: "invalid_request_error")
            return await fail(error)
        }
        var output = Output(response: id, spoken: settings.spoken, outOfBand: outOfBand)
        let (sentences, speak) = AsyncStream.makeStream(of: (sentence: String, at: JSONValue).self)
        var result: LLMGenerationResult?
        var failure: (any Error)?
        await withTaskGroup(of: Void.self) { group in
            if settings.spoken { group.addTask { await say(sentences) } }
            do {
                let threads = session.threads
                // The session's limit over the model's defaults (``ModelDefaults``) over the API's.
                var options = LLMGenerationOptions(
                    maxTokens: 1024, temperature: 0.8, threads: threads, tools: settings.tools, toolChoice: settings.toolChoice)
                session.runtime.defaults(of: settings.model)?.apply(to: &options)
                if let limit = settings.maxOutputTokens { options.maxTokens = limit }
                if let temperature = settings.temperature { options.temperature = Float(temperature) }
                let generation = try await session.runtime.generateEvents(
                    continuing: Context(systemPrompt: settings.instructions, messages: messages, maxMessages: messages.count),
                    options: options, model: settings.model, loadOptions: ModelLoadOptions(threads: threads))
                var (pending, spokeAny) = ("", false)
                for try await event in generation {
                    switch event {
                    case .text(let piece):
                        let where_ = await output.message(session)
                        output.text += piece
                        await emit(
                            settings.spoken ? "response.output_audio_transcript.delta" : "response.output_text.delta",
                            Self.merge(where_, ["delta": .string(piece)]))
                        guard settings.spoken else { continue }
                        pending += piece
                        if let end = SpokenSentences.end(in: pending, first: !spokeAny) {
                            speak.yield((String(pending[..<end]), where_))
                            pending = String(pending[end...])
                            spokeAny = true
                        }
                    case .toolCall(let call): await output.call(call, session)
                    case .completed(let completed): result = completed
                    case .reasoning, .logprobs, .promptLogprobs: break
                    }
                }
                if let where_ = output.messageAt, !pending.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    speak.yield((pending, where_))
                }
            } catch {
                failure = error
            }
            speak.finish()
        }
        let cancelled = Task.isCancelled || failure is CancellationError
        if let failure, !cancelled {
            // The items it opened end, incomplete, with what it wrote.
            let done = await output.finish(session, status: "incomplete")
            // A conversation too long for the context is the client's to shorten, as on the HTTP routes.
            let error =
                (failure as? SDKError).map { sdk in
                    sdk.code == .contextTooLong
                        ? RealtimeError(sdk.message, code: "context_length_exceeded")
                        : RealtimeError("The answer failed: \(sdk.message)", code: "server_error")
                } ?? RealtimeError("The answer failed: \(failure.localizedDescription)", code: "server_error")
            return await fail(error, output: done)
        }
        // An answer with neither words nor calls is an empty message.
        if !output.called { _ = await output.message(session) }
        // An answer cut at its `max_output_tokens` is incomplete, as OpenAI's say.
        let cut = !cancelled && result?.stopReason == .length
        let done = await output.finish(session, status: cancelled || cut ? "incomplete" : "completed")
        let interrupted = await session.interruptedBySpeech
        let status: JSONValue =
            cancelled ? "cancelled" : cut ? "incomplete" : "completed"
        let details: JSONValue =
            cancelled
            ? ["type": "cancelled", "reason": interrupted ? "turn_detected" : "client_cancelled"]
            : cut ? ["type": "incomplete", "reason": "max_output_tokens"] : .null
        let usage: JSONValue =
            result.map { result in
                [
                    "total_tokens": .number(Double(result.inputTokens + result.tokensUsed)),
                    "input_tokens": .number(Double(result.inputTokens)),
                    "output_tokens": .number(Double(result.tokensUsed)),
                ]
            } ?? .null
        await emit(
            "response.done",
            [
                "response": [
                    "id": .string(id), "object": "realtime.response", "status": status, "status_details": details,
                    "output": .array(done), "output_modalities": modalities, "usage": usage,
                ]
            ])
        await session.answered(id)
    }

    /// The conversation as messages: spoken and written words, and each function call with its
    /// output (an answer's words and the calls after them are one assistant message).
    static func messages(_ items: [RealtimeSession.Item]) async -> [Message] {
        var messages: [Message] = []
        for entry in items {
            if let call = entry.call {
                if let last = messages.last, last.role == .assistant {
                    messages[messages.count - 1] = Message(role: .assistant, content: last.content, toolCalls: last.toolCalls + [call])
                } else {
                    messages.append(Message(role: .assistant, content: "", toolCalls: [call]))
                }
                continue
            }
            let text = await entry.words()
            if entry.role == .tool {
                messages.append(Message(role: .tool, content: text, toolCallId: entry.callID))
            } else if !text.isEmpty {
                messages.append(Message(role: entry.role, content: text))
            }
        }
        return messages
    }

    /// The response's output items as they are written: the message (opened at its first words)
    /// and each function call, in order.
    struct Output {
        let response: String
        let spoken: Bool
        let outOfBand: Bool
        var text = ""
        var messageItem: String?
        var messageAt: JSONValue?
        /// Whether the model made a function call.
        var called = false
        var items: [JSONValue] = []

        init(response: String, spoken: Bool, outOfBand: Bool) {
            self.response = response
            self.spoken = spoken
            self.outOfBand = outOfBand
        }

        /// A `conversation.item` event, unless the response stays out of the conversation.
        private func conversationEvent(_ type: String, _ fields: JSONValue, _ session: RealtimeSession) async {
            if !outOfBand { await session.emit(for: response, type, fields) }
        }

        /// Where the message's content goes, opening the message item first if it is not yet.
        mutating func message(_ session: RealtimeSession) async -> JSONValue {
            if let messageAt { return messageAt }
            let item = RealtimeSession.newID("item")
            let index = items.count
            let added = RealtimeAnswer.item(item, status: "in_progress", spoken: spoken, text: "")
            items.append(added)
            let previous = await session.opened(response, RealtimeSession.Item(id: item, role: .assistant, text: nil, isAudio: spoken))
            await session.emit(
                for: response,
                "response.output_item.added", ["response_id": .string(response), "output_index": .number(Double(index)), "item": added])
            await conversationEvent(
                "conversation.item.added", ["previous_item_id": previous.map(JSONValue.string) ?? .null, "item": added], session)
            let where_: JSONValue = [
                "response_id": .string(response), "item_id": .string(item), "output_index": .number(Double(index)), "content_index": 0,
            ]
            await session.emit(
                for: response,
                "response.content_part.added", RealtimeAnswer.merge(where_, ["part": RealtimeAnswer.part(spoken: spoken, text: "")]))
            messageItem = item
            messageAt = where_
            return where_
        }

        /// A function call the model made: its item, arguments and end, at once.
        mutating func call(_ call: ToolCall, _ session: RealtimeSession) async {
            let item = RealtimeSession.newID("item")
            let index = JSONValue.number(Double(items.count))
            let arguments = JSONValue.string(call.argumentsJSON)
            let fields: [(String, JSONValue)] = [
                ("id", .string(item)), ("object", "realtime.item"), ("type", "function_call"), ("name", .string(call.name)),
                ("call_id", .string(call.id)),
            ]
            let added = JSONValue.object(JSONObject(fields + [("status", "in_progress"), ("arguments", "")]))
            items.append(.object(JSONObject(fields + [("status", "completed"), ("arguments", arguments)])))
            called = true
            let previous = await session.opened(response, RealtimeSession.Item(id: item, role: .assistant, text: "", call: call))
            let where_: JSONValue = [
                "response_id": .string(response), "item_id": .string(item), "output_index": index, "call_id": .string(call.id),
            ]
            await session.emit(
                for: response, "response.output_item.added", ["response_id": .string(response), "output_index": index, "item": added])
            await conversationEvent(
                "conversation.item.added", ["previous_item_id": previous.map(JSONValue.string) ?? .null, "item": added], session)
            await session.emit(for: response, "response.function_call_arguments.delta", RealtimeAnswer.merge(where_, ["delta": arguments]))
            await session.emit(
                for: response,
                "response.function_call_arguments.done", RealtimeAnswer.merge(where_, ["name": .string(call.name), "arguments": arguments]))
            await session.emit(
                for: response, "response.output_item.done", ["response_id": .string(response), "output_index": index, "item": items.last!])
            await conversationEvent("conversation.item.done", ["item": items.last!], session)
        }

        /// Ends the message item, if there is one, with `status`; the output items as they end.
        mutating func finish(_ session: RealtimeSession, status: String) async -> [JSONValue] {
            guard let messageItem, let where_ = messageAt, let index = items.firstIndex(where: { $0["id"]?.stringValue == messageItem })
            else { return items }
            if spoken {
                await session.emit(for: response, "response.output_audio.done", where_)
                await session.emit(
                    for: response, "response.output_audio_transcript.done", RealtimeAnswer.merge(where_, ["transcript": .string(text)]))
            } else {
                await session.emit(for: response, "response.output_text.done", RealtimeAnswer.merge(where_, ["text": .string(text)]))
            }
            await session.emit(
                for: response,
                "response.content_part.done", RealtimeAnswer.merge(where_, ["part": RealtimeAnswer.part(spoken: spoken, text: text)]))
            let done = RealtimeAnswer.item(messageItem, status: status, spoken: spoken, text: text)
            items[index] = done
            await session.wrote(response, item: messageItem, text: text)
            await session.emit(
                for: response,
                "response.output_item.done", ["response_id": .string(response), "output_index": .number(Double(index)), "item": done])
            await conversationEvent("conversation.item.done", ["item": done], session)
            return items
        }
    }

    /// Speaks each sentence as it comes, in order, as 200 ms audio deltas in the output format.
    private func say(_ sentences: AsyncStream<(sentence: String, at: JSONValue)>) async {
        let runtime = session.runtime
        let (voiceModel, options) = voice(runtime)
        for await (sentence, where_) in sentences {
            do {
                let speech = try await runtime.synthesize(
                    sentence, voiceModel: voiceModel, options: options,
                    loadOptions: ModelLoadOptions(threads: session.threads))
                let format = settings.outputFormat
                let audio = format.encode(pcm16: speech.audioData)
                let chunk = format.sampleRate / 5 * format.bytesPerSample
                var offset = 0
                while offset < audio.count {
                    let end = min(offset + chunk, audio.count)
                    await emit(
                        "response.output_audio.delta", Self.merge(where_, ["delta": .string(audio[offset..<end].base64EncodedString())]))
                    offset = end
                }
                await session.spoke(
                    id, item: where_["item_id"]?.stringValue ?? "", sentence, samples: speech.audioData.count / 2, rate: format.sampleRate)
            } catch is CancellationError {
                return
            } catch {
                await session.emitError(for: id, RealtimeError("The voice could not speak '\(sentence)': \(error)", code: "server_error"))
            }
        }
    }

    /// The voice model and options the session's voice names: an installed voice by id, OpenAI's
    /// names for the default voice, or an engine voice of the default voice model.
    private func voice(_ runtime: RunAnywhereRuntime) -> (String, TTSOptions) {
        var options = TTSOptions(rate: Float(settings.speed), audioFormat: .pcm, sampleRate: settings.outputFormat.sampleRate)
        if (try? runtime.model(id: settings.voice, category: .speechSynthesis)) != nil { return (settings.voice, options) }
        if !RealtimeSessionSettings.openAIVoices.contains(settings.voice.lowercased()) { options.voice = settings.voice }
        return (SDKConstants.Models.defaultVoiceID, options)
    }

    private func fail(_ error: RealtimeError, output: [JSONValue] = []) async {
        await session.emitError(for: id, error)
        await emit(
            "response.done",
            [
                "response": [
                    "id": .string(id), "object": "realtime.response", "status": "failed",
                    "status_details": ["type": "failed", "error": ["type": .string(error.code), "message": .string(error.message)]],
                    "output": .array(output),
                ]
            ])
        await session.answered(id)
    }

    private func emit(_ type: String, _ fields: JSONValue) async { await session.emit(for: id, type, fields) }

    static func merge(_ base: JSONValue, _ more: JSONValue) -> JSONValue {
        .object(JSONObject(((base.objectValue?.members ?? []) + (more.objectValue?.members ?? [])).map { ($0.key, $0.value) }))
    }

    static func part(spoken: Bool, text: String) -> JSONValue {
        spoken ? ["type": "audio", "transcript": .string(text)] : ["type": "text", "text": .string(text)]
    }

    static func item(_ id: String, status: String, spoken: Bool, text: String) -> JSONValue {
        let content: JSONValue =
            text.isEmpty && status == "in_progress"
            ? [] : [spoken ? ["type": "output_audio", "transcript": .string(text)] : ["type": "output_text", "text": .string(text)]]
        return [
            "id": .string(id), "object": "realtime.item", "type": "message", "role": "assistant", "status": .string(status),
            "content": content,
        ]
    }
}
