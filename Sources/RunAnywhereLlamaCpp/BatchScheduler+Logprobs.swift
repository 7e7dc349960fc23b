import CLlamaCpp
import RunAnywhere

extension BatchScheduler {
    /// `token`'s log-probability under the model, with the `top` likeliest tokens': the softmax
    /// of the whole logit row `row`, before anything the sampler changes (as llama-server and
    /// ollama report it). `bytes` is the token's text as the answer shows it; the alternatives'
    /// control tokens are written out (`<|im_end|>`), as nothing would tell them apart.
    func logprob(of token: llama_token, bytes: [UInt8], in row: UnsafePointer<Float>, top: Int) -> TokenLogprob {
        let total = ra_logits_log_sum_exp(row, vocabularySize)
        func logprob(_ id: llama_token) -> Float {
            let value = Float(Double(row[Int(id)]) - total)
            return value.isFinite ? max(value, TokenLogprob.leastLogprob) : TokenLogprob.leastLogprob
        }
        var best: [llama_token_data] = []
        if top > 0 { LlamaTokenSampler.best(min(top, vocabularySize), of: row, count: vocabularySize, into: &best) }
        best.sort { $0.logit > $1.logit || ($0.logit == $1.logit && $0.id < $1.id) }
        return TokenLogprob(
            id: token, bytes: bytes, logprob: logprob(token),
            topLogprobs: best.map { TokenLogprob(id: $0.id, bytes: llama.piece($0.id, special: true), logprob: logprob($0.id)) })
    }

    /// The most prompt tokens read in one decode call when the prompt's log-probabilities are
    /// asked for: each has a logit row then, and llama.cpp keeps the largest output buffer a
    /// context ever needed (64 rows of a 152k vocabulary: 39 MB).
    static let scoredChunk = 64

    /// The log-probabilities of the prompt tokens that the batch's `count` outputs, read from
    /// position `start`, predict: each row gives the next token's, up to the prompt's last; nil
    /// when llama.cpp has no row for one of them.
    func promptLogprobs(after start: Int, count: Int, of generation: LlamaGeneration, top: Int) -> [TokenLogprob]? {
        let tokens = generation.prompt.tokens
        var logprobs: [TokenLogprob] = []
        for output in 0..<count where start + output + 1 < tokens.count {
            let next = tokens[start + output + 1]
            guard let row = api.llama_get_logits_ith(llama.context, Int32(output)) else { return nil }
            logprobs.append(logprob(of: next, bytes: llama.piece(next, special: true), in: row, top: top))
        }
        return logprobs
    }
}
