import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

/// Speech on the real engines: whisper.cpp (tiny.en, converted by our converter), Piper through
/// sherpa-onnx with eSpeak NG phonemes, and Silero VAD. 1 thread.
@Suite(
    .inProcessLane, .serialized,
    .enabled(if: TestEnvironment.speechInstalled, "needs the speech engines and models: run scripts/setup --tests --build tests"))
struct SpeechTests {
    static let sentences = [
        "The quick brown fox jumps over the lazy dog.",
        "Please open the window and let some fresh air into the room.",
        "The weather today is sunny with a light breeze from the west.",
        "She sells fresh bread at the market every morning.",
        "Turn off the lights when you leave the kitchen.",
    ]

    /// Piper speaks fixed sentences and Whisper writes them back: a word error rate of at most 0.3.
    @Test func speechRoundTripHasALowWordErrorRate() async throws {
        let runtime = try await SpeechRuntime.shared.value
        var errors = 0
        var words = 0
        for sentence in Self.sentences {
            let heard = try await runtime.transcribe(try await SpeechRuntime.speech(sentence), options: STTOptions(threads: 1))
            let (e, w) = wordErrors(sentence, heard.text)
            errors += e
            words += w
        }
        let rate = Double(errors) / Double(words)
        #expect(rate <= 0.3, "word error rate \(rate)")
    }

    @Test func everyInputFormGivesTheSameTranscription() async throws {
        let runtime = try await SpeechRuntime.shared.value
        let sentence = "The quick brown fox jumps over the lazy dog."
        let speech = try await SpeechRuntime.speech(sentence)
        let fromSamples = try await runtime.transcribe(speech, options: STTOptions(threads: 1))
        let pcm16k = speech.resampled(to: 16_000).pcm16Data
        let fromPCM = try await runtime.transcribeWithOptions(pcm16k, options: STTOptions(threads: 1))
        let stereo = try AudioSamples(samples: speech.samples, sampleRate: speech.sampleRate).wavData
        let fromWAV = try await runtime.transcribeWithOptions(stereo, options: STTOptions(audioFormat: .wav, threads: 1))
        // Piper's voice varies a little from one synthesis to the next (its sampling noise), so
        // the words are checked by error rate, as in the round trip; the three forms of the same
        // audio must agree exactly.
        let (errors, words) = wordErrors(sentence, fromSamples.text)
        #expect(Double(errors) / Double(words) <= 0.3, "heard \(fromSamples.text)")
        #expect(fromPCM.text == fromSamples.text && fromWAV.text == fromSamples.text)
        let metadata = fromPCM.metadata
        #expect(metadata.modelId == "whisper-tiny.en")
        #expect(metadata.processingTime > 0 && abs(metadata.audioLength - Double(pcm16k.count / 2) / 16_000) < 0.001)
        #expect(abs(metadata.realTimeFactor - metadata.processingTime / metadata.audioLength) < 1e-9)
        #expect(fromPCM.detectedLanguage == "en")
        #expect(!fromPCM.segments.isEmpty && fromPCM.segments.allSatisfy { $0.startTime < $0.endTime && (0...1).contains($0.confidence) })
        #expect(fromPCM.confidence > 0.3)
    }

