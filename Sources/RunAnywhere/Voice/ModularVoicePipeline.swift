import Foundation

extension RunAnywhereRuntime {
    /// Creates a voice pipeline: loads its speech recognition model, language model and voice.
    /// Speaker diarization has no engine on Linux; when it is asked for, this logs the fallback
    /// and returns the standard pipeline.
    package func createVoicePipeline(config: ModularPipelineConfig) async throws -> ModularVoicePipeline {
        if config.enableSpeakerDiarization {
            logger.warning("Speaker diarization is unavailable on Linux; falling back to the standard voice pipeline")
        }
        let options = ModelLoadOptions(threads: config.threads)
        try await loadSTTModel(config.sttModelId, options: options)
        try await loadModel(config.llmModelId, options: options)
        try await loadTTSModel(config.ttsVoiceId, options: options)
        logger.info(
            "Created the standard voice pipeline",
            metadata: ["stt": "\(config.sttModelId)", "llm": "\(config.llmModelId)", "tts": "\(config.ttsVoiceId)"])
        return ModularVoicePipeline(runtime: self, config: config)
    }
}

/// Voice turns: audio → voice activity detection → speech-to-text → language model →
/// text-to-speech, reporting each stage as it finishes; the voice speaks the answer while the
/// model writes it, sentence by sentence. The conversation is kept between turns.
/// Each stage names its model (the config's), so pipelines of several users share the runtime:
/// a model not loaded yet is loaded on first use.
public actor ModularVoicePipeline {
    /// The runtime whose models the pipeline uses.
    public nonisolated let runtime: RunAnywhereRuntime
    /// The models and options the pipeline runs with.
    public nonisolated let config: ModularPipelineConfig
    private var history: [Message] = []

    /// A pipeline that loads its models when a turn first needs them (``RunAnywhere/createVoicePipeline(config:)``
    /// loads them first).
    public init(runtime: RunAnywhereRuntime, config: ModularPipelineConfig) {
        self.runtime = runtime
        self.config = config
    }

    /// Runs one turn on `audio` (any sample rate). Cancelling the consuming task stops it.
    public func processTurn(_ audio: AudioSamples) -> AsyncThrowingStream<VoicePipelineEvent, any Error> {
        .fed { continuation in try await self.run(audio) { continuation.yield($0) } }
    }

    private func run(_ input: AudioSamples, emit: @escaping @Sendable (VoicePipelineEvent) -> Void) async throws {
        let start = ContinuousClock.now
        let audio = input.resampled(to: 16_000)  // once, for both voice detection and transcription
        if config.enableSpeakerDiarization { emit(.diarizationUnavailable) }
        var heard = audio
        var segments: [SpeechSegment] = []
        var vadMs: Double?
        if config.useVAD {
            let vadStart = ContinuousClock.now
            segments = try await runtime.detectSpeech(in: audio)
            vadMs = (ContinuousClock.now - vadStart).inSeconds * 1000
            guard let first = segments.first, let last = segments.last else {
                emit(.noSpeech)
                emit(
                    .completed(
                        VoiceTurn(
                            speechSegments: [], transcript: "", response: "", audio: nil,
                            timings: VoiceTurnTimings(
                                vadMs: vadMs, sttMs: 0, llmMs: 0, timeToFirstTokenMs: nil, ttsMs: 0, timeToFirstAudioMs: nil,
                                totalMs: (ContinuousClock.now - start).inSeconds * 1000))))
                return
            }
            emit(.speechDetected(segments))
            let from = max(0, Int(first.start * Double(audio.sampleRate)))
            let to = min(audio.samples.count, Int(last.end * Double(audio.sampleRate)))
            if to > from { heard = AudioSamples(validated: Array(audio.samples[from..<to]), sampleRate: audio.sampleRate) }
        }
        let sttStart = ContinuousClock.now
        let transcription = try await runtime.transcribe(
            heard, model: config.sttModelId, options: STTOptions(threads: config.threads),
            loadOptions: ModelLoadOptions(threads: config.threads))
        let sttMs = (ContinuousClock.now - sttStart).inSeconds * 1000
        emit(.transcribed(transcription))
        guard !transcription.text.isEmpty else {
            emit(.noSpeech)
            return
        }
        let llmStart = ContinuousClock.now
        var options = config.generationOptions
        options.threads = options.threads ?? config.threads
        let generation = try await runtime.generateEvents(
            transcription.text, context: Context(systemPrompt: config.systemPrompt, messages: history), options: options,
            model: config.llmModelId, loadOptions: ModelLoadOptions(threads: config.threads)
        )
        // The voice speaks each sentence while the model writes the next.
        let (sentences, speak) = AsyncStream.makeStream(of: String.self)
        let (completed, llmMs, spoken) = try await withThrowingTaskGroup(of: SpokenAnswer.self) { group in
            group.addTask { [runtime, config] in try await Self.speak(sentences, runtime: runtime, config: config, emit: emit) }
            var completed: LLMGenerationResult?
            var pending = ""
            var spokeAny = false
            defer { speak.finish() }
            for try await event in generation {
                switch event {
                case .text(let piece):  // the answer only: reasoning is not spoken
                    emit(.responseText(piece))
                    pending += piece
                    if let end = SpokenSentences.end(in: pending, first: !spokeAny) {
                        speak.yield(String(pending[..<end]))
                        pending = String(pending[end...])
                        spokeAny = true
                    }
                case .completed(let result): completed = result
                case .reasoning, .toolCall, .logprobs, .promptLogprobs: break
                }
            }
            guard let result = completed else { throw CancellationError() }
            let llmMs = (ContinuousClock.now - llmStart).inSeconds * 1000
            emit(.responded(result))
            if !pending.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { speak.yield(pending) }
            speak.finish()
            guard let spoken = try await group.next() else { throw CancellationError() }
            return (result, llmMs, spoken)
        }
        history += [Message(role: .user, content: transcription.text), Message(role: .assistant, content: completed.text)]
        let speech = spoken.output(format: config.ttsOptions.audioFormat)
        if let speech { emit(.synthesized(speech)) }
        emit(
            .completed(
                VoiceTurn(
                    speechSegments: segments, transcript: transcription.text, response: completed.text, audio: speech,
                    timings: VoiceTurnTimings(
                        vadMs: vadMs, sttMs: sttMs, llmMs: llmMs, timeToFirstTokenMs: completed.timeToFirstTokenMs,
                        ttsMs: spoken.synthesis.inSeconds * 1000,
                        timeToFirstAudioMs: spoken.firstAudio.map { ($0 - start).inSeconds * 1000 },
                        totalMs: (ContinuousClock.now - start).inSeconds * 1000)
                )))
    }

    /// Speaks each sentence as it comes, in order, reporting each as ``VoicePipelineEvent/spoke(_:)``.
    private static func speak(
        _ sentences: AsyncStream<String>, runtime: RunAnywhereRuntime, config: ModularPipelineConfig,
        emit: @Sendable (VoicePipelineEvent) -> Void
    ) async throws -> SpokenAnswer {
        var options = config.ttsOptions
        options.audioFormat = .pcm
        var spoken = SpokenAnswer()
        for await sentence in sentences {
            let piece = try await runtime.synthesize(
                sentence, voiceModel: config.ttsVoiceId, options: options, loadOptions: ModelLoadOptions(threads: config.threads))
            spoken.add(piece)
            // Spoken as PCM, so that the pieces put together are the whole; each is sent in the configuration's format.
            emit(.spoke(SpokenAnswer(piece).output(format: config.ttsOptions.audioFormat) ?? piece))
        }
        return spoken
    }
}

