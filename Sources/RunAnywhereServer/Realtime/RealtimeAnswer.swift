import Foundation
import RunAnywhere

/// One realtime response: the language model answers the conversation, its text goes out as
/// deltas as it is written and, when the session speaks, each sentence is spoken as soon as it
/// is complete, while the model writes the next (`response.output_audio.delta`, PCM16 at 24 kHz).
/// Cancelling its task (`response.cancel`, or speech while it plays) stops the generation and
/// the voice; the part already written stays in the conversation, cut short.
struct RealtimeAnswer: Sendable {
    let id: String
    let session: RealtimeSession
    let settings: RealtimeSessionSettings
    let items: [RealtimeSession.Item]

    func run() async {
        let item = RealtimeSession.newID("item")
        let modalities: JSONValue = settings.spoken ? ["audio"] : ["text"]
        await emit(
            "response.created",
            [
                "response": [
                    "id": .string(id), "object": "realtime.response", "status": "in_progress", "output": [],
                    "output_modalities": modalities,
                ]
            ])
        var messages: [Message] = []
        for entry in items {
            let text = await entry.text.value
            if !text.isEmpty { messages.append(Message(role: entry.role, content: text)) }
        }
        guard let last = items.last, last.role == .user, let question = messages.popLast(), question.role == .user,
            await last.text.value == question.content
        else {
            let error = RealtimeError(
                "The conversation does not end with a user message to answer (or nothing was heard in the last one)",
                code: "invalid_request_error")
            return await fail(error, item: nil)
        }
        await emit(
            "response.output_item.added",
            [
                "response_id": .string(id), "output_index": 0,
                "item": Self.item(item, status: "in_progress", spoken: settings.spoken, text: ""),
            ])
        await emit(
            "conversation.item.added",
            [
                "previous_item_id": items.last.map { .string($0.id) } ?? .null,
                "item": Self.item(item, status: "in_progress", spoken: settings.spoken, text: ""),
            ])
        let where_: JSONValue = ["response_id": .string(id), "item_id": .string(item), "output_index": 0, "content_index": 0]
        await emit("response.content_part.added", Self.merge(where_, ["part": Self.part(spoken: settings.spoken, text: "")]))

        let (sentences, speak) = AsyncStream.makeStream(of: String.self)
        var text = ""
        var result: LLMGenerationResult?
        var failure: (any Error)?
        await withTaskGroup(of: Void.self) { group in
            if settings.spoken { group.addTask { await say(sentences, at: where_) } }
            do {
                let threads = session.configuration.threads
                let generation = try await session.runtime.generateEvents(
                    question.content, context: Context(systemPrompt: settings.instructions, messages: messages),
                    options: LLMGenerationOptions(maxTokens: settings.maxOutputTokens ?? 1024, temperature: 0.8, threads: threads),
                    model: settings.model, loadOptions: ModelLoadOptions(threads: threads))
                var pending = ""
                for try await event in generation {
                    switch event {
                    case .text(let piece):
                        text += piece
                        await emit(
                            settings.spoken ? "response.output_audio_transcript.delta" : "response.output_text.delta",
                            Self.merge(where_, ["delta": .string(piece)]))
                        guard settings.spoken else { continue }
                        pending += piece
                        if let end = Self.sentenceEnd(in: pending) {
                            speak.yield(String(pending[..<end]))
                            pending = String(pending[end...])
                        }
                    case .completed(let completed): result = completed
                    case .reasoning, .toolCall: break
                    }
                }
                if !pending.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { speak.yield(pending) }
            } catch {
                failure = error
            }
            speak.finish()
        }
        let cancelled = Task.isCancelled || failure is CancellationError
        if let failure, !cancelled {
            return await fail(RealtimeError("The answer failed: \(failure)", code: "server_error"), item: item)
        }
        let status = cancelled ? "incomplete" : "completed"
        if settings.spoken {
            await emit("response.output_audio.done", where_)
            await emit("response.output_audio_transcript.done", Self.merge(where_, ["transcript": .string(text)]))
        } else {
            await emit("response.output_text.done", Self.merge(where_, ["text": .string(text)]))
        }
        await emit("response.content_part.done", Self.merge(where_, ["part": Self.part(spoken: settings.spoken, text: text)]))
        let done = Self.item(item, status: status, spoken: settings.spoken, text: text)
        await emit("response.output_item.done", ["response_id": .string(id), "output_index": 0, "item": done])
        await emit("conversation.item.done", ["item": done])
        let interrupted = await session.interruptedBySpeech
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
                    "id": .string(id), "object": "realtime.response", "status": cancelled ? "cancelled" : "completed",
                    "status_details": cancelled
                        ? ["type": "cancelled", "reason": interrupted ? "turn_detected" : "client_cancelled"] : .null,
                    "output": [done], "output_modalities": modalities, "usage": usage,
                ]
            ])
        await session.answered(id, item: item, text: text, spoken: settings.spoken)
    }

    /// Speaks each sentence as it comes, in order, as 200 ms audio deltas.
    private func say(_ sentences: AsyncStream<String>, at where_: JSONValue) async {
        let runtime = session.runtime
        let (voiceModel, options) = voice(runtime)
        for await sentence in sentences {
            do {
                let speech = try await runtime.synthesize(
                    sentence, voiceModel: voiceModel, options: options,
                    loadOptions: ModelLoadOptions(threads: session.configuration.threads))
                let chunk = RealtimeSessionSettings.sampleRate / 5 * 2
                var offset = 0
                while offset < speech.audioData.count {
                    let end = min(offset + chunk, speech.audioData.count)
                    await emit(
                        "response.output_audio.delta",
                        Self.merge(where_, ["delta": .string(speech.audioData[offset..<end].base64EncodedString())]))
                    offset = end
                }
                await session.spoke(id, sentence, ms: speech.audioData.count / 2 * 1000 / RealtimeSessionSettings.sampleRate)
            } catch is CancellationError {
                return
            } catch {
                await session.emitError(RealtimeError("The voice could not speak '\(sentence)': \(error)", code: "server_error"))
            }
        }
    }

    /// The voice model and options the session's voice names: an installed voice by id, OpenAI's
    /// names for the default voice, or an engine voice of the default voice model.
    private func voice(_ runtime: RunAnywhereRuntime) -> (String, TTSOptions) {
        var options = TTSOptions(rate: Float(settings.speed), audioFormat: .pcm, sampleRate: RealtimeSessionSettings.sampleRate)
        if (try? runtime.model(id: settings.voice, category: .speechSynthesis)) != nil { return (settings.voice, options) }
        if !SpeechRoutes.openAIVoices.contains(settings.voice.lowercased()) { options.voice = settings.voice }
        return (SDKConstants.Models.defaultVoiceID, options)
    }

    private func fail(_ error: RealtimeError, item: String?) async {
        await session.emitError(error)
        await emit(
            "response.done",
            [
                "response": [
                    "id": .string(id), "object": "realtime.response", "status": "failed",
                    "status_details": ["type": "failed", "error": ["type": .string(error.code), "message": .string(error.message)]],
                    "output": [],
                ]
            ])
        await session.answered(id, item: nil, text: "", spoken: false)
    }

    private func emit(_ type: String, _ fields: JSONValue) async { await session.emit(type, fields) }

    /// Where the last complete sentence of `text` ends (after its `.`, `!`, `?` or line break
    /// and the space that follows), if one has; in a long text without one, after its last
    /// comma or space, so that a list is spoken while it is written.
    static func sentenceEnd(in text: String) -> String.Index? {
        var (end, pause): (String.Index?, String.Index?) = (nil, nil)
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            let spaced = next < text.endIndex && text[next].isWhitespace
            if text[index] == "\n" || ".!?".contains(text[index]) && spaced { end = next }
            if ",;:".contains(text[index]) && spaced { pause = next }
            index = next
        }
        return end ?? (text.count >= 120 ? pause ?? text.lastIndex(where: \.isWhitespace) : nil)
    }

    static func merge(_ base: JSONValue, _ more: JSONValue) -> JSONValue {
        .object(JSONObject(((base.objectValue?.members ?? []) + (more.objectValue?.members ?? [])).map { ($0.key, $0.value) }))
    }

    private static func part(spoken: Bool, text: String) -> JSONValue {
        spoken ? ["type": "audio", "transcript": .string(text)] : ["type": "text", "text": .string(text)]
    }

    private static func item(_ id: String, status: String, spoken: Bool, text: String) -> JSONValue {
        let content: JSONValue =
            text.isEmpty && status == "in_progress"
            ? [] : [spoken ? ["type": "output_audio", "transcript": .string(text)] : ["type": "output_text", "text": .string(text)]]
        return [
            "id": .string(id), "object": "realtime.item", "type": "message", "role": "assistant", "status": .string(status),
            "content": content,
        ]
    }
}
