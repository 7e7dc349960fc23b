import Foundation

/// An audio format of the realtime API, for what the client sends or hears: PCM16 at 24 kHz
/// (`audio/pcm`), or G.711 at 8 kHz, µ-law (`audio/pcmu`) or A-law (`audio/pcma`), as phone
/// lines carry it. The engines take and give any rate: input is kept at the client's rate and
/// resampled by the runtime, and the voice speaks at the rate asked.
enum RealtimeAudioFormat: String, Sendable, Equatable {
    case pcm = "audio/pcm"
    case pcmu = "audio/pcmu"
    case pcma = "audio/pcma"

    /// Samples per second.
    var sampleRate: Int { self == .pcm ? 24_000 : G711.sampleRate }

    /// Bytes each sample takes.
    var bytesPerSample: Int { self == .pcm ? 2 : 1 }

    private var law: G711? {
        switch self {
        case .pcm: nil
        case .pcmu: .muLaw
        case .pcma: .aLaw
        }
    }

    /// The format a session's `format` object names; an error names `param`.
    init(_ format: JSONValue, param: String) throws(RealtimeError) {
        let refusal = RealtimeError(
            "format must be {\"type\": \"audio/pcm\", \"rate\": 24000}, {\"type\": \"audio/pcmu\"} or {\"type\": \"audio/pcma\"}",
            param: param)
        guard let type = format["type"]?.stringValue, let named = Self(rawValue: type) else { throw refusal }
        if let rate = format["rate"], rate.numberValue != Double(named.sampleRate) { throw refusal }
        self = named
    }

    /// The format as the session object shows it.
    var json: JSONValue {
        self == .pcm ? ["type": "audio/pcm", "rate": .number(Double(sampleRate))] : ["type": .string(rawValue)]
    }

    /// The samples of audio the client sent in this format; `param` names the field for errors.
    func decode(_ data: Data, param: String) throws(RealtimeError) -> [Float] {
        guard let law else {
            guard data.count.isMultiple(of: 2) else {
                throw RealtimeError("PCM16 audio has an even number of bytes, not \(data.count)", param: param)
            }
            return data.isEmpty ? [] : ((try? AudioSamples(pcm16: data, sampleRate: sampleRate).samples) ?? [])
        }
        return law.decode(data)
    }

    /// Speech as PCM16 at ``sampleRate`` (the voice's output), in this format (nothing, for
    /// bytes that are not PCM16).
    func encode(pcm16 data: Data) -> Data {
        guard let law else { return data }
        return law.encode((try? AudioSamples(pcm16: data, sampleRate: sampleRate).samples) ?? [])
    }
}
