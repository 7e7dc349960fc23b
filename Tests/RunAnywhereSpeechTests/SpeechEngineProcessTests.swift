import Foundation
import RunAnywhere
import RunAnywhereEspeak
import RunAnywhereSherpaOnnx
import RunAnywhereTestSupport
import RunAnywhereWhisperCpp
import Testing

/// Speech in engine worker processes (``EngineProcesses``, the `runanywhere engine-worker` built
/// beside the tests): whisper.cpp writes the same segments from the same samples as it does in
/// this process, Silero finds the same speech, the Piper voice speaks, each model in a worker
/// named after it; a real abort() inside whisper's worker fails only that transcription (the
/// voice's worker goes on), and the next transcription loads the model again.
@Suite(
    .inProcessLane, .serialized,
    .enabled(if: TestEnvironment.speechInstalled, "needs the speech engines and models: run scripts/setup --tests --build tests"))
struct SpeechEngineProcessTests {
    static let (whisper, voice, vad) = (
        SDKConstants.Models.defaultSpeechRecognitionModelID, SDKConstants.Models.defaultVoiceID, SDKConstants.Models.voiceActivityModelID
    )
    static let load = ModelLoadOptions(threads: 1)

    /// A runtime over the installed models whose speech engines run in workers.
    static func isolatedRuntime() -> RunAnywhereRuntime {
        let runtime = EngineWorkers.runtime()
        runtime.frameworks.register(WhisperCppAdapter())
        runtime.frameworks.register(SherpaOnnxAdapter(phonemizer: EspeakPhonemizer()))
        runtime.frameworks.register(EspeakAdapter())
        return runtime
    }

    @Test func speechModelsInWorkersAnswerAsTheyDoHereAndOutliveACrash() async throws {
        let here = try await SpeechRuntime.shared.value
        let speech = try await SpeechRuntime.speech("Turn off the lights when you leave the kitchen.").resampled(to: 16_000)
        let silence = [Float](repeating: 0, count: 16_000)
        let audio = try AudioSamples(samples: silence + speech.samples + silence, sampleRate: 16_000)
        let options = STTOptions(threads: 1)
        let heardHere = try await here.transcribe(audio, model: Self.whisper, options: options, loadOptions: Self.load)
        let speechHere = try await here.detectSpeech(in: audio)
        let spokenHere = try await here.synthesize(
            "Open the window.", voiceModel: Self.voice, options: TTSOptions(audioFormat: .pcm), loadOptions: Self.load)

        let isolated = Self.isolatedRuntime()
        let heard = try await isolated.transcribe(audio, model: Self.whisper, options: options, loadOptions: Self.load)
        #expect(
            heard.segments == heardHere.segments && heard.detectedLanguage == heardHere.detectedLanguage,
            "the same engine on the same samples")
        var streamed: [TranscriptionSegment] = []
        for try await event in try await isolated.transcribeStream(audio, model: Self.whisper, options: options, loadOptions: Self.load) {
            if case .segment(let segment) = event { streamed.append(segment) }
        }
        #expect(streamed == heardHere.segments, "a worker's segments come as they are heard, over the wire")
        #expect(try await isolated.detectSpeech(in: audio) == speechHere)
        #expect(try await isolated.speechProbabilities(in: audio) == here.speechProbabilities(in: audio))
        let spoken = try await isolated.synthesize(
            "Open the window.", voiceModel: Self.voice, options: TTSOptions(audioFormat: .pcm), loadOptions: Self.load)
        #expect(
            spoken.sampleRate == spokenHere.sampleRate && abs(spoken.duration - spokenHere.duration) < 0.3,
            "\(spoken.duration) s, here \(spokenHere.duration) s")
        #expect(spoken.metadata.voice == spokenHere.metadata.voice && spoken.metadata.language == spokenHere.metadata.language)
        for id in [Self.whisper, Self.voice, Self.vad] {
            #expect(EngineWorkers.holding(id).count == 1, "one worker named after \(id)")
        }

        setenv("RUNANYWHERE_TEST_ENGINE_FAULTS", "1", 1)  // read by the workers started from here
        defer { unsetenv("RUNANYWHERE_TEST_ENGINE_FAULTS") }
        await isolated.unloadModel(id: Self.whisper)
        var faulty = options
        faulty.prompt = "[[engine-fault:abort]]"
        let error = await #expect(throws: SDKError.self) {
            try await isolated.transcribe(audio, model: Self.whisper, options: faulty, loadOptions: Self.load)
        }
        #expect(error?.code == .engineCrashed && error?.message.contains("SIGABRT") == true, "\(String(describing: error))")
        #expect(EngineWorkers.holding(Self.voice).count == 1, "the voice's worker goes on")
        #expect(
            try await isolated.transcribe(audio, model: Self.whisper, options: options, loadOptions: Self.load).segments
                == heardHere.segments)
        await isolated.unloadAllModels()
        for id in [Self.whisper, Self.voice, Self.vad] {
            #expect(EngineWorkers.holding(id).isEmpty, "\(id)'s worker ended with its model")
        }
    }
}
