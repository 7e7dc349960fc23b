import Foundation
import Logging

/// The input audio buffer: appended audio, server voice activity detection's turns, the early
/// transcription at a pause and the answer held until the turn ends there.
extension RealtimeSession {
    /// The rate of the input audio: the input format's.
    var rate: Int { settings.inputFormat.sampleRate }

    func append(_ audio: JSONValue?) throws {
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

    func clearInput() {
        inputStartMs += input.count * 1000 / rate
        input = []
        speechItem = nil
        early?.transcription.cancel()
        early = nil
        tracker = SpeechTracker(threshold: tracker.threshold)
    }

    /// The words of `audio`, by the session's transcription model.
    func transcription(of audio: AudioSamples) -> Task<String, any Error> {
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
    func commit(as id: String?, transcribed: Task<String, any Error>? = nil) throws {
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

    func heard(_ item: String, _ transcript: String, report: Bool) {
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
    func dropEarlyTurn() {
        early?.transcription.cancel()
        early = nil
        dropHeldAnswer()
    }

    /// Cancels the answer held ahead of its turn, if there is one, and forgets what it did.
    func dropHeldAnswer() {
        guard let answer = held else { return }
        answer.task.cancel()
        held = nil
        logger.debug("realtime: the answer held for \(answer.userItem) is dropped", metadata: ["response": "\(answer.id)"])
    }

    /// The turn of the user's speech `item` ended where the held answer started: it becomes the
    /// session's answer, what it did so far goes out, and the rest goes out as it comes.
    func releaseHeldAnswer(to item: String) {
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
}
