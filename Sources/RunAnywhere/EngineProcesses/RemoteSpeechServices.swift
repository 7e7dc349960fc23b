import Foundation

/// A speech-to-text model whose engine runs in a worker process (``EngineProcesses``); the
/// runtime calls it on an engine thread, which waits for the worker's answer.
final class RemoteSTTService: STTService, RemoteEngine {
    let worker: EngineProcess

    /// The engine of the model `worker` has loaded.
    init(worker: EngineProcess) { self.worker = worker }

    func transcribe(
        _ audio: AudioSamples, options: STTOptions, cancellation: CancellationFlag,
        onSegment: @escaping @Sendable (TranscriptionSegment) -> Void
    ) throws -> (segments: [TranscriptionSegment], language: String?) {
        let answer = try worker.callBlocking(
            { .transcribe(id: $0, audio: WorkerAudio(audio), options: options) }, cancellation: cancellation,
            onProgress: { if case .segment(let segment) = $0 { onSegment(segment) } })
        guard case .transcription(let segments, let language) = answer else { throw worker.wrongAnswer() }
        return (segments, language)
    }

    func unload() async { await worker.stop() }
}

/// A voice activity detector whose engine runs in a worker process (``EngineProcesses``).
final class RemoteVADService: VADProbabilities, RemoteEngine {
    let worker: EngineProcess

    /// The engine of the model `worker` has loaded.
    init(worker: EngineProcess) { self.worker = worker }

    func detectSpeech(_ audio: AudioSamples, options: VADOptions) throws -> [SpeechSegment] {
        let answer = try worker.callBlocking(
            { .detectSpeech(id: $0, audio: WorkerAudio(audio), options: options) }, cancellation: CancellationFlag())
        guard case .speech(let segments) = answer else { throw worker.wrongAnswer() }
        return segments
    }

    func speechProbabilities(_ audio: AudioSamples) throws -> [Float] {
        let answer = try worker.callBlocking({ .speechProbabilities(id: $0, audio: WorkerAudio(audio)) }, cancellation: CancellationFlag())
        guard case .probabilities(let probabilities) = answer else { throw worker.wrongAnswer() }
        return probabilities
    }

    func unload() async { await worker.stop() }
}

/// A voice whose engine runs in a worker process (``EngineProcesses``).
final class RemoteTTSService: TTSService, RemoteEngine {
    let voiceName: String
    let language: String
    let worker: EngineProcess

    /// The engine of the voice `worker` has loaded, described by `facts`.
    init(worker: EngineProcess, facts: WorkerModelFacts) {
        self.worker = worker
        voiceName = facts.voiceName
        language = facts.language
    }

    func synthesize(_ text: String, options: TTSOptions, cancellation: CancellationFlag) throws -> AudioSamples {
        let answer = try worker.callBlocking({ .synthesize(id: $0, text: text, options: options) }, cancellation: cancellation)
        guard case .audio(let audio) = answer else { throw worker.wrongAnswer() }
        return try audio.audio()
    }

    func unload() async { await worker.stop() }
}
