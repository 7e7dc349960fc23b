import CLlamaCpp
import Foundation
import Logging
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereLlamaCpp

/// The scheduler's sampler reads a logit row once: its greedy choice, its top-k selection, and a
/// seeded top-k draw must be exactly what llama.cpp's own samplers choose from the whole row.
extension LlamaTests {
    @Suite struct TokenSampler {
        /// Rows of the default model's vocabulary size and of awkward sizes, seeded, with ties
        /// (values rounded to a few levels) in every other one.
        static func rows() -> [[Float]] {
            var generator = SeededGenerator(seed: 48)
            return [49_152, 1, 15, 16, 17, 40, 41, 1000, 4099].enumerated().map { index, count in
                (0..<count).map { _ in
                    let value = Float.random(in: -20...20, using: &generator)
                    return index.isMultiple(of: 2) ? value.rounded() : value
                }
            }
        }

        /// Runs `body` at each level of instructions this CPU runs (SSE2, AVX2, AVX-512), which
        /// must all give the same answers, then goes back to the best.
        static func atEveryLevel(_ body: (ra_logits_level) -> Void) {
            defer { _ = ra_logits_set_level(ra_logits_best_level()) }
            for raw in ra_logits_level.RawValue(0)...ra_logits_best_level().rawValue {
                let level = ra_logits_level(rawValue: raw)
                #expect(ra_logits_set_level(level))
                body(level)
            }
        }

        /// Rows whose best entries sit where a vectorized pass could miss them: rising and falling
        /// rows (every block beats the last, or none does), the largest in the last, partial
        /// block, and rows with NaNs and -infinity. Then rows that the histogram of block maxima
        /// must get right: one far outlier (every other block in its lowest bin), all equal, an
        /// infinite entry, a range too small to divide, and a grammar's row (-infinity but for a
        /// few hundred entries).
        static func awkwardRows() -> [[Float]] {
            var generator = SeededGenerator(seed: 49)
            var nans = (0..<4099).map { Float($0 % 97) }
            for i in stride(from: 5, to: nans.count, by: 7) { nans[i] = .nan }
            var ruledOut = (0..<1000).map { _ in -Float.infinity }
            ruledOut[999] = 1
            ruledOut[500] = 1
            var outlier = (0..<49_152).map { _ in Float.random(in: -2...2, using: &generator) }
            outlier[7_000] = 1e30
            var infinite = (0..<49_152).map { _ in Float.random(in: -2...2, using: &generator) }
            infinite[30_000] = .infinity
            var grammar = (0..<49_152).map { _ in -Float.infinity }
            for _ in 0..<300 { grammar[Int.random(in: 0..<49_152, using: &generator)] = Float.random(in: -5...5, using: &generator) }
            return [
                (0..<49_152).map { Float($0) }, (0..<49_152).map { -Float($0) },
                (0..<4099).map { $0 >= 4096 ? 100 : Float($0 % 50) }, nans, ruledOut,
                outlier, Array(repeating: 3, count: 49_152), infinite,
                (0..<49_152).map { $0.isMultiple(of: 3) ? Float.leastNonzeroMagnitude : 0 }, grammar,
            ]
        }

        @Test func greedyTakesTheFirstLargestEntry() {
            Self.atEveryLevel { level in
                for row in Self.rows() + Self.awkwardRows() {
                    let expected = row.indices.reduce(0) { row[$1] > row[$0] ? $1 : $0 }
                    let chosen = row.withUnsafeBufferPointer { LlamaTokenSampler.argmax($0.baseAddress!, count: row.count) }
                    #expect(Int(chosen) == expected, "\(row.count) entries, level \(level.rawValue)")
                }
            }
        }

