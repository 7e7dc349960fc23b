import Foundation
import RunAnywhere

/// A speech-recognition model over fixed one-second windows of the synthetic signal, one
/// window per frame.
final class TranscriptionWorkload: InstalledModelWorkload {
    let model: InstalledModel
    /// Seconds of audio per frame.
    static let windowSeconds = 1
    private var windows: [AudioSamples] = []

    init(_ model: InstalledModel) {
        self.model = model
    }

    func load(frameCount: Int) async throws {
        let length = Self.windowSeconds * SyntheticAudio.sampleRate
        let signal = SyntheticAudio.samples(length * frameCount)
        windows = try (0..<frameCount).map {
            try AudioSamples(samples: Array(signal[$0 * length..<($0 + 1) * length]), sampleRate: SyntheticAudio.sampleRate)
        }
        try await model.runtime.loadSTTModel(modelID, options: ModelLoadOptions(threads: model.threads))
    }

    func process(frame index: Int) async throws -> Bool {
        _ = try await model.runtime.transcribe(windows[index], options: STTOptions(enableTimestamps: false, threads: model.threads))
        return true
    }

    func unload() async {
        windows = []
        await model.runtime.unloadSTTModel()
    }
}
