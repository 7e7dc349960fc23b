import CLlamaCpp
import RunAnywhere

extension LlamaContext {
    /// llama.cpp's grammar sampler for the GBNF `grammar` (root rule `root`) over this model's
    /// vocabulary; nil when llama.cpp cannot use it (its log says why).
    func grammarSampler(_ grammar: String) -> UnsafeMutablePointer<llama_sampler>? {
        library.api.llama_sampler_init_grammar(vocab, grammar, "root")
    }

    /// Throws ``RunAnywhere/ErrorCode/invalidInput`` with llama.cpp's reason when `grammar` does not parse
    /// (a syntax error, an undefined rule, left recursion, no `root`), before any generation.
    func checkGrammar(_ grammar: String) throws {
        let mark = library.logSink.mark()
        guard let sampler = grammarSampler(grammar) else {
            throw SDKError.llm(.invalidInput, library.logSink.explain("The grammar is not one llama.cpp can use", since: mark))
        }
        library.api.llama_sampler_free(sampler)
    }
}