/// An answer's speech as its sentences are spoken: their 16-bit PCM, put together.
private struct SpokenAnswer: Sendable {
    var pcm = Data()
    var rate = 0
    var characters = 0
    var synthesis: Duration = .zero
    var firstAudio: ContinuousClock.Instant?
    var voice = ""
    var language = ""

    init() {}

    /// The answer of one spoken piece.
    init(_ piece: TTSOutput) { add(piece) }

    mutating func add(_ piece: TTSOutput) {
        if firstAudio == nil { firstAudio = .now }
        pcm += piece.audioData
        rate = piece.sampleRate
        characters += piece.metadata.characterCount
        synthesis += .seconds(piece.metadata.processingTime)
        (voice, language) = (piece.metadata.voice, piece.metadata.language)
    }

    /// The speech in `format`; nil when nothing was spoken.
    func output(format: AudioFormat) -> TTSOutput? {
        guard rate > 0 else { return nil }
        let seconds = synthesis.inSeconds
        return TTSOutput(
            audioData: format == .wav ? WAVCodec.encode(pcm16: pcm, sampleRate: rate, channels: 1) : pcm, format: format,
            sampleRate: rate, duration: Double(pcm.count / 2) / Double(rate),
            metadata: TTSSynthesisMetadata(
                voice: voice, language: language, processingTime: seconds, characterCount: characters,
                charactersPerSecond: seconds > 0 ? Double(characters) / seconds : 0))
    }
}
