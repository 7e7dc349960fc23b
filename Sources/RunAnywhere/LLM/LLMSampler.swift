/// A sampler beyond top-k, top-p, min-p, temperature and the penalties: llama.cpp's others, as
/// llama-server's clients (SillyTavern, text-generation front ends) set them. However they are
/// listed, an engine applies them in llama.cpp's order: the logit bias and penalties, DRY,
/// top-nσ, top-k, typical, top-p, min-p, XTC, then the temperature (dynamic with
/// ``dynamicTemperature(range:exponent:)``) and the draw; ``mirostat(version:tau:eta:)`` instead
/// replaces everything after the penalties and DRY. At temperature 0 (greedy) only DRY of these
/// applies: the others choose among tokens, and greedy takes the best.
public enum LLMSampler: Codable, Sendable, Equatable {
    /// Locally typical sampling: keeps the tokens whose surprise is closest to the distribution's
    /// entropy, as many as add up to `p` (in (0, 1]; 1 keeps all).
    case typical(p: Float)
    /// The temperature moves with the distribution's entropy within `range` of the request's
    /// (`range` ≥ 0; 0: fixed), the higher the entropy the hotter, `exponent` (> 0) shaping how.
    case dynamicTemperature(range: Float, exponent: Float)
    /// Exclude top choices: at each token, with `probability` (0 to 1), removes every token at
    /// least `threshold` likely (0 to 1; above 0.5 nothing is removed) but the least likely of them.
    case xtc(probability: Float, threshold: Float)
    /// Top-nσ: keeps the tokens whose logit is within `n` standard deviations of the largest
    /// (n > 0).
    case topNSigma(Float)
    /// DRY ("don't repeat yourself"): a token that would make a repetition of the text so far
    /// longer than `allowedLength` tokens loses `multiplier · base^(length − allowedLength)` from
    /// its logit; repetitions are looked for in the last `lastN` tokens (nil: the whole context),
    /// and none runs across one of `sequenceBreakers` (llama.cpp's: newline, colon, quote, asterisk).
    case dry(multiplier: Float, base: Float, allowedLength: Int, lastN: Int?, sequenceBreakers: [String])
    /// Mirostat (`version` 1 or 2): chooses among the tokens so that the text's surprise stays
    /// near `tau`, learning at rate `eta`; it replaces top-k, top-p, min-p and the samplers above
    /// but DRY (the temperature still applies first).
    case mirostat(version: Int, tau: Float, eta: Float)

    /// llama.cpp's DRY sequence breakers, which llama-server uses when a request names none.
    public static let drySequenceBreakers = ["\n", ":", "\"", "*"]

    /// Which sampler this is, whatever its settings: a list holds each kind once.
    package var kind: String {
        switch self {
        case .typical: return "typical"
        case .dynamicTemperature: return "dynamicTemperature"
        case .xtc: return "xtc"
        case .topNSigma: return "topNSigma"
        case .dry: return "dry"
        case .mirostat: return "mirostat"
        }
    }

    /// The first setting no engine can honour: its name (the case's label, `xtc.threshold`) and
    /// why; nil when there is none.
    package var invalidSetting: (name: String, reason: String)? {
        func check(_ ok: Bool, _ setting: String, _ reason: @autoclosure () -> String) -> (name: String, reason: String)? {
            ok ? nil : ("\(kind).\(setting)", reason())
        }
        switch self {
        case .typical(let p):
            return check(p.isFinite && p > 0 && p <= 1, "p", "typical p must be in (0, 1] (got \(p))")
        case .dynamicTemperature(let range, let exponent):
            return check(range.isFinite && range >= 0, "range", "the dynamic temperature's range must be 0 or more (got \(range))")
                ?? check(
                    exponent.isFinite && exponent > 0, "exponent",
                    "the dynamic temperature's exponent must be more than 0 (got \(exponent))")
        case .xtc(let probability, let threshold):
            return check(
                probability.isFinite && (0...1).contains(probability), "probability",
                "XTC's probability must be between 0 and 1 (got \(probability))")
                ?? check(
                    threshold.isFinite && (0...1).contains(threshold), "threshold",
                    "XTC's threshold must be between 0 and 1 (got \(threshold))")
        case .topNSigma(let n):
            return check(n.isFinite && n > 0, "n", "top-nσ's n must be more than 0 (got \(n))")
        case .dry(let multiplier, let base, let allowedLength, let lastN, let breakers):
            return check(multiplier.isFinite && multiplier >= 0, "multiplier", "DRY's multiplier must be 0 or more (got \(multiplier))")
                ?? check(base.isFinite && base >= 1, "base", "DRY's base must be 1 or more (got \(base))")
                ?? check(allowedLength >= 0, "allowedLength", "DRY's allowed length must be 0 or more (got \(allowedLength))")
                ?? check(
                    (lastN ?? 0) >= 0, "lastN", "DRY's last n must be 0 or more, or none for the whole context (got \(lastN ?? 0))")
                ?? check(
                    !breakers.contains { $0.isEmpty || $0.utf8.contains(0) }, "sequenceBreakers",
                    "DRY's sequence breakers must not be empty or hold a NUL character")
        case .mirostat(let version, let tau, let eta):
            return check(version == 1 || version == 2, "version", "Mirostat's version must be 1 or 2 (got \(version))")
                ?? check(tau.isFinite && tau >= 0, "tau", "Mirostat's tau must be 0 or more (got \(tau))")
                ?? check(eta.isFinite && eta > 0, "eta", "Mirostat's eta must be more than 0 (got \(eta))")
        }
    }
}

extension [LLMSampler] {
    /// Why no engine can honour this list (a kind twice, or settings out of range), or nil.
    package var invalidity: String? {
        if let repeated = Dictionary(grouping: self, by: \.kind).first(where: { $0.value.count > 1 })?.key {
            return "the samplers list \(repeated) twice"
        }
        return lazy.compactMap(\.invalidSetting?.reason).first
    }
}
