import CLlamaCpp
import Foundation
import RunAnywhere

/// A reranker running on llama.cpp's rank pooling: a cross-encoder (BERT, XLM-RoBERTa, JinaBERT
/// with a classifier head; or a decoder reranker such as Qwen3-Reranker) that reads a query and a
/// document as one sequence and scores it with the first output of its classifier.
///
/// A pair is built as llama.cpp's server builds it: with the model's rerank template
/// (`tokenizer.chat_template.rerank`, its `{query}` and `{document}` filled in) where the GGUF has
/// one, else as BOS, query, EOS, SEP, document, EOS, each special token where the vocabulary adds
/// it (BERT's `[CLS] query [SEP] document [SEP]`). The query's and the document's own text are
/// tokenized without parsing special tokens, so a document cannot forge the model's markers.
/// Pairs are packed into engine calls by ``LlamaPooledContext``: a pair scores the same alone and
/// in a batch up to float rounding.
final class LlamaRerankingService: RerankingService {
    private let pooled: LlamaPooledContext
    private let layout: Layout
    var contextLength: Int { pooled.contextLength }

    /// How the model's pairs are laid out.
    enum Layout: Sendable {
        /// The model's rerank template split at its `{document}`: the text before it and after it.
        case template(before: String, after: String)
        /// BOS, query, EOS, SEP, document, EOS, each where present.
        case special(bos: llama_token?, end: llama_token?, separator: llama_token?)
    }

    /// A service over `pooled`, a context made with rank pooling.
    init(pooled: LlamaPooledContext) throws {
        self.pooled = pooled
        let (api, llama) = (pooled.llama.library.api, pooled.llama)
        if let template = api.llama_model_chat_template(llama.model, "rerank").map({ String(cString: $0) }) {
            guard let marker = template.range(of: "{document}") else {
                throw SDKError.llm(.modelLoadFailed, "The model's rerank template has no {document} to put the document in")
            }
            layout = .template(before: String(template[..<marker.lowerBound]), after: String(template[marker.upperBound...]))
        } else {
            let vocab = llama.vocab
            let (eos, sep) = (api.llama_vocab_eos(vocab), api.llama_vocab_sep(vocab))
            let end = eos >= 0 ? eos : sep
            layout = .special(
                bos: api.llama_vocab_get_add_bos(vocab) ? api.llama_vocab_bos(vocab) : nil,
                end: api.llama_vocab_get_add_eos(vocab) && end >= 0 ? end : nil,
                separator: api.llama_vocab_get_add_sep(vocab) && sep >= 0 ? sep : nil
            )
        }
    }

    /// Waits for the call in progress, then frees the model and its context.
    func unload() async {
        await pooled.unload()
    }

    func rerank(query: String, documents: [String], options: RerankOptions, cancellation: CancellationFlag) async throws -> EngineRanking {
        let (layout, contextLength) = (layout, contextLength)
        let (scores, counts) = try await pooled.outputs(width: 1, threads: options.threads, what: "reranker", cancellation: cancellation) {
            llama in
            let (before, after) = try Self.frame(query, layout: layout, llama: llama)
            return try documents.indices.map { index in
                let document = try llama.tokenize(documents[index], addSpecial: false, parseSpecial: false)
                return try Self.pair(before, document, after, index: index, contextLength: contextLength, truncate: options.truncate)
            }
        }
        return EngineRanking(scores: scores.map { $0[0] }, tokenCounts: counts)
    }

    /// The tokens before and after the document in every pair of `query`.
    private static func frame(_ query: String, layout: Layout, llama: LlamaContext) throws -> (before: [llama_token], after: [llama_token])
    {
        switch layout {
        case .template(let before, let after):
            return (try filled(before, query: query, llama: llama), try filled(after, query: query, llama: llama))
        case .special(let bos, let end, let separator):
            let text = try llama.tokenize(query, addSpecial: false, parseSpecial: false)
            return ([bos].compactMap { $0 } + text + [end, separator].compactMap { $0 }, [end].compactMap { $0 })
        }
    }

    /// The tokens of template text `part` with `query` in place of each `{query}`: the template's
    /// own text with its special tokens parsed, the query's without.
    private static func filled(_ part: String, query: String, llama: LlamaContext) throws -> [llama_token] {
        var tokens: [llama_token] = []
        for (index, piece) in part.components(separatedBy: "{query}").enumerated() {
            if index > 0 { tokens += try llama.tokenize(query, addSpecial: false, parseSpecial: false) }
            if !piece.isEmpty { tokens += try llama.tokenize(piece, addSpecial: false, parseSpecial: true) }
        }
        return tokens
    }

    /// The pair `before` + `document` + `after`; one longer than `contextLength` has its document
    /// cut to fit with `truncate` and is refused otherwise, and one whose query leaves no room
    /// for any of the document is refused either way.
    private static func pair(
        _ before: [llama_token], _ document: [llama_token], _ after: [llama_token], index: Int, contextLength: Int, truncate: Bool
    ) throws -> [llama_token] {
        let frame = before.count + after.count
        guard frame + document.count > contextLength else { return before + document + after }
        guard frame < contextLength else {
            throw SDKError.llm(
                .contextTooLong,
                "The query takes \(frame) tokens with the model's special tokens; the model reads at most \(contextLength) per pair, which leaves no room for a document"
            )
        }
        guard truncate else {
            throw SDKError.llm(
                .contextTooLong,
                "Document \(index) makes a pair of \(frame + document.count) tokens with the query; the model reads at most \(contextLength) per pair (ask for truncation to cut the document to fit)"
            )
        }
        return before + document.prefix(contextLength - frame) + after
    }
}
