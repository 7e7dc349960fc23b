import Foundation

/// WAV files: integer PCM of 8, 16, 24 or 32 bits and float PCM of 32 or 64 bits, plain or
/// WAVE_FORMAT_EXTENSIBLE, any number of channels (mixed down to mono).
enum WAVCodec {
    /// The lowest sample rate a WAV file is read at.
    static let lowestSampleRate = 1_000

    static func decode(_ data: Data, name: String) throws -> AudioSamples {
        func bad(_ why: String) -> SDKError { SDKError(.invalidInput, "\(name) is not a usable WAV file: \(why)") }
        guard !data.isEmpty else { throw SDKError(.emptyInput, "\(name) is empty") }
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            throw bad("it does not start with a RIFF/WAVE header")
        }
        var offset = 12
        var format: (code: Int, channels: Int, rate: Int, bits: Int)?
        var payload: Range<Int>?
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = u32(offset + 4)
            let body = offset + 8
            let end = min(bytes.count, body + size)
            if id == "fmt " {
                guard size >= 16, body + 16 <= bytes.count else { throw bad("its fmt chunk is too short") }
                var code = u16(body)
                if code == 0xFFFE, size >= 40, body + 26 <= bytes.count { code = u16(body + 24) }
                format = (code, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                payload = body..<end
            }
            offset = body + size + (size & 1)
        }
        guard let format else { throw bad("it has no fmt chunk") }
        guard let payload else { throw bad("it has no data chunk") }
        guard format.channels > 0, format.rate > 0 else { throw bad("it declares \(format.channels) channels at \(format.rate) Hz") }
        // Below any recorded speech's rate (telephone audio is 8 kHz): such a header would make a
        // small file hours of audio, gigabytes once resampled for a model.
        guard format.rate >= Self.lowestSampleRate else {
            throw bad("it declares \(format.rate) Hz; audio is recorded at \(Self.lowestSampleRate) Hz or more")
        }
        let width: Int
        switch (format.code, format.bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32), (3, 32), (3, 64): width = format.bits / 8
        case (1, _), (3, _): throw SDKError(.invalidInput, "\(name) uses \(format.bits)-bit samples, which are not supported")
        default:
            throw SDKError(
                .invalidInput,
                "\(name) uses WAV encoding \(format.code) (\(encodingName(format.code))); only PCM and IEEE float are supported")
        }
        let frameBytes = width * format.channels
        let frames = payload.count / frameBytes
        guard frames > 0 else { throw SDKError(.emptyInput, "\(name) holds no audio") }
        var samples = [Float](repeating: 0, count: frames)
        bytes.withUnsafeBytes { raw in
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<format.channels {
                    let at = payload.lowerBound + frame * frameBytes + channel * width
                    sum += sample(raw, at: at, width: width, float: format.code == 3)
                }
                samples[frame] = sum / Float(format.channels)
            }
        }
        guard samples.allSatisfy(\.isFinite) else { throw bad("it holds float samples that are not numbers (NaN or infinite)") }
        return try AudioSamples(samples: samples, sampleRate: format.rate)
    }

    private static func sample(_ raw: UnsafeRawBufferPointer, at: Int, width: Int, float: Bool) -> Float {
        switch (width, float) {
        case (1, _): return (Float(raw[at]) - 128) / 128
        case (2, _): return Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self))) / 32768
        case (3, _):
            let value = Int32(raw[at]) << 8 | Int32(raw[at + 1]) << 16 | Int32(raw[at + 2]) << 24
            return Float(value >> 8) / 8_388_608
        case (4, true): return Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
        case (4, false): return Float(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self))) / 2_147_483_648
        default: return Float(Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))))
        }
    }

    private static func encodingName(_ code: Int) -> String {
        switch code {
        case 2: "Microsoft ADPCM"
        case 6: "A-law"
        case 7: "µ-law"
        case 0x11: "IMA ADPCM"
        case 0x55: "MP3"
        default: "unknown"
        }
    }

    /// A WAV file around 16-bit PCM. A size beyond RIFF's 32 bits (4 GiB of speech) is written
    /// as 0xFFFFFFFF, "unknown", as other writers do, rather than trapping.
    static func encode(pcm16 data: Data, sampleRate: Int, channels: Int) -> Data {
        var out = Data()
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(clamping: value).littleEndian) { out.append(contentsOf: $0) } }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(clamping: value).littleEndian) { out.append(contentsOf: $0) } }
        out.append(contentsOf: Array("RIFF".utf8))
        u32(36 + data.count)
        out.append(contentsOf: Array("WAVE".utf8))
        out.append(contentsOf: Array("fmt ".utf8))
        u32(16)
        u16(1)
        u16(channels)
        u32(sampleRate)
        u32(sampleRate * channels * 2)
        u16(channels * 2)
        u16(16)
        out.append(contentsOf: Array("data".utf8))
        u32(data.count)
        out.append(data)
        return out
    }
}
