import Foundation

/// Deterministic inputs that need no microphone or camera (spec 2.11).
package enum SyntheticInputGenerator {
    /// Sample rate of the synthetic audio.
    package static let audioSampleRate = 16_000

    /// `durationSeconds` of 16 kHz mono Int16 PCM silence (2 s = 64 000 bytes).
    package static func silentAudio(durationSeconds: Double) -> Data {
        Data(count: Int(durationSeconds * Double(audioSampleRate)) * 2)
    }

    /// `durationSeconds` of a 16 kHz mono Int16 PCM sine wave at half amplitude, little-endian.
    package static func sineWaveAudio(durationSeconds: Double, frequencyHz: Double = 440) -> Data {
        let count = Int(durationSeconds * Double(audioSampleRate))
        var data = Data(capacity: count * 2)
        for index in 0..<count {
            let t = Double(index) / Double(audioSampleRate)
            let sample = Int16(sin(2 * .pi * frequencyHz * t) * Double(Int16.max / 2))
            withUnsafeBytes(of: sample.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// A 224×224 (by default) image of one colour.
    package static func solidColorImage(red: UInt8, green: UInt8, blue: UInt8, width: Int = 224, height: Int = 224) -> SyntheticImage {
        SyntheticImage(width: width, height: height) { _, _ in (red, green, blue) }
    }

    /// A top-to-bottom linear gradient from one colour to another.
    package static func gradientImage(
        from start: (UInt8, UInt8, UInt8), to end: (UInt8, UInt8, UInt8), width: Int = 224, height: Int = 224
    ) -> SyntheticImage {
        SyntheticImage(width: width, height: height) { _, y in
            let t = height > 1 ? Double(y) / Double(height - 1) : 0
            func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) * (1 - t) + Double(b) * t).rounded()) }
            return (mix(start.0, end.0), mix(start.1, end.1), mix(start.2, end.2))
        }
    }
}

/// An 8-bit RGB image, as raw pixels and as PNG.
package struct SyntheticImage: Sendable, Equatable {
    /// Width in pixels.
    package let width: Int
    /// Height in pixels.
    package let height: Int
    /// Row-major RGB bytes, 3 per pixel.
    package let rgb: [UInt8]

    init(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) {
        self.width = width
        self.height = height
        var rgb: [UInt8] = []
        rgb.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = pixel(x, y)
                rgb += [r, g, b]
            }
        }
        self.rgb = rgb
    }

    /// The image as a PNG file.
    package var pngData: Data { PNGEncoder.encode(rgb: rgb, width: width, height: height) }
}