        @Test func topKKeepsTheKLargestEntriesAndOfEqualsTheLowestTokens() {
            Self.atEveryLevel { level in
                for row in Self.rows() + Self.awkwardRows() {
                    for k in [1, 2, 16, 40, 100] where k < row.count {
                        // NaNs are never kept; -infinity (a token ruled out) is, after every finite entry.
                        let expected = Set(
                            row.indices.filter { !row[$0].isNaN }.sorted { row[$0] != row[$1] ? row[$0] > row[$1] : $0 < $1 }.prefix(k)
                                .map { llama_token($0) })
                        var heap: [llama_token_data] = []
                        row.withUnsafeBufferPointer { LlamaTokenSampler.best(k, of: $0.baseAddress!, count: row.count, into: &heap) }
                        #expect(Set(heap.map(\.id)) == expected, "k \(k) of \(row.count), level \(level.rawValue)")
                        #expect(heap.allSatisfy { row[Int($0.id)] == $0.logit })
                    }
                }
            }
        }

        /// The normalizer of log-probabilities is log(sum(exp(x))) over the row's entries that are
        /// not NaN, as a plain pass in double computes it, at every level.
        @Test func logSumExpIsThePlainSumOverTheRow() {
            Self.atEveryLevel { level in
                for row in Self.rows() + Self.awkwardRows() {
                    let finite = row.filter { !$0.isNaN }.map(Double.init)
                    let largest = finite.max() ?? -.infinity
                    let expected =
                        largest.isFinite ? largest + log(finite.reduce(0) { $0 + ($1 == -.infinity ? 0 : exp($1 - largest)) }) : largest
                    let total = row.withUnsafeBufferPointer { ra_logits_log_sum_exp($0.baseAddress!, row.count) }
                    if expected.isFinite {
                        #expect(abs(total - expected) <= 1e-6 * max(1, abs(expected)), "\(row.count) entries, level \(level.rawValue)")
                    } else {
                        #expect(total == expected, "\(row.count) entries, level \(level.rawValue)")
                    }
                }
            }
        }

