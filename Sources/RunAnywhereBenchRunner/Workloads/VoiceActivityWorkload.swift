import Foundation
import RunAnywhere

/// The Silero voice activity detector over 32 ms frames (512 samples at 16 kHz, the size it
/// reads at once) of the synthetic signal.
final class VoiceActivityWorkload: InstalledModelWorkload {
    let model: InstalledModel
    /// Samples per frame.
    static let frameSamples = 512
    private var frames: [AudioSamples] = []

    init(_ model: InstalledModel) {
        self.model = model
    }

    func load(frameCount: Int) async throws {
        let signal = SyntheticAudio.samples(Self.frameSamples * frameCount)
        frames = try (0..<frameCount).map {
            try AudioSamples(
                samples: Array(signal[$0 * Self.frameSamples..<($0 + 1) * Self.frameSamples]), sampleRate: SyntheticAudio.sampleRate)
        }
        // The detector loads on first use: run one frame so that loading is part of the start.
        _ = try await model.runtime.detectSpeech(in: frames[0])
    }

    func process(frame index: Int) async throws -> Bool {
        _ = try await model.runtime.detectSpeech(in: frames[index])
        return true
    }

    func unload() async {
        frames = []
    }
}
