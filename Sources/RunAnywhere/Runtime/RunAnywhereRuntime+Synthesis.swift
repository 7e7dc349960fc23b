import Foundation
import Synchronization

extension RunAnywhereRuntime {
    /// Most characters one `synthesize` call takes (about ten minutes of speech).
    package static let maxSynthesisCharacters = 10_000

    /// Whether a text-to-speech voice is loaded.
    package var isTTSVoiceLoaded: Bool { current[.speechSynthesis].map { cache[$0.info.id]?.engine != nil } ?? false }

    /// The loaded voice.
    package var currentTTSVoice: ModelInfo? { current[.speechSynthesis]?.info }

    /// Loads a text-to-speech voice into the model cache (budget, keep-alive and lifecycle as
    /// every model) and makes it the current one, unloading the previous one first.
    package func loadTTSModel(_ voiceId: String, options: ModelLoadOptions = ModelLoadOptions()) async throws {
        let model = try self.model(id: voiceId, category: .speechSynthesis)
        await dropCurrent(.speechSynthesis, keeping: model.id)
        release(try await acquire(model, as: .speechSynthesis, options: options, keepAlive: .forever))
        current[.speechSynthesis] = CurrentModel(info: model, options: options)
    }

    /// Unloads the current voice, after a synthesis in progress ends.
    package func unloadTTSVoice() async {
        await dropCurrent(.speechSynthesis)
    }

    /// Speaks `text` with the loaded voice. Long text is split into sentences and synthesized
    /// in order; the result is one piece of 16-bit mono audio (WAV when `options.audioFormat`
    /// is `.wav`).
    package func synthesize(_ text: String, options: TTSOptions = TTSOptions()) async throws -> TTSOutput {
        guard let current = current[.speechSynthesis] else {
            throw SDKError(.notInitialized, "No text-to-speech voice is loaded; call loadTTSModel(_:) first")
        }
        return try await synthesize(text, voiceModel: current.info.id, options: options, loadOptions: current.options)
    }

    /// Speaks `text` with the voice model `voiceId`, loading it into the model cache first if
    /// needed; the voice is lent to the synthesis until it ends.
    public func synthesize(
        _ text: String, voiceModel voiceId: String, options: TTSOptions = TTSOptions(), loadOptions: ModelLoadOptions = ModelLoadOptions()
    ) async throws -> TTSOutput {
        let model = try self.model(id: voiceId, category: .speechSynthesis)
        let text = try checkedText(text, options: options)
        return try await againIfItsWorkerDied(model) { try await speak(text, model: model, options: options, loadOptions: loadOptions) }
    }

    /// Speaks `text` with the voice model `voiceId` as ``synthesize(_:voiceModel:options:loadOptions:)``
    /// does, streaming the audio in pieces as they are made (their volume and sample rate applied):
    /// the first sentence alone, so that playback can start soon, then runs of sentences, each up
    /// to twice as long as the one before. An unknown voice, bad options or text that cannot be
    /// spoken throw here; what fails later ends the stream with the error. Cancelling the
    /// iterating task, or dropping the stream, stops the engine.
    public func synthesizeStream(
        _ text: String, voiceModel voiceId: String, options: TTSOptions = TTSOptions(), loadOptions: ModelLoadOptions = ModelLoadOptions()
    ) throws -> AsyncThrowingStream<AudioSamples, any Error> {
        let model = try self.model(id: voiceId, category: .speechSynthesis)
        let text = try checkedText(text, options: options)
        let spoke = Mutex(false)
        return .fed { continuation in
            let sentence: @Sendable (AudioSamples) -> Void = { audio in
                spoke.withLock { $0 = true }
                continuation.yield(audio)
            }
            // Asking a new engine process repeats nothing only while nothing was spoken.
            _ = try await self.againIfItsWorkerDied(model, repeatable: { !spoke.withLock { $0 } }) {
                try await self.speak(text, model: model, options: options, loadOptions: loadOptions, onSentence: sentence)
            }
        }
    }