    /// Streamed, a transcription gives the segments whisper.cpp ends, in order, then the whole
    /// transcription with the same segments; audio longer than whisper's 30 s window is heard
    /// window by window, so its first segments come while the rest is still being heard, and
    /// dropping the stream then stops the engine before the end.
    @Test func transcriptionStreamsEachSegmentAsItIsHeard() async throws {
        let runtime = try await SpeechRuntime.shared.value
        let model = SDKConstants.Models.defaultSpeechRecognitionModelID
        let (first, second) = (
            try await SpeechRuntime.speech(Self.sentences[0]).resampled(to: 16_000),
            try await SpeechRuntime.speech(Self.sentences[1]).resampled(to: 16_000)
        )
        let pause = [Float](repeating: 0, count: 8_000)
        let short = try AudioSamples(samples: first.samples + pause + second.samples, sampleRate: 16_000)
        var (segments, completed): ([TranscriptionSegment], STTOutput?) = ([], nil)
        for try await event in try await runtime.transcribeStream(short, model: model, options: STTOptions(threads: 1)) {
            #expect(completed == nil, "the whole transcription comes last")
            switch event {
            case .segment(let segment): segments.append(segment)
            case .completed(let output): completed = output
            }
        }
        let output = try #require(completed)
        #expect(!segments.isEmpty && segments == output.segments)
        #expect(wordErrors(Self.sentences[0] + " " + Self.sentences[1], output.text).0 <= 6, "heard \(output.text)")
        let unstreamed = try await runtime.transcribe(short, model: model, options: STTOptions(threads: 1))
        #expect(output.segments == unstreamed.segments && output.text == unstreamed.text, "streamed or not, the same")

        // 40 s: the first sentence, silence, the second past the first window.
        let long = try AudioSamples(
            samples: first.samples + [Float](repeating: 0, count: 16_000 * 34 - first.samples.count) + second.samples
                + [Float](repeating: 0, count: 16_000 * 2), sampleRate: 16_000)
        let started = ContinuousClock.now
        var (firstHeard, whole): (Duration?, STTOutput?) = (nil, nil)
        for try await event in try await runtime.transcribeStream(long, model: model, options: STTOptions(threads: 1)) {
            switch event {
            case .segment: firstHeard = firstHeard ?? ContinuousClock.now - started
            case .completed(let output): whole = output
            }
        }
        let wholeLong = try #require(whole)
        #expect(wholeLong.segments.contains { $0.startTime >= 30 }, "the second window is heard: \(wholeLong.segments)")
        // Not a speed limit but an order: the first window's segments come out while the engine
        // is still hearing the second, well before the time the engine says it took in all.
        #expect(try #require(firstHeard) < .seconds(wholeLong.metadata.processingTime), "segments came only at the end")

        let events = runtime.events.subscribe()
        let early = try await { () async throws -> TranscriptionEvent? in
            for try await event in try await runtime.transcribeStream(long, model: model, options: STTOptions(threads: 1)) {
                return event  // the stream is dropped at its first event
            }
            return nil
        }()
        guard case .segment(let segment)? = early else {
            Issue.record("the first event is a segment, not \(String(describing: early))")
            return
        }
        #expect(segment.endTime <= 30, "a segment of the first window, heard before the second")
        // Transcriptions of one model take turns: had the long one gone on, it would end first.
        _ = try await runtime.transcribe(first, model: model, options: STTOptions(threads: 1))
        for await event in events {
            guard case .transcriptionCompleted(let metadata) = event else { continue }
            #expect(metadata.audioLength < 30, "the dropped transcription stopped before its end")
            break
        }
    }

    @Test func voiceActivityDetectionFindsEachUtterance() async throws {
        let runtime = try await SpeechRuntime.shared.value
        let speech = try await SpeechRuntime.speech("Turn off the lights.").resampled(to: 16_000)
        let silence = { (seconds: Double) in [Float](repeating: 0, count: Int(seconds * 16_000)) }
        let audio = try AudioSamples(samples: silence(1) + speech.samples + silence(1.5) + speech.samples + silence(1), sampleRate: 16_000)
        let segments = try await runtime.detectSpeech(in: audio)
        #expect(segments.count == 2, "\(segments)")
        #expect(abs((segments.first?.start ?? 0) - 1) < 0.4)
        #expect(abs((segments.last?.start ?? 0) - (2.5 + speech.duration)) < 0.4)
        #expect(try await runtime.detectSpeech(in: AudioSamples(samples: silence(2), sampleRate: 16_000)).isEmpty)

        // Window by window, as a realtime session reads a stream: every 32 ms window scored, the
        // speech above the threshold and the silence far under it.
        let scores = try await runtime.speechProbabilities(in: audio)
        #expect(scores.count == (audio.samples.count + 511) / 512)
        let window = { (seconds: Double) in Int(seconds * 16_000) / 512 }
        #expect(scores[..<window(0.9)].allSatisfy { $0 < 0.2 }, "\(scores[..<window(0.9)])")
        let spoken = scores[window(1.2)..<window(0.8 + speech.duration)]
        #expect(spoken.filter { $0 >= 0.5 }.count > spoken.count / 2, "\(spoken)")
    }

