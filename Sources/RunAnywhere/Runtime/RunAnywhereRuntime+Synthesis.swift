import Foundation

extension RunAnywhereRuntime {
    /// Most characters one `synthesize` call takes (about ten minutes of speech).
    public static let maxSynthesisCharacters = 10_000

    /// Whether a text-to-speech voice is loaded.
    public var isTTSVoiceLoaded: Bool { loadedTTS != nil }

    /// The loaded voice.
    public var currentTTSVoice: ModelInfo? { loadedTTS?.info }

    /// Loads a text-to-speech voice, replacing the loaded one.
    public func loadTTSModel(_ voiceId: String, options: ModelLoadOptions = ModelLoadOptions()) async throws {
        let model = try catalog.model(id: voiceId)
        guard model.category == .speechSynthesis else {
            throw SDKError(.modelIncompatible, "Model '\(voiceId)' is a \(model.category.rawValue) model, not a text-to-speech voice")
        }
        try await speechLock.withLock {
            if loadedTTS?.info.id == voiceId { return }
            let adapter = try adapter(for: model)
            loadedTTS = nil
            loadedTTS = (model, try await adapter.loadSpeechSynthesisModel(model, options: options, logger: logger))
            events.publish(.modelLoaded(modelId: voiceId))
        }
    }

    /// Unloads the voice.
    public func unloadTTSVoice() async {
        await speechLock.withLock {
            if let id = loadedTTS?.info.id { events.publish(.modelUnloaded(modelId: id)) }
            loadedTTS = nil
        }
    }

    /// Speaks `text` with the loaded voice. Long text is split into sentences and synthesized
    /// in order; the result is one piece of 16-bit mono audio (WAV when `options.audioFormat`
    /// is `.wav`).
    public func synthesize(_ text: String, options: TTSOptions = TTSOptions()) async throws -> TTSOutput {
        try options.validate()
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw SDKError(.emptyInput, "There is no text to speak") }
        guard trimmed.count <= Self.maxSynthesisCharacters else {
            throw SDKError(.invalidInput, "The text has \(trimmed.count) characters; one call speaks at most \(Self.maxSynthesisCharacters). Split it into parts")
        }
        return try await speechLock.withLock {
            guard let (_, service) = loadedTTS else {
                throw SDKError(.notInitialized, "No text-to-speech voice is loaded; call loadTTSModel(_:) first")
            }
            let started = ContinuousClock.now
            let cancellation = CancellationFlag()
            var samples: [Float] = []
            var rate = 0
            for chunk in SentenceSplitter.chunks(trimmed) {
                try Task.checkCancellation()
                let audio = try await withTaskCancellationHandler {
                    try await runBlocking(name: "speech synthesis") { try service.synthesize(chunk, options: options, cancellation: cancellation) }
                } onCancel: {
                    cancellation.cancel()
                }
                rate = audio.sampleRate
                samples += audio.samples
            }
            if options.volume != 1 { samples = samples.map { max(-1, min(1, $0 * options.volume)) } }
            var audio = AudioSamples(validated: samples, sampleRate: rate)
            if options.sampleRate > 0 { audio = audio.resampled(to: options.sampleRate) }
            let seconds = (ContinuousClock.now - started).inSeconds
            return TTSOutput(
                audioData: options.audioFormat == .wav ? audio.wavData : audio.pcm16Data, format: options.audioFormat,
                sampleRate: audio.sampleRate, duration: audio.duration,
                metadata: TTSSynthesisMetadata(
                    voice: options.voice ?? service.voiceName, language: service.language, processingTime: seconds,
                    characterCount: trimmed.count, charactersPerSecond: seconds > 0 ? Double(trimmed.count) / seconds : 0
                )
            )
        }
    }
}
