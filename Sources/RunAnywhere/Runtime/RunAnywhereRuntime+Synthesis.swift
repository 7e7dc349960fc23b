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
        let model = try self.model(id: voiceId, category: .speechSynthesis)
        try await ttsLock.withLock { try await loadVoice(model, options: options) }
    }

    /// Loads `model` unless it is the loaded voice; the caller holds ``ttsLock``.
    private func loadVoice(_ model: ModelInfo, options: ModelLoadOptions) async throws {
        if loadedTTS?.info.id == model.id { return }
        let adapter = try adapter(for: model, options: options).adapter
        try await checkInChildProcess(model.primaryFile, of: model, framework: adapter.framework)
        loadedTTS = nil
        loadedTTS = (model, try await adapter.loadSpeechSynthesisModel(model, options: options, logger: logger))
        events.publish(.modelLoaded(modelId: model.id))
    }

    /// Unloads the voice.
    public func unloadTTSVoice() async {
        await ttsLock.withLock {
            if let id = loadedTTS?.info.id { events.publish(.modelUnloaded(modelId: id)) }
            loadedTTS = nil
        }
    }

    /// Speaks `text` with the loaded voice. Long text is split into sentences and synthesized
    /// in order; the result is one piece of 16-bit mono audio (WAV when `options.audioFormat`
    /// is `.wav`).
    public func synthesize(_ text: String, options: TTSOptions = TTSOptions()) async throws -> TTSOutput {
        let text = try checkedText(text, options: options)
        return try await ttsLock.withLock {
            guard let (_, service) = loadedTTS else {
                throw SDKError(.notInitialized, "No text-to-speech voice is loaded; call loadTTSModel(_:) first")
            }
            return try await speak(text, options: options, service: service)
        }
    }

    /// Speaks `text` with the voice model `voiceId`, loading it first if it is not the loaded
    /// voice, in one step: another caller asking for another voice waits instead of swapping the
    /// voice out mid-sentence.
    public func synthesize(_ text: String, voiceModel voiceId: String, options: TTSOptions = TTSOptions()) async throws -> TTSOutput {
        let model = try self.model(id: voiceId, category: .speechSynthesis)
        let text = try checkedText(text, options: options)
        return try await ttsLock.withLock {
            try await loadVoice(model, options: ModelLoadOptions())
            guard let (_, service) = loadedTTS else { throw SDKError(.notInitialized, "The voice '\(voiceId)' did not load") }
            return try await speak(text, options: options, service: service)
        }
    }

    /// The text to speak, trimmed, after checking it and the options.
    private func checkedText(_ text: String, options: TTSOptions) throws -> String {
        try options.validate()
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw SDKError(.emptyInput, "There is no text to speak") }
        guard trimmed.count <= Self.maxSynthesisCharacters else {
            throw SDKError(.invalidInput, "The text has \(trimmed.count) characters; one call speaks at most \(Self.maxSynthesisCharacters). Split it into parts")
        }
        return trimmed
    }

    /// Synthesizes `text` sentence by sentence; the caller holds ``ttsLock``.
    private func speak(_ text: String, options: TTSOptions, service: any TTSService) async throws -> TTSOutput {
        let started = ContinuousClock.now
        let cancellation = CancellationFlag()
        var samples: [Float] = []
        var rate = 0
        for chunk in SentenceSplitter.chunks(text) {
            try Task.checkCancellation()
            let audio = try await withTaskCancellationHandler {
                try await runBlocking { try service.synthesize(chunk, options: options, cancellation: cancellation) }
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
        let output = TTSOutput(
            audioData: options.audioFormat == .wav ? audio.wavData : audio.pcm16Data, format: options.audioFormat,
            sampleRate: audio.sampleRate, duration: audio.duration,
            metadata: TTSSynthesisMetadata(
                voice: options.voice ?? service.voiceName, language: service.language, processingTime: seconds,
                characterCount: text.count, charactersPerSecond: seconds > 0 ? Double(text.count) / seconds : 0
            )
        )
        events.publish(.synthesisCompleted(output.metadata, audioDuration: output.duration))
        return output
    }
}