    /// Speech-to-text, voice activity and voices load through the one model cache that language
    /// models use: listed with their memory and state, and held through handles.
    @Test func speechModelsLiveInTheOneModelCache() async throws {
        let runtime = try await SpeechRuntime.shared.value
        let speech = try await SpeechRuntime.speech("Open the window.")
        _ = try await runtime.detectSpeech(in: speech)
        let loaded = await runtime.loadedModels()
        for id in [
            SDKConstants.Models.defaultSpeechRecognitionModelID, SDKConstants.Models.defaultVoiceID,
            SDKConstants.Models.voiceActivityModelID,
        ] {
            let status = try #require(loaded.first { $0.modelId == id }, "\(id) is not in \(loaded.map(\.modelId))")
            #expect(status.state == .loaded && status.memoryBytes > 0, "\(status)")
        }
        let whisper = try await runtime.hold(SDKConstants.Models.defaultSpeechRecognitionModelID, options: ModelLoadOptions(threads: 1))
        let heard = try await whisper.transcribe(speech, options: STTOptions(threads: 1))
        #expect(wordErrors("Open the window.", heard.text).errors <= 1, "\(heard.text)")
        #expect(await runtime.loadedModels().first { $0.modelId == whisper.model.id }?.activeRequests == 1, "the handle holds it")
        await #expect(throws: SDKError.self) { try await whisper.synthesize("Not a voice.") }
        await whisper.release()
        #expect(await runtime.loadedModels().first { $0.modelId == whisper.model.id }?.activeRequests == 0)
        #expect(await runtime.isSTTModelLoaded, "still the current speech-to-text model")
    }

    @Test func synthesisMetadataOptionsAndLimits() async throws {
        let runtime = try await SpeechRuntime.shared.value
        let text = "Hello, world. This is a test of the voice."
        let normal = try await runtime.synthesize(text)
        #expect(normal.sampleRate == 22_050 && normal.format == .pcm)
        #expect(abs(normal.duration - Double(normal.audioData.count / 2) / 22_050) < 0.001)
        #expect(normal.metadata.characterCount == text.count && normal.metadata.voice == "piper-en_US-joe-medium")
        #expect(normal.metadata.processingTime > 0 && normal.metadata.charactersPerSecond > 0)
        let fast = try await runtime.synthesize(text, options: TTSOptions(rate: 2))
        #expect(fast.duration < normal.duration * 0.75)
        let wav = try await runtime.synthesize(text, options: TTSOptions(audioFormat: .wav, sampleRate: 16_000))
        #expect(wav.audioData.starts(with: Data("RIFF".utf8)) && wav.sampleRate == 16_000)
        let long = String(repeating: "This sentence is spoken in a long text. ", count: 30)
        let longSpeech = try await runtime.synthesize(long)
        #expect(longSpeech.duration > 20, "every sentence of a long text is spoken (\(longSpeech.duration) s)")
        #expect((await #expect(throws: SDKError.self) { try await runtime.synthesize("  ") })?.code == .emptyInput)
        let huge = await #expect(throws: SDKError.self) { try await runtime.synthesize(String(repeating: "a", count: 100_000)) }
        #expect(huge?.message.contains("at most 10000") == true)
        #expect((await #expect(throws: SDKError.self) { try await runtime.loadTTSModel("no-such-voice") })?.code == .modelNotFound)
        #expect((await #expect(throws: SDKError.self) { try await runtime.loadTTSModel("whisper-tiny.en") })?.code == .modelIncompatible)
    }

    @Test func eSpeakVoicesSpeakToo() async throws {
        let runtime = try await SpeechRuntime.shared.value
        try await runtime.loadTTSModel("espeak-ng-en-us")
        let speech = try await runtime.synthesize("Hello world.")
        #expect(speech.duration > 0.5 && speech.metadata.voice == "en-us")
        let error = await #expect(throws: SDKError.self) { try await runtime.synthesize("Hello", options: TTSOptions(voice: "klingon-xx")) }
        #expect(error?.message.contains("no voice") == true)
        // Streamed, each sentence's audio comes as it is made, as long as that sentence alone (an
        // engine's state between calls moves its ends by a few samples).
        let options = TTSOptions(audioFormat: .pcm, sampleRate: 16_000)
        var pieces: [AudioSamples] = []
        for try await piece in try await runtime.synthesizeStream(
            "Hello world. Goodbye now.", voiceModel: "espeak-ng-en-us", options: options)
        {
            pieces.append(piece)
        }
        let sentences = [
            try await runtime.synthesize("Hello world.", voiceModel: "espeak-ng-en-us", options: options),
            try await runtime.synthesize("Goodbye now.", voiceModel: "espeak-ng-en-us", options: options),
        ]
        #expect(pieces.map(\.sampleRate) == [16_000, 16_000])
        for (piece, sentence) in zip(pieces, sentences) {
            #expect(abs(piece.duration - sentence.duration) < sentence.duration * 0.1, "\(piece.duration) s, alone \(sentence.duration) s")
        }
        await #expect(throws: SDKError.self) { try await runtime.synthesizeStream("Hi.", voiceModel: "no-such-voice") }
        try await runtime.loadTTSModel(SDKConstants.Models.defaultVoiceID, options: ModelLoadOptions(threads: 1))
    }

