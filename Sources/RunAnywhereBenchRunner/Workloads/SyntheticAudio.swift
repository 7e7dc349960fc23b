import Foundation

/// A deterministic 16 kHz test signal for the audio workloads: half-second bursts of a voiced
/// sound (a 140 Hz fundamental with formant-like overtones, its pitch gliding) alternating with
/// quiet noise, from a fixed-seed generator, so every machine processes the same samples.
enum SyntheticAudio {
    /// The sample rate of every signal here.
    static let sampleRate = 16_000

    /// The first `count` samples of the signal.
    static func samples(_ count: Int) -> [Float] {
        var state: UInt32 = 0x2545_F491
        var phase = 0.0
        return (0..<count).map { index in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            let noise = Double(state) / Double(UInt32.max) - 0.5
            let time = Double(index) / Double(sampleRate)
            let voiced = Int(time * 2) % 2 == 0
            guard voiced else { return Float(0.01 * noise) }
            let pitch = 140 + 30 * sin(2 * Double.pi * 0.7 * time)
            phase += 2 * Double.pi * pitch / Double(sampleRate)
            let tone = 0.5 * sin(phase) + 0.25 * sin(5 * phase) + 0.12 * sin(13 * phase)
            return Float(0.4 * tone + 0.02 * noise)
        }
    }
}
