import Foundation

/// ITU-T G.711, the telephone network's 8-bit audio: each 16-bit sample becomes one byte on a
/// logarithmic scale, µ-law (North America, Japan) or A-law (elsewhere), at 8 kHz. The realtime
/// API speaks it (`audio/pcmu`, `audio/pcma`) to reach phone lines without transcoding.
package enum G711: String, Sendable {
    case muLaw
    case aLaw

    /// The rate G.711 audio is sent at.
    package static let sampleRate = 8_000

    /// `samples` (-1…1, clipped) as one byte each.
    package func encode(_ samples: [Float]) -> Data {
        Data(
            samples.map { sample in
                let linear = Int(max(-32768, min(32767, (sample * 32767).rounded())))
                return self == .muLaw ? Self.muLaw(linear) : Self.aLaw(linear)
            })
    }

    /// The samples (-1…1) of G.711 bytes.
    package func decode(_ data: Data) -> [Float] {
        data.map { Float(self == .muLaw ? Self.linear(muLaw: $0) : Self.linear(aLaw: $0)) / 32768 }
    }

    /// The segment of a magnitude: how many times it doubles past `first`, 8 when beyond the last.
    private static func segment(_ magnitude: Int, first: Int) -> Int {
        var segment = 0
        var end = first
        while segment < 8, magnitude > end {
            segment += 1
            end = end * 2 + 1
        }
        return segment
    }

    /// µ-law of a 16-bit sample: its 14 high bits, biased by 33 so that every segment starts at a
    /// power of two, as a segment (3 bits) and a step within it (4 bits), sign above, all inverted.
    static func muLaw(_ linear: Int) -> UInt8 {
        let value = linear >> 2
        let mask: UInt8 = value < 0 ? 0x7F : 0xFF
        let magnitude = min(abs(value), 8159) + 33
        let segment = Self.segment(magnitude, first: 0x3F)
        guard segment < 8 else { return 0x7F ^ mask }
        return UInt8(segment << 4 | (magnitude >> (segment + 1)) & 0xF) ^ mask
    }

    /// The 16-bit sample of a µ-law byte: the middle of its step.
    static func linear(muLaw byte: UInt8) -> Int {
        let code = Int(~byte)
        let magnitude = (((code & 0xF) << 3) + 0x84) << ((code & 0x70) >> 4)
        return code & 0x80 != 0 ? 0x84 - magnitude : magnitude - 0x84
    }

    /// A-law of a 16-bit sample: its 13 high bits as a segment and a step (the first two
    /// segments linear), sign above, even bits inverted.
    static func aLaw(_ linear: Int) -> UInt8 {
        var value = linear >> 3
        let mask: UInt8
        if value >= 0 {
            mask = 0xD5
        } else {
            mask = 0x55
            value = -value - 1
        }
        let segment = Self.segment(value, first: 0x1F)
        guard segment < 8 else { return 0x7F ^ mask }
        let step = segment < 2 ? (value >> 1) & 0xF : (value >> segment) & 0xF
        return UInt8(segment << 4 | step) ^ mask
    }

    /// The 16-bit sample of an A-law byte: the middle of its step.
    static func linear(aLaw byte: UInt8) -> Int {
        let code = Int(byte ^ 0x55)
        let segment = (code & 0x70) >> 4
        var magnitude = (code & 0xF) << 4
        switch segment {
        case 0: magnitude += 8
        case 1: magnitude += 0x108
        default: magnitude = (magnitude + 0x108) << (segment - 1)
        }
        return code & 0x80 != 0 ? magnitude : -magnitude
    }
}