    @Test func badSpeechInputsAreClearErrors() async throws {
        let runtime = try await SpeechRuntime.shared.value
        #expect(
            (await #expect(throws: SDKError.self) { try await runtime.transcribeWithOptions(Data(), options: STTOptions()) })?.code
                == .emptyInput)
        #expect(
            (await #expect(throws: SDKError.self) { try await runtime.transcribeWithOptions(Data([1, 2, 3]), options: STTOptions()) })?
                .message.contains("even number") == true)
        #expect(
            (await #expect(throws: SDKError.self) {
                try await runtime.transcribeWithOptions(Data("not audio".utf8), options: STTOptions(audioFormat: .wav))
            })?.message.contains("The audio is not a WAV file, and no decoder for other audio formats is registered") == true)
        let fresh = RunAnywhereRuntime(
            configuration: RuntimeConfiguration(
                modelsDirectory: TestEnvironment.installedModelsDirectory, dataDirectory: FileManager.default.temporaryDirectory))
        #expect((await #expect(throws: SDKError.self) { try await fresh.transcribe(Data(count: 3200)) })?.code == .notInitialized)
        #expect(
            (await #expect(throws: SDKError.self) { try await fresh.loadSTTModel(SDKConstants.Models.defaultModelID) })?.code
                == .modelIncompatible)
    }

    @Test func aVoiceTurnRunsEveryStage() async throws {
        let runtime = try await SpeechRuntime.shared.value
        try await runtime.loadModel(SDKConstants.Models.defaultModelID, options: ModelLoadOptions(contextLength: 1024, threads: 1))
        let question = try await SpeechRuntime.speech("What is the capital of France?")
        let config = ModularPipelineConfig(
            enableSpeakerDiarization: true, generationOptions: LLMGenerationOptions(maxTokens: 24, temperature: 0), threads: 1)
        let pipeline = try await runtime.createVoicePipeline(config: config)
        var events: [VoicePipelineEvent] = []
        for try await event in await pipeline.processTurn(question) { events.append(event) }
        #expect(events.first == .diarizationUnavailable, "diarization falls back to the standard pipeline")
        guard case .completed(let turn)? = events.last else {
            Issue.record("the turn completes")
            return
        }
        #expect(turn.transcript.lowercased().contains("capital") && turn.transcript.lowercased().contains("france"))
        #expect(!turn.response.isEmpty && (turn.audio?.duration ?? 0) > 0.3)
        #expect(turn.speechSegments.count >= 1)
        let t = turn.timings
        #expect((t.vadMs ?? 0) > 0 && t.sttMs > 0 && t.llmMs > 0 && t.ttsMs > 0 && t.totalMs >= t.sttMs + t.llmMs)
        // The voice speaks while the model writes (how far ahead depends on the machine): its
        // first words come before the turn ends, and its pieces are the whole spoken answer.
        let firstAudio = try #require(t.timeToFirstAudioMs)
        #expect(firstAudio > t.sttMs && firstAudio < t.totalMs)
        let pieces = events.compactMap { if case .spoke(let piece) = $0 { piece } else { nil } }
        let whole = events.compactMap { if case .synthesized(let speech) = $0 { speech } else { nil } }
        #expect(!pieces.isEmpty && whole.count == 1 && whole.first == turn.audio)
        #expect(pieces.allSatisfy { $0.format == .wav && $0.audioData.starts(with: Data("RIFF".utf8)) }, "the configuration's format")
        #expect(abs(pieces.map(\.duration).reduce(0, +) - (turn.audio?.duration ?? 0)) < 0.001)
        #expect(events.contains { if case .transcribed = $0 { true } else { false } })
        var quiet: [VoicePipelineEvent] = []
        for try await event in await pipeline.processTurn(
            try AudioSamples(samples: [Float](repeating: 0, count: 32_000), sampleRate: 16_000))
        { quiet.append(event) }
        #expect(quiet.contains(.noSpeech))
    }
}
