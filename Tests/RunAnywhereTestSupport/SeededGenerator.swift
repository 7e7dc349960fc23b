import Foundation

/// A random number generator that gives the same numbers for the same seed on every machine
/// (SplitMix64), for fuzz tests that must find the same cases every run.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// A generator started from `seed`.
    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Data {
    /// These bytes with 1 to 4 replaced, mostly by characters that keep JSON looking like JSON
    /// (digits, signs, quotes, brackets), so that the damage reaches the decoders and not only
    /// the parser: for fuzzing the files the SDK keeps.
    package func damagedJSON(using random: inout SeededGenerator) -> Data {
        let alphabet = Array("0123456789-+.eE\"{}[],:ntfrul \\".utf8)
        var bytes = self
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let at = bytes.startIndex + Int.random(in: 0..<bytes.count, using: &random)
            bytes[at] =
                Int.random(in: 0..<4, using: &random) == 0
                ? UInt8.random(in: 0...255, using: &random) : alphabet.randomElement(using: &random)!
        }
        return bytes
    }
}
