import Foundation
import RunAnywhere

/// llama-server's sampler fields beyond top-k, top-p, min-p and the penalties, in its names and
/// with its defaults, as SillyTavern and other front ends send them to `/completion` and the
/// OpenAI routes: `typical_p` (1: off), `dynatemp_range` (0: off) and `dynatemp_exponent` (1),
/// `xtc_probability` (0: off) and `xtc_threshold` (0.1), `top_n_sigma` (0 or less: off),
/// `dry_multiplier` (0: off), `dry_base` (1.75; below 1, the default, as llama-server takes it),
/// `dry_allowed_length` (2), `dry_penalty_last_n` (64; -1: the whole context) and
/// `dry_sequence_breakers` (llama.cpp's), `mirostat` (0: off, 1 or 2), `mirostat_tau` (5) and
/// `mirostat_eta` (0.1). A value no sampler can honour is a 400 naming its field.
struct LlamaSamplerFields: Decodable, Sendable {
    /// The samplers the fields turn on (``RunAnywhere/LLMSampler``); empty when they turn none on.
    let samplers: [LLMSampler]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case typicalP = "typical_p", dynatempRange = "dynatemp_range", dynatempExponent = "dynatemp_exponent"
        case xtcProbability = "xtc_probability", xtcThreshold = "xtc_threshold", topNSigma = "top_n_sigma"
        case dryMultiplier = "dry_multiplier", dryBase = "dry_base", dryAllowedLength = "dry_allowed_length"
        case dryPenaltyLastN = "dry_penalty_last_n", drySequenceBreakers = "dry_sequence_breakers"
        case mirostat, mirostatTau = "mirostat_tau", mirostatEta = "mirostat_eta"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func real(_ key: CodingKeys) throws -> Float? { try container.decode(NumberField<Float>.self, forKey: key).wrappedValue }
        func whole(_ key: CodingKeys) throws -> Int? { try container.decode(NumberField<Int>.self, forKey: key).wrappedValue }
        var samplers: [LLMSampler] = []
        if let p = try real(.typicalP), p < 1 { samplers.append(.typical(p: p)) }
        if let range = try real(.dynatempRange), range != 0 {
            samplers.append(.dynamicTemperature(range: range, exponent: try real(.dynatempExponent) ?? 1))
        }
        if let probability = try real(.xtcProbability), probability != 0 {
            samplers.append(.xtc(probability: probability, threshold: try real(.xtcThreshold) ?? 0.1))
        }
        if let n = try real(.topNSigma), n > 0 { samplers.append(.topNSigma(n)) }
        if let multiplier = try real(.dryMultiplier), multiplier != 0 {
            let lastN = try whole(.dryPenaltyLastN) ?? 64
            guard lastN >= -1 else {
                throw APIError(
                    .badRequest, "dry_penalty_last_n must be -1 (the whole context) or 0 or more",
                    param: CodingKeys.dryPenaltyLastN.rawValue)
            }
            let breakers = try Self.breakers(in: container) ?? LLMSampler.drySequenceBreakers
            guard !breakers.isEmpty else {
                throw APIError(
                    .badRequest, "dry_sequence_breakers must be a non-empty array of strings",
                    param: CodingKeys.drySequenceBreakers.rawValue)
            }
            let base = try real(.dryBase).flatMap { $0 < 1 ? nil : $0 } ?? 1.75
            samplers.append(
                .dry(
                    multiplier: multiplier, base: base, allowedLength: try whole(.dryAllowedLength) ?? 2,
                    lastN: lastN == -1 ? nil : lastN, sequenceBreakers: breakers))
        }
        if let version = try whole(.mirostat), version != 0 {
            samplers.append(.mirostat(version: version, tau: try real(.mirostatTau) ?? 5, eta: try real(.mirostatEta) ?? 0.1))
        }
        for sampler in samplers {
            if let (setting, reason) = sampler.invalidSetting {
                let field = Self.fields[setting] ?? setting
                throw APIError(.badRequest, "\(field): \(reason)", param: field)
            }
        }
        self.samplers = samplers
    }

    /// `dry_sequence_breakers`: an array of strings, or that array written as a JSON string (as
    /// text-generation front ends keep it); nil when absent.
    private static func breakers(in container: KeyedDecodingContainer<CodingKeys>) throws -> [String]? {
        if let list = try container.decodeIfOfType([String].self, forKey: .drySequenceBreakers) { return list }
        if let text = try container.decodeIfOfType(String.self, forKey: .drySequenceBreakers),
            let list = try? JSONDecoder().decode([String].self, from: Data(text.utf8))
        {
            return list
        }
        guard try !container.contains(.drySequenceBreakers) || container.decodeNil(forKey: .drySequenceBreakers) else {
            throw APIError(
                .badRequest, "dry_sequence_breakers must be a non-empty array of strings",
                param: CodingKeys.drySequenceBreakers.rawValue)
        }
        return nil
    }

    /// Each sampler's setting (``RunAnywhere/LLMSampler``'s label) by the field that carries it.
    private static let fields = [
        "typical.p": "typical_p", "dynamicTemperature.range": "dynatemp_range", "dynamicTemperature.exponent": "dynatemp_exponent",
        "xtc.probability": "xtc_probability", "xtc.threshold": "xtc_threshold", "topNSigma.n": "top_n_sigma",
        "dry.multiplier": "dry_multiplier", "dry.base": "dry_base", "dry.allowedLength": "dry_allowed_length",
        "dry.lastN": "dry_penalty_last_n", "dry.sequenceBreakers": "dry_sequence_breakers", "mirostat.version": "mirostat",
        "mirostat.tau": "mirostat_tau", "mirostat.eta": "mirostat_eta",
    ]
}