        /// llama.cpp's own sampler chain for `sampling` over rows of `count` tokens, in llama.cpp's
        /// order: logit bias, penalties, then greedy, or top-k, top-p, min-p, temperature and a seeded draw.
        static func llamaChain(_ sampling: LLMSampling, count: Int, api: ra_llama_api) throws -> UnsafeMutablePointer<llama_sampler> {
            let chain = api.llama_sampler_chain_init(api.llama_sampler_chain_default_params())!
            let biases = (sampling.logitBias ?? [:]).map { llama_logit_bias(token: $0.key, bias: $0.value) }
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_logit_bias(Int32(count), Int32(biases.count), biases))
            api.llama_sampler_chain_add(
                chain,
                api.llama_sampler_init_penalties(
                    Int32(count), Int32(sampling.penaltyWindow), sampling.repeatPenalty ?? 1, sampling.frequencyPenalty ?? 0,
                    sampling.presencePenalty ?? 0))
            if sampling.temperature <= 0 {
                api.llama_sampler_chain_add(chain, api.llama_sampler_init_greedy())
                return chain
            }
            if sampling.topK > 0 { api.llama_sampler_chain_add(chain, api.llama_sampler_init_top_k(Int32(sampling.topK))) }
            if sampling.topP < 1 { api.llama_sampler_chain_add(chain, api.llama_sampler_init_top_p(sampling.topP, 1)) }
            if let minP = sampling.minP { api.llama_sampler_chain_add(chain, api.llama_sampler_init_min_p(minP, 1)) }
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_temp(sampling.temperature))
            api.llama_sampler_chain_add(chain, api.llama_sampler_init_dist(try #require(sampling.seed)))
            return chain
        }

        /// The token `chain` draws over the whole of `row`, which it then accepts.
        static func llamaDraw(_ chain: UnsafeMutablePointer<llama_sampler>, over row: [Float], api: ra_llama_api) -> llama_token {
            var all = row.indices.map { llama_token_data(id: llama_token($0), logit: row[$0], p: 0) }
            let token = all.withUnsafeMutableBufferPointer { buffer in
                var array = llama_token_data_array(data: buffer.baseAddress, size: buffer.count, selected: -1, sorted: false)
                api.llama_sampler_apply(chain, &array)
                return array.data[Int(array.selected)].id
            }
            api.llama_sampler_accept(chain, token)
            return token
        }

        /// Draws 120 tokens with our sampler for `sampling` and with llama.cpp's chain `theirs`
        /// (which it frees), each over the next row of `count` entries `rows` makes, both having
        /// seen `prompt`; expects the same token each time and returns ours.
        static func drawBoth(
            _ sampling: LLMSampling, against theirs: UnsafeMutablePointer<llama_sampler>, prompt: [llama_token], api: ra_llama_api,
            count: Int, rows: () -> [Float]
        ) -> [llama_token] {
            let ours = LlamaTokenSampler(sampling, prompt: prompt, api: api, vocab: nil, vocabularySize: count, contextLength: 4096)
            defer {
                ours.free()
                api.llama_sampler_free(theirs)
            }
            for token in prompt where token >= 0 { api.llama_sampler_accept(theirs, token) }
            var chosenTokens: [llama_token] = []
            for draw in 0..<120 {
                let row = rows()
                let chosen = row.withUnsafeBufferPointer { ours.sample($0.baseAddress!, count: count) }
                ours.accept(chosen)
                #expect(chosen == Self.llamaDraw(theirs, over: row, api: api), "\(sampling), draw \(draw)")
                chosenTokens.append(chosen)
            }
            return chosenTokens
        }

        /// A seeded draw among the row's top k is llama.cpp's draw over the whole row with the
        /// same chain and seed, draw after draw.
        @Test func aSeededDrawIsLlamaCppsDrawOverTheWholeRow() throws {
            let api = try LlamaLibrary.load(logger: Logger(label: "test")).api
            for sampling in [
                LLMSampling(temperature: 0.8, topP: 0.9, topK: 40, seed: 7), LLMSampling(temperature: 1.5, topP: 1, topK: 5, seed: 1),
                LLMSampling(temperature: 0.7, topP: 0.5, topK: 0, seed: 3), LLMSampling(temperature: 0, topP: 1, topK: 40, seed: nil),
            ] {
                let ours = LlamaTokenSampler(sampling, prompt: [], api: api, vocab: nil, vocabularySize: 4099, contextLength: 4096)
                defer { ours.free() }
                let theirs = try Self.llamaChain(sampling, count: 4099, api: api)
                defer { api.llama_sampler_free(theirs) }
                var generator = SeededGenerator(seed: 11)
                for draw in 0..<200 {
                    // Distinct values: with equals at the k-th place, which of them a top-k keeps is llama.cpp's own choice.
                    let row = (0..<4099).map { _ in Float.random(in: -8...8, using: &generator) }
                    let chosen = row.withUnsafeBufferPointer { ours.sample($0.baseAddress!, count: row.count) }
                    #expect(chosen == Self.llamaDraw(theirs, over: row, api: api), "\(sampling), draw \(draw)")
                }
            }
        }

        /// With a logit bias, penalties on the last tokens (the prompt's first) and min-p, greedy
        /// and seeded draws are llama.cpp's over the whole row with its own logit-bias and
        /// penalties samplers first, draw after draw. The rows vary a little around one row, so
        /// the same tokens lead again and again and the penalties decide.
        @Test func biasPenaltiesAndMinPAreLlamaCppsOverTheWholeRow() throws {
            let api = try LlamaLibrary.load(logger: Logger(label: "test")).api
            let count = 4099
            var generator = SeededGenerator(seed: 23)
            let base = (0..<count).map { _ in Float.random(in: -6...6, using: &generator) }
            let leaders = base.indices.sorted { base[$0] > base[$1] }.prefix(12).map { llama_token($0) }
            let bias: [Int32: Float] = [leaders[0]: -100, leaders[5]: 2.5, 4000: 7, 17: -3]
            let prompt = Array(leaders.prefix(4)) + [-5, 9, 9, 300]  // -5: an image's placeholder, never a token
            for sampling in [
                LLMSampling(temperature: 0, topP: 1, topK: 40, seed: nil, repeatPenalty: 1.3, presencePenalty: 0.5, logitBias: bias),
                LLMSampling(temperature: 0, topP: 1, topK: 40, seed: nil, frequencyPenalty: 0.4, penaltyLastN: 5),
                LLMSampling(
                    temperature: 0.9, topP: 0.95, topK: 8, seed: 5, minP: 0.05, repeatPenalty: 1.1, frequencyPenalty: 0.3,
                    presencePenalty: 0.2, penaltyLastN: 16, logitBias: bias),
                LLMSampling(temperature: 0.7, topP: 1, topK: 0, seed: 9, minP: 0.1, presencePenalty: 1, logitBias: bias),
                LLMSampling(temperature: 1.2, topP: 1, topK: 3, seed: 2, logitBias: [leaders[11]: 100]),
            ] {
                let theirs = try Self.llamaChain(sampling, count: count, api: api)
                let chosenTokens = Self.drawBoth(sampling, against: theirs, prompt: prompt, api: api, count: count) {
                    base.map { $0 + Float.random(in: -0.3...0.3, using: &generator) }
                }
                if sampling.logitBias?[leaders[0]] == -100 { #expect(!chosenTokens.contains(leaders[0]), "a -100 bias bans the token") }
                if sampling.logitBias?[leaders[11]] == 100 {
                    #expect(chosenTokens.allSatisfy { $0 == leaders[11] }, "a 100 bias forces it")
                }
                #expect(
                    Set(chosenTokens).count > 1 || sampling.logitBias?[leaders[11]] == 100, "the penalties move the choice: \(sampling)")
            }
        }

        /// llama-server's chain, wholly llama.cpp's, for `sampling` with its other samplers: the
        /// logit bias, penalties and DRY, then greedy, or Mirostat after the temperature, or top-nσ,
        /// top-k, typical, top-p, min-p, XTC, the (dynamic) temperature and a seeded draw.
        static func llamaServerChain(_ sampling: LLMSampling, count: Int, api: ra_llama_api) throws -> UnsafeMutablePointer<llama_sampler> {
            let chain = api.llama_sampler_chain_init(api.llama_sampler_chain_default_params())!
            func add(_ sampler: UnsafeMutablePointer<llama_sampler>?) { api.llama_sampler_chain_add(chain, sampler) }
            let biases = (sampling.logitBias ?? [:]).map { llama_logit_bias(token: $0.key, bias: $0.value) }
            add(api.llama_sampler_init_logit_bias(Int32(count), Int32(biases.count), biases))
            add(
                api.llama_sampler_init_penalties(
                    Int32(count), Int32(sampling.penaltyWindow), sampling.repeatPenalty ?? 1, sampling.frequencyPenalty ?? 0,
                    sampling.presencePenalty ?? 0))
            for case .dry(let multiplier, let base, let allowed, let lastN, _) in sampling.samplers {
                add(api.llama_sampler_init_dry(nil, multiplier, base, Int32(allowed), Int32(lastN ?? 4096), nil, 0))
            }
            if sampling.temperature <= 0 {
                add(api.llama_sampler_init_greedy())
                return chain
            }
            let seed = try #require(sampling.seed)
            for case .mirostat(let version, let tau, let eta) in sampling.samplers {
                add(api.llama_sampler_init_temp(sampling.temperature))
                add(
                    version == 1
                        ? api.llama_sampler_init_mirostat(Int32(count), seed, tau, eta, 100)
                        : api.llama_sampler_init_mirostat_v2(seed, tau, eta))
                return chain
            }
            for case .topNSigma(let n) in sampling.samplers { add(api.llama_sampler_init_top_n_sigma(n)) }
            if sampling.topK > 0 { add(api.llama_sampler_init_top_k(Int32(sampling.topK))) }
            for case .typical(let p) in sampling.samplers { add(api.llama_sampler_init_typical(p, 1)) }
            if sampling.topP < 1 { add(api.llama_sampler_init_top_p(sampling.topP, 1)) }
            if let minP = sampling.minP { add(api.llama_sampler_init_min_p(minP, 1)) }
            for case .xtc(let probability, let threshold) in sampling.samplers {
                add(api.llama_sampler_init_xtc(probability, threshold, 1, seed))
            }
            var range: Float = 0
            var exponent: Float = 1
            for case .dynamicTemperature(let r, let e) in sampling.samplers { (range, exponent) = (r, e) }
            add(api.llama_sampler_init_temp_ext(sampling.temperature, range, exponent))
            add(api.llama_sampler_init_dist(seed))
            return chain
        }

        /// With llama.cpp's other samplers (typical, XTC, dynamic temperature, top-nσ, Mirostat 1
        /// and 2, DRY, alone and together, with penalties), greedy and seeded draws are llama-server's
        /// chain's over the whole row, draw after draw; rows vary a little around one row, so the
        /// same tokens lead again and again and DRY finds repetitions to penalize.
        @Test func otherSamplersAreLlamaServersChainOverTheWholeRow() throws {
            let api = try LlamaLibrary.load(logger: Logger(label: "test")).api
            let count = 4099
            var generator = SeededGenerator(seed: 31)
            let base = (0..<count).map { _ in Float.random(in: -6...6, using: &generator) }
            let leaders = base.indices.sorted { base[$0] > base[$1] }.prefix(4).map { llama_token($0) }
            let prompt = leaders + leaders + [-5, 9, 300]
            let dry = LLMSampler.dry(multiplier: 0.8, base: 1.75, allowedLength: 2, lastN: 32, sequenceBreakers: [])
            for sampling in [
                LLMSampling(
                    temperature: 0.9, topP: 0.95, topK: 40, seed: 4, samplers: [.typical(p: 0.8), .xtc(probability: 0.5, threshold: 0.05)]),
                LLMSampling(
                    temperature: 1.1, topP: 1, topK: 20, seed: 8, minP: 0.02, samplers: [.dynamicTemperature(range: 0.5, exponent: 1.5)]),
                LLMSampling(temperature: 0.8, topP: 1, topK: 40, seed: 6, samplers: [.topNSigma(1.5)]),
                LLMSampling(temperature: 0.8, topP: 1, topK: 40, seed: 3, samplers: [.mirostat(version: 1, tau: 4, eta: 0.2)]),
                LLMSampling(
                    temperature: 0.8, topP: 1, topK: 40, seed: 5, repeatPenalty: 1.2, samplers: [.mirostat(version: 2, tau: 3, eta: 0.1)]),
                LLMSampling(temperature: 0, topP: 1, topK: 40, seed: nil, samplers: [dry]),
                LLMSampling(
                    temperature: 0.7, topP: 0.9, topK: 10, seed: 2, presencePenalty: 0.3,
                    samplers: [
                        .xtc(probability: 1, threshold: 0.1),
                        .dry(multiplier: 2, base: 2, allowedLength: 1, lastN: nil, sequenceBreakers: []),
                    ]),
            ] {
                let theirs = try Self.llamaServerChain(sampling, count: count, api: api)
                let chosenTokens = Self.drawBoth(sampling, against: theirs, prompt: prompt, api: api, count: count) {
                    var row = base.map { $0 + Float.random(in: -0.3...0.3, using: &generator) }
                    // Greedy alone would take the leader every time: only DRY can move it.
                    if sampling.temperature == 0 { row[Int(leaders[0])] += 2 }
                    return row
                }
                if sampling.temperature == 0 {
                    #expect(Set(chosenTokens).count > 1, "DRY moves greedy's choice off a repetition")
                }
            }
        }
    }
}
