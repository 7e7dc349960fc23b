import CLlamaCpp
import Foundation
import RunAnywhere

/// A text-embedding model running on llama.cpp: BERT-style encoders (all-MiniLM, bge, e5,
/// nomic-embed) and decoder embedding models, each pooled as its GGUF says.
///
/// Each text is a sequence of its own (tokenized with the model's special tokens, such as BERT's
/// `[CLS]` and `[SEP]`), packed into engine calls by ``LlamaPooledContext``. A text's vector does
/// not depend on the texts beside it beyond float rounding: alone and in a batch, the cosine
/// between the two is above 0.9999, but the numbers are not bit-identical.
final class LlamaEmbeddingService: EmbeddingService {
    private let pooled: LlamaPooledContext
    /// The special tokens the model adds after a text (BERT's `[SEP]`), kept when a text is truncated.
    private let specialSuffix: [llama_token]
    let dimensions: Int
    var contextLength: Int { pooled.contextLength }

    /// A service over `pooled`, a context made with an embedding pooling (mean, CLS, last).
    init(pooled: LlamaPooledContext) throws {
        self.pooled = pooled
        let llama = pooled.llama
        self.dimensions = Int(llama.library.api.llama_model_n_embd_out(llama.model))
        // What follows a one-word text's own tokens is what the model adds after every text.
        let full = try llama.tokenize("a", addSpecial: true)
        let plain = try llama.tokenize("a", addSpecial: false)
        let start = (0...max(0, full.count - plain.count)).first { full.dropFirst($0).starts(with: plain) }
        self.specialSuffix = start.map { Array(full.dropFirst($0 + plain.count)) } ?? []
        guard dimensions > 0, pooled.contextLength > specialSuffix.count + 1 else {
            throw SDKError.llm(
                .modelLoadFailed,
                "llama.cpp made a context of \(pooled.contextLength) tokens with \(dimensions)-dimensional embeddings for this model")
        }
    }

    /// Waits for the call in progress, then frees the model and its context.
    func unload() async {
        await pooled.unload()
    }

    func embed(_ texts: [String], options: EmbeddingOptions, cancellation: CancellationFlag) async throws -> EngineEmbeddings {
        let (contextLength, suffix) = (contextLength, specialSuffix)
        let (vectors, counts) = try await pooled.outputs(
            width: dimensions, threads: options.threads, what: "embedding model", cancellation: cancellation
        ) { llama in
            try texts.indices.map {
                try Self.tokenize(
                    texts[$0], index: $0, llama: llama, contextLength: contextLength, suffix: suffix, truncate: options.truncate)
            }
        }
        return EngineEmbeddings(vectors: vectors, tokenCounts: counts)
    }

    /// The tokens of the text at `index`, with the model's special tokens; one longer than
    /// `contextLength` is cut to fit (keeping the special tokens at its end, `suffix`) with
    /// `truncate`, and refused otherwise.
    private static func tokenize(
        _ text: String, index: Int, llama: LlamaContext, contextLength: Int, suffix: [llama_token], truncate: Bool
    ) throws -> [llama_token] {
        let tokens = try llama.tokenize(text, addSpecial: true)
        guard tokens.count > contextLength else { return tokens }
        guard truncate else {
            throw SDKError.llm(
                .contextTooLong,
                "Text \(index) has \(tokens.count) tokens; the model reads at most \(contextLength) per text (ask for truncation to cut it to fit)"
            )
        }
        return Array(tokens.prefix(contextLength - suffix.count)) + suffix
    }
}
