import Foundation
import Synchronization

extension RunAnywhereRuntime {
    /// Whether a speech-to-text model is loaded.
    package var isSTTModelLoaded: Bool { current[.speechRecognition].map { cache[$0.info.id]?.engine != nil } ?? false }

    /// The loaded speech-to-text model.
    package var currentSTTModel: ModelInfo? { current[.speechRecognition]?.info }

    /// Loads a speech-to-text model into the model cache, with the memory budget and
    /// lifecycle every model has, and makes it the current one (kept until it is replaced or
    /// unloaded); the previous current one is unloaded first. A new file is first checked in a
    /// child process when `RuntimeConfiguration.modelProbe` is set.
    package func loadSTTModel(_ id: String, options: ModelLoadOptions = ModelLoadOptions()) async throws {
        let model = try self.model(id: id, category: .speechRecognition)
        await dropCurrent(.speechRecognition, keeping: model.id)
        release(try await acquire(model, as: .speechRecognition, options: options, keepAlive: .forever))
        current[.speechRecognition] = CurrentModel(info: model, options: options)
    }

    /// Unloads the current speech-to-text model, after a transcription in progress ends.
    package func unloadSTTModel() async {
        await dropCurrent(.speechRecognition)
    }

    /// The text of 16 kHz mono 16-bit PCM audio.
    package func transcribe(_ audioData: Data) async throws -> String {
        try await transcribeWithOptions(audioData, options: STTOptions()).text
    }

    /// Transcribes `audioData`, encoded as `options.audioFormat` says: PCM at
    /// `options.sampleRate`, or an audio file (``AudioFormat/wav``: WAV of any common rate and
    /// channel count, or any format the registered ``AudioFileDecoder`` reads).
    package func transcribeWithOptions(_ audioData: Data, options: STTOptions) async throws -> STTOutput {
        let audio =
            switch options.audioFormat {
            case .pcm: try AudioSamples(pcm16: audioData, sampleRate: options.sampleRate)
            case .wav: try await decodeAudio(audioData, name: "The audio")
            }
        return try await transcribe(audio, options: options)
    }

    /// Reads the audio file held in `data` on an engine thread, as 16 kHz mono samples (the rate
    /// the speech models take): WAV, and every format the registered ``AudioFileDecoder`` reads.
    /// `name` names the file in errors; audio longer than `maxDuration` seconds is refused.
    public nonisolated func decodeAudio(_ data: Data, name: String, maxDuration: TimeInterval? = nil) async throws -> AudioSamples {
        let decoder = frameworks.audioDecoder
        return try await runBlocking {
            try AudioSamples(fileData: data, name: name, decoder: decoder, sampleRate: 16_000, maxDuration: maxDuration)
        }
    }

    /// Reads the audio file at `url` (see ``decodeAudio(_:name:maxDuration:)``).
    public nonisolated func decodeAudio(contentsOf url: URL) async throws -> AudioSamples {
        let decoder = frameworks.audioDecoder
        return try await runBlocking {
            try AudioSamples(
                fileData: try fileContents(of: url, mapped: false), name: url.lastPathComponent, decoder: decoder, sampleRate: 16_000)
        }
    }

    /// Transcribes audio at any sample rate (resampled to 16 kHz) with the loaded model.
    package func transcribe(_ audio: AudioSamples, options: STTOptions = STTOptions()) async throws -> STTOutput {
        guard let current = current[.speechRecognition] else {
            throw SDKError(.notInitialized, "No speech-to-text model is loaded; call loadSTTModel(_:) first")
        }
        return try await transcribe(audio, model: current.info.id, options: options, loadOptions: current.options)
    }

    /// Transcribes audio with the speech-to-text model `modelId`, loading it into the model cache
    /// first if needed; the model is lent to the transcription until it ends.
    public func transcribe(
        _ audio: AudioSamples, model modelId: String, options: STTOptions = STTOptions(),
        loadOptions: ModelLoadOptions = ModelLoadOptions()
    ) async throws -> STTOutput {
        let model = try self.model(id: modelId, category: .speechRecognition)
        try checkSpeech(audio, options: options)
        return try await againIfItsWorkerDied(model) {
            try await transcribe(audio, model: model, options: options, loadOptions: loadOptions) { _ in }
        }
    }

    /// Transcribes audio with the speech-to-text model `modelId` (loading it into the model cache
    /// first if needed) and streams each segment as the engine hears it, then the whole
    /// transcription. An unknown model or empty audio throws here; what fails later ends the
    /// stream with the error. Cancelling the iterating task, or dropping the stream, stops the
    /// engine.
    public func transcribeStream(
        _ audio: AudioSamples, model modelId: String, options: STTOptions = STTOptions(),
        loadOptions: ModelLoadOptions = ModelLoadOptions()
    ) throws -> AsyncThrowingStream<TranscriptionEvent, any Error> {
        let model = try self.model(id: modelId, category: .speechRecognition)
        try checkSpeech(audio, options: options)
        let heard = Mutex(false)
        return .fed { continuation in
            let hear: @Sendable (TranscriptionSegment) -> Void = { segment in
                heard.withLock { $0 = true }
                continuation.yield(.segment(segment))
            }
            // Asking a new engine process repeats nothing only while nothing was heard.
            let output = try await self.againIfItsWorkerDied(model, repeatable: { !heard.withLock { $0 } }) {
                try await self.transcribe(audio, model: model, options: options, loadOptions: loadOptions, onSegment: hear)
            }
            continuation.yield(.completed(output))
        }
    }

