import Foundation
import RunAnywhere

/// A speech-recognition model over fixed one-second windows of the synthetic signal, one
/// window per frame.
final class TranscriptionWorkload: FrameWorkload {
    let modelID: String
    let backend: String
    let modelFileBytes: Int64
    /// Seconds of audio per frame.
    static let windowSeconds = 1
    private let runtime: RunAnywhereRuntime
    private let threads: Int
    private var windows: [AudioSamples] = []

    init(model: ModelInfo, fileBytes: Int64, runtime: RunAnywhereRuntime, threads: Int) {
        modelID = model.id
        backend = ModelWorkload.backend(model)
        modelFileBytes = fileBytes
        self.runtime = runtime
        self.threads = threads
    }

    func load(frameCount: Int) async throws {
        let length = Self.windowSeconds * SyntheticAudio.sampleRate
        let signal = SyntheticAudio.samples(length * frameCount)
        windows = try (0..<frameCount).map {
            try AudioSamples(samples: Array(signal[$0 * length..<($0 + 1) * length]), sampleRate: SyntheticAudio.sampleRate)
        }
        try await runtime.loadSTTModel(modelID, options: ModelLoadOptions(threads: threads))
    }

    func process(frame index: Int) async throws -> Bool {
        _ = try await runtime.transcribe(windows[index], options: STTOptions(enableTimestamps: false, threads: threads))
        return true
    }

    func unload() async {
        windows = []
        await runtime.unloadSTTModel()
    }
}