    /// The text to speak, trimmed, after checking it and the options.
    private func checkedText(_ text: String, options: TTSOptions) throws -> String {
        try options.validate()
        return try Self.speakableText(text)
    }

    /// `text` trimmed, or the error that says why it cannot be spoken in one call (nothing to
    /// speak, or too long): a server checks its request's text with it before it loads a voice.
    package static func speakableText(_ text: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw SDKError(.emptyInput, "There is no text to speak").naming("text") }
        guard trimmed.count <= Self.maxSynthesisCharacters else {
            throw SDKError(
                .invalidInput,
                "The text has \(trimmed.count) characters; one call speaks at most \(Self.maxSynthesisCharacters). Split it into parts"
            ).naming("text")
        }
        return trimmed
    }

    /// Leases the voice `model` and speaks in its turn: one synthesis at a time per voice, as an
    /// engine's voice is not shared between threads.
    private func speak(
        _ text: String, model: ModelInfo, options: TTSOptions, loadOptions: ModelLoadOptions,
        onSentence: (@Sendable (AudioSamples) -> Void)? = nil
    ) async throws -> TTSOutput {
        let lease = try await acquire(model, as: .speechSynthesis, options: loadOptions, keepAlive: nil, taking: \.speechSynthesis)
        defer { release(lease) }
        let service = lease.engine
        return try await inTurn(on: model.id) { try await speak(text, options: options, service: service, onSentence: onSentence) }
    }

    /// Synthesizes `text` in chunks of sentences, growing from one sentence when `onSentence`
    /// takes each chunk's audio, finished as the whole is (volume, then sample rate); the caller
    /// holds the voice's lease and its turn. Streamed, the audio has gone out in pieces, and the
    /// output carries none: its metadata and duration only.
    private func speak(
        _ text: String, options: TTSOptions, service: any TTSService, onSentence: (@Sendable (AudioSamples) -> Void)?
    ) async throws -> TTSOutput {
        let started = ContinuousClock.now
        let cancellation = CancellationFlag()
        var samples: [Float] = []
        var streamed: TimeInterval = 0
        var rate = 0
        for chunk in SentenceSplitter.chunks(text, growing: onSentence != nil) {
            try Task.checkCancellation()
            let audio = try await withTaskCancellationHandler {
                try await runBlocking { try service.synthesize(chunk, options: options, cancellation: cancellation) }
            } onCancel: {
                cancellation.cancel()
            }
            rate = audio.sampleRate
            if let onSentence {
                let piece = Self.finished(audio.samples, rate: rate, options: options)
                streamed += piece.duration
                onSentence(piece)
            } else {
                samples += audio.samples
            }
        }
        let audio = Self.finished(samples, rate: rate, options: options)
        let seconds = (ContinuousClock.now - started).inSeconds
        let output = TTSOutput(
            audioData: options.audioFormat == .wav ? audio.wavData : audio.pcm16Data, format: options.audioFormat,
            sampleRate: options.sampleRate > 0 ? options.sampleRate : rate, duration: onSentence == nil ? audio.duration : streamed,
            metadata: TTSSynthesisMetadata(
                voice: options.voice ?? service.voiceName, language: service.language, processingTime: seconds,
                characterCount: text.count, charactersPerSecond: seconds > 0 ? Double(text.count) / seconds : 0
            )
        )
        events.publish(.synthesisCompleted(output.metadata, audioDuration: output.duration))
        return output
    }

    /// A voice's samples at `rate` with `options`' volume and sample rate applied.
    private static func finished(_ samples: [Float], rate: Int, options: TTSOptions) -> AudioSamples {
        let louder = options.volume == 1 ? samples : samples.map { max(-1, min(1, $0 * options.volume)) }
        let audio = AudioSamples(validated: louder, sampleRate: rate)
        return options.sampleRate > 0 ? audio.resampled(to: options.sampleRate) : audio
    }
}
