import Foundation

/// Mono audio as floats in -1…1 at a sample rate.
public struct AudioSamples: Sendable, Equatable {
    /// Mono samples in -1...1.
    public let samples: [Float]
    /// Samples per second.
    public let sampleRate: Int

    /// Wraps samples; the rate must be positive and every sample a number (not NaN or infinite),
    /// which speech recognition would hear as noise.
    public init(samples: [Float], sampleRate: Int) throws {
        guard sampleRate > 0, sampleRate <= 768_000 else { throw SDKError(.invalidInput, "Invalid sample rate \(sampleRate)") }
        guard samples.allSatisfy(\.isFinite) else {
            throw SDKError(.invalidInput, "The audio holds samples that are not numbers (NaN or infinite)")
        }
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

/// Windowed-sinc resampling (Blackman window, 32 zero crossings a side). Between rates whose
/// ratio is a fraction L/M in lowest terms, output sample `i` sits at phase `i·M mod L` between
/// input samples, so there are only L filters: they are computed once (a voice's 22,050 Hz to
/// 24,000 Hz takes 160, 44,100 Hz to 16,000 Hz takes 160) and each output sample is one dot
/// product, where computing each tap's sine and window took seconds a minute of audio. A ratio
/// of more phases than ``maxPhases`` (a file at 44,101 Hz) takes the nearest of that many, at
/// most 1/8192 of a sample off. Samples near the ends, whose filters run past the audio, take
/// each tap's weight as they go.
enum Resampler {
    /// The most filters kept for one conversion (70 to 200 taps each, the more the lower the new rate).
    static let maxPhases = 4_096

    static func resample(_ audio: AudioSamples, to rate: Int) -> AudioSamples {
        let filter = Filter(from: audio.sampleRate, to: rate)
        let input = audio.samples
        let count = Int((Double(input.count) * filter.ratio).rounded())
        var output = [Float](repeating: 0, count: count)
        let phases = filter.phases()
        input.withUnsafeBufferPointer { samples in
            for index in 0..<count {
                let (whole, phase) = filter.position(of: index, among: phases.count)
                let taps = phases[phase]
                let first = whole + taps.offset
                if first >= 0, first + taps.weights.count <= samples.count {
                    var sum = 0.0
                    for (tap, weight) in taps.weights.enumerated() { sum += Double(samples[first + tap]) * weight }
                    output[index] = Float(sum)
                } else {
                    output[index] = filter.sample(at: Double(index) / filter.ratio, of: samples)
                }
            }
        }
        return AudioSamples(validated: output, sampleRate: rate)
    }

    /// The low-pass filter of one conversion.
    struct Filter {
        let ratio: Double
        let cutoff: Double
        let halfWidth: Double
        /// The ratio as a fraction in lowest terms: `phaseCount` output samples for every `step` input samples.
        let phaseCount: Int
        let step: Int

        init(from source: Int, to rate: Int) {
            ratio = Double(rate) / Double(source)
            cutoff = min(1, ratio) * 0.97
            halfWidth = 32.0 / cutoff
            var (a, b) = (rate, source)
            while b != 0 { (a, b) = (b, a % b) }
            phaseCount = rate / a
            step = source / a
        }

        /// A tap's weight, `x` input samples from the output sample's position.
        func weight(_ x: Double) -> Double {
            let sinc = x == 0 ? 1 : sin(.pi * x * cutoff) / (.pi * x * cutoff)
            let position = (x / halfWidth + 1) / 2
            return sinc * (0.42 - 0.5 * cos(2 * .pi * position) + 0.08 * cos(4 * .pi * position))
        }

        /// The output sample at `center` (in input samples), from the taps within reach, their
        /// weights normalized to sum to 1.
        func sample(at center: Double, of input: UnsafeBufferPointer<Float>) -> Float {
            let first = max(0, Int((center - halfWidth).rounded(.up)))
            let last = min(input.count - 1, Int((center + halfWidth).rounded(.down)))
            guard first <= last else { return 0 }
            var sum = 0.0
            var weights = 0.0
            for tap in first...last {
                let weight = weight(Double(tap) - center)
                sum += Double(input[tap]) * weight
                weights += weight
            }
            return weights != 0 ? Float(sum / weights) : 0
        }

        /// Where output sample `index` sits: the input sample at or before it, and which of
        /// `phases` evenly spaced phases it is at (exactly, when there are ``phaseCount``).
        func position(of index: Int, among phases: Int) -> (whole: Int, phase: Int) {
            if phases == phaseCount {
                let (whole, phase) = (index * step).quotientAndRemainder(dividingBy: phaseCount)
                return (whole, phase)
            }
            let center = Double(index) / ratio
            let whole = Int(center.rounded(.down))
            let phase = Int(((center - Double(whole)) * Double(phases)).rounded())
            return phase == phases ? (whole + 1, 0) : (whole, phase)
        }

        /// Each phase's taps: the first one's offset from the input sample at or before the
        /// output sample, and their normalized weights; ``phaseCount`` phases, or ``maxPhases``
        /// when there are more.
        func phases() -> [(offset: Int, weights: [Double])] {
            let count = min(phaseCount, maxPhases)
            return (0..<count).map { phase in
                let fraction = Double(phase) / Double(count)
                let first = Int((fraction - halfWidth).rounded(.up))
                let last = Int((fraction + halfWidth).rounded(.down))
                let weights = (first...last).map { weight(Double($0) - fraction) }
                let total = weights.reduce(0, +)
                return (first, weights.map { total != 0 ? $0 / total : 0 })
            }
        }
    }
}
