import Foundation

/// Mono audio as floats in -1…1 at a sample rate.
public struct AudioSamples: Sendable, Equatable {
    /// Mono samples in -1...1.
    public let samples: [Float]
    /// Samples per second.
    public let sampleRate: Int

    /// Wraps samples; the rate must be positive.
    public init(samples: [Float], sampleRate: Int) throws {
        guard sampleRate > 0, sampleRate <= 768_000 else { throw SDKError(.invalidInput, "Invalid sample rate \(sampleRate)") }
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// Samples at a rate already known to be valid.
    init(validated samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// 16-bit little-endian mono PCM, the SDK's `Data` input for speech.
    public init(pcm16 data: Data, sampleRate: Int = 16_000) throws {
        guard !data.isEmpty else { throw SDKError(.emptyInput, "The audio is empty") }
        guard data.count.isMultiple(of: 2) else {
            throw SDKError(.invalidInput, "16-bit PCM needs an even number of bytes; got \(data.count)")
        }
        let samples = data.withUnsafeBytes { raw in
            (0..<data.count / 2).map { Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768 }
        }
        try self.init(samples: samples, sampleRate: sampleRate)
    }

    /// Seconds of audio.
    public var duration: TimeInterval { Double(samples.count) / Double(sampleRate) }

    /// The audio at another sample rate (windowed-sinc interpolation with an anti-aliasing
    /// low-pass when going down).
    public func resampled(to rate: Int) -> AudioSamples {
        guard rate != sampleRate, !samples.isEmpty else { return self }
        return Resampler.resample(self, to: rate)
    }

    /// 16-bit little-endian PCM (clipped to the 16-bit range).
    public var pcm16Data: Data {
        var data = Data(capacity: samples.count * 2)
        for sample in samples {
            let value = Int16(max(-32768, min(32767, (sample * 32767).rounded())))
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// A 16-bit mono PCM WAV file of the audio.
    public var wavData: Data { WAVCodec.encode(pcm16: pcm16Data, sampleRate: sampleRate, channels: 1) }
}

/// Windowed-sinc resampling (Blackman window, 32 zero crossings a side).
enum Resampler {
    static func resample(_ audio: AudioSamples, to rate: Int) -> AudioSamples {
        let ratio = Double(rate) / Double(audio.sampleRate)
        let cutoff = min(1, ratio) * 0.97
        let halfWidth = 32.0 / cutoff
        let input = audio.samples
        let count = Int((Double(input.count) * ratio).rounded())
        var output = [Float](repeating: 0, count: count)
        for index in 0..<count {
            let center = Double(index) / ratio
            let first = max(0, Int((center - halfWidth).rounded(.up)))
            let last = min(input.count - 1, Int((center + halfWidth).rounded(.down)))
            var sum = 0.0
            var weights = 0.0
            if first <= last {
                for tap in first...last {
                    let x = Double(tap) - center
                    let sinc = x == 0 ? 1 : sin(.pi * x * cutoff) / (.pi * x * cutoff)
                    let position = (x / halfWidth + 1) / 2
                    let window = 0.42 - 0.5 * cos(2 * .pi * position) + 0.08 * cos(4 * .pi * position)
                    let weight = sinc * window
                    sum += Double(input[tap]) * weight
                    weights += weight
                }
            }
            output[index] = weights != 0 ? Float(sum / weights) : 0
        }
        return AudioSamples(validated: output, sampleRate: rate)
    }
}