    /// Leases `model` and transcribes in its turn: one transcription at a time per model, as an
    /// engine's model is not shared between threads.
    private func transcribe(
        _ audio: AudioSamples, model: ModelInfo, options: STTOptions, loadOptions: ModelLoadOptions,
        onSegment: @escaping @Sendable (TranscriptionSegment) -> Void
    ) async throws -> STTOutput {
        let lease = try await acquire(model, as: .speechRecognition, options: loadOptions, keepAlive: nil, taking: \.speechRecognition)
        defer { release(lease) }
        let service = lease.engine
        return try await inTurn(on: model.id) {
            try await transcribe(audio, model: model, service: service, options: options, onSegment: onSegment)
        }
    }

    private func checkSpeech(_ audio: AudioSamples, options: STTOptions) throws {
        guard !audio.samples.isEmpty else { throw SDKError(.emptyInput, "The audio is empty") }
        try ModelLoadOptions.checkThreads(options.threads)
        if options.enableDiarization {
            logger.notice("Speaker diarization is not available on Linux yet; transcribing without it")
        }
    }

    /// Runs one transcription on an engine thread and publishes it; the caller holds the model's
    /// lease and its turn.
    private func transcribe(
        _ audio: AudioSamples, model: ModelInfo, service: any STTService, options: STTOptions,
        onSegment: @escaping @Sendable (TranscriptionSegment) -> Void
    ) async throws -> STTOutput {
        let input = audio.resampled(to: 16_000)
        let started = ContinuousClock.now
        let cancellation = CancellationFlag()
        let (segments, language) = try await withTaskCancellationHandler {
            try await runBlocking { try service.transcribe(input, options: options, cancellation: cancellation, onSegment: onSegment) }
        } onCancel: {
            cancellation.cancel()
        }
        try Task.checkCancellation()
        let seconds = (ContinuousClock.now - started).inSeconds
        let text = segments.map(\.text).joined().trimmingCharacters(in: .whitespacesAndNewlines)
        let confidence = segments.isEmpty ? 0 : segments.map(\.confidence).reduce(0, +) / Float(segments.count)
        let output = STTOutput(
            text: text, confidence: confidence, segments: segments, detectedLanguage: language,
            metadata: TranscriptionMetadata(
                modelId: model.id, processingTime: seconds, audioLength: audio.duration,
                realTimeFactor: audio.duration > 0 ? seconds / audio.duration : 0)
        )
        events.publish(.transcriptionCompleted(output.metadata))
        return output
    }

    /// The parts of `audio` that hold speech, found by the Silero voice activity detector
    /// (loaded into the model cache on first use).
    public func detectSpeech(in audio: AudioSamples, options: VADOptions = VADOptions()) async throws -> [SpeechSegment] {
        try await withVoiceActivity(audio) { vad, input in try vad.detectSpeech(input, options: options) }
    }

    /// The speech probability of each 32 ms window (``VADWindow``) of `audio`, by
    /// the Silero voice activity detector, from a fresh state: what a caller following a stream
    /// reads its new windows with. A detector that gives only segments scores their windows 1
    /// and the others 0.
    package func speechProbabilities(in audio: AudioSamples) async throws -> [Float] {
        try await withVoiceActivity(audio) { vad, input in try vad.windowProbabilities(input) }
    }

    /// `body`'s answer with the voice activity detector (loaded into the model cache on first
    /// use, asked again of a new worker if its worker died) and `audio` at its 16 kHz, in the
    /// model's turn, off the cooperative threads.
    private func withVoiceActivity<T: Sendable>(
        _ audio: AudioSamples, _ body: @escaping @Sendable (any VADService, AudioSamples) throws -> T
    ) async throws -> T {
        guard !audio.samples.isEmpty else { throw SDKError(.emptyInput, "The audio is empty") }
        let model = try catalog.model(id: SDKConstants.Models.voiceActivityModelID)
        let input = audio.resampled(to: 16_000)
        return try await againIfItsWorkerDied(model) {
            let lease = try await acquire(model, as: .voiceActivity, options: ModelLoadOptions(), keepAlive: nil, taking: \.voiceActivity)
            defer { release(lease) }
            let vad = lease.engine
            return try await inTurn(on: model.id) { try await runBlocking { try body(vad, input) } }
        }
    }
}
