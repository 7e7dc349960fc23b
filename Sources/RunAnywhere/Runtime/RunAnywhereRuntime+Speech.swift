import Foundation

extension RunAnywhereRuntime {
    /// Whether a speech-to-text model is loaded.
    public var isSTTModelLoaded: Bool { loadedSTT != nil }

    /// The loaded speech-to-text model.
    public var currentSTTModel: ModelInfo? { loadedSTT?.info }

    /// Loads a speech-to-text model, replacing the loaded one.
    public func loadSTTModel(_ id: String, options: ModelLoadOptions = ModelLoadOptions()) async throws {
        let model = try catalog.model(id: id)
        guard model.category == .speechRecognition else {
            throw SDKError(.modelIncompatible, "Model '\(id)' is a \(model.category.rawValue) model, not speech recognition")
        }
        try await speechLock.withLock {
            if loadedSTT?.info.id == id { return }
            let adapter = try adapter(for: model, options: options).adapter
            loadedSTT = nil
            loadedSTT = (model, try await adapter.loadSpeechRecognitionModel(model, options: options, logger: logger))
            events.publish(.modelLoaded(modelId: id))
        }
    }

    /// Unloads the speech-to-text model.
    public func unloadSTTModel() async {
        await speechLock.withLock {
            if let id = loadedSTT?.info.id { events.publish(.modelUnloaded(modelId: id)) }
            loadedSTT = nil
        }
    }

    /// The text of 16 kHz mono 16-bit PCM audio.
    public func transcribe(_ audioData: Data) async throws -> String {
        try await transcribeWithOptions(audioData, options: STTOptions()).text
    }

    /// Transcribes `audioData`, encoded as `options.audioFormat` says (PCM at
    /// `options.sampleRate`, or a WAV file of any common rate and channel count).
    public func transcribeWithOptions(_ audioData: Data, options: STTOptions) async throws -> STTOutput {
        let audio = switch options.audioFormat {
        case .pcm: try AudioSamples(pcm16: audioData, sampleRate: options.sampleRate)
        case .wav: try WAVCodec.decode(audioData, name: "The audio")
        }
        return try await transcribe(audio, options: options)
    }

    /// Transcribes audio at any sample rate (resampled to 16 kHz).
    public func transcribe(_ audio: AudioSamples, options: STTOptions = STTOptions()) async throws -> STTOutput {
        guard !audio.samples.isEmpty else { throw SDKError(.emptyInput, "The audio is empty") }
        if options.enableDiarization {
            logger.notice("Speaker diarization is not available on Linux yet; transcribing without it")
        }
        return try await speechLock.withLock {
            guard let (model, service) = loadedSTT else {
                throw SDKError(.notInitialized, "No speech-to-text model is loaded; call loadSTTModel(_:) first")
            }
            let input = audio.resampled(to: 16_000)
            let started = ContinuousClock.now
            let cancellation = CancellationFlag()
            let (segments, language) = try await withTaskCancellationHandler {
                try await runBlocking { try service.transcribe(input, options: options, cancellation: cancellation) }
            } onCancel: {
                cancellation.cancel()
            }
            try Task.checkCancellation()
            let seconds = (ContinuousClock.now - started).inSeconds
            let text = segments.map(\.text).joined().trimmingCharacters(in: .whitespacesAndNewlines)
            let confidence = segments.isEmpty ? 0 : segments.map(\.confidence).reduce(0, +) / Float(segments.count)
            return STTOutput(
                text: text, confidence: confidence, segments: segments, detectedLanguage: language,
                metadata: TranscriptionMetadata(modelId: model.id, processingTime: seconds, audioLength: audio.duration,
                                                realTimeFactor: audio.duration > 0 ? seconds / audio.duration : 0)
            )
        }
    }

    /// The parts of `audio` that hold speech, found by the Silero voice activity detector
    /// (loaded on first use).
    public func detectSpeech(in audio: AudioSamples, options: VADOptions = VADOptions()) async throws -> [SpeechSegment] {
        guard !audio.samples.isEmpty else { throw SDKError(.emptyInput, "The audio is empty") }
        return try await speechLock.withLock {
            let vad: any VADService
            if let loadedVAD {
                vad = loadedVAD
            } else {
                let model = try catalog.model(id: SDKConstants.Models.voiceActivityModelID)
                vad = try await adapter(for: model).adapter.loadVoiceActivityModel(model, options: ModelLoadOptions(), logger: logger)
                loadedVAD = vad
            }
            let input = audio.resampled(to: 16_000)
            return try await runBlocking { try vad.detectSpeech(input, options: options) }
        }
    }
}
