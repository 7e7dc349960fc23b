import Foundation
import RunAnywhere

extension GGUFWriter {
    /// The words the reranker fixture's vocabulary holds whole; any other lowercase word or number
    /// is spelled from its letters and digits.
    package static let rerankerFixtureWords = [
        "the", "is", "of", "on", "in", "what", "where", "cat", "cats", "dog", "sat", "mat", "sleeps", "capital", "city",
        "paris", "france", "river", "train", "tea", "rain",
    ]

    /// A generated fixture, not a trained model: a tiny cross-encoder in llama.cpp's BERT layout
    /// with random weights (seeded: the same `seed` gives the same bytes), so its scores are noise,
    /// not relevance. It has what llama.cpp's rank pooling needs of a reranker: `pooling_type`
    /// 4 (rank; `pooling` overrides it), the classifier head (`cls` and `cls.output`, left out
    /// without `classifier`) that turns the `[CLS]` state into one score, and a WordPiece
    /// vocabulary (special tokens, ``rerankerFixtureWords``, letters, digits, punctuation);
    /// `rerankTemplate` becomes its `tokenizer.chat_template.rerank`. 2 layers of width 16, a
    /// context of `context` tokens, all F32.
    package static func rerankerFixture(
        seed: UInt64 = 1, context: Int = 128, pooling: UInt32 = 4, classifier: Bool = true, rerankTemplate: String? = nil
    ) -> GGUFWriter {
        let (hidden, feedForward, layers) = (16, 32, 2)
        let special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        let letters = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) } + (0...9).map(String.init)
        let punctuation = [".", ",", "?", "!", "'", "-"]
        // llama.cpp's WordPiece form: a word-initial piece starts with ▁, a continuation has no ##.
        let tokens = special + (rerankerFixtureWords + letters + punctuation).map { "▁" + $0 } + letters
        let types = tokens.indices.map { Int32($0 < special.count ? 3 : 1) }
        var metadata: [(String, Value)] = [
            ("general.architecture", .string("bert")), ("general.name", .string("Reranker fixture (random weights)")),
            ("general.file_type", .u32(0)), ("bert.context_length", .u32(UInt32(context))), ("bert.embedding_length", .u32(UInt32(hidden))),
            ("bert.feed_forward_length", .u32(UInt32(feedForward))), ("bert.block_count", .u32(UInt32(layers))),
            ("bert.attention.head_count", .u32(2)), ("bert.attention.layer_norm_epsilon", .f32(1e-12)),
            ("bert.attention.causal", .bool(false)),
            ("bert.pooling_type", .u32(pooling)),
            ("tokenizer.ggml.model", .string("bert")), ("tokenizer.ggml.tokens", .strings(tokens)),
            ("tokenizer.ggml.token_type", .i32s(types)),
            ("tokenizer.ggml.token_type_count", .u32(2)), ("tokenizer.ggml.bos_token_id", .u32(2)),
            ("tokenizer.ggml.eos_token_id", .u32(3)),
            ("tokenizer.ggml.unknown_token_id", .u32(1)), ("tokenizer.ggml.seperator_token_id", .u32(3)),
            ("tokenizer.ggml.padding_token_id", .u32(0)),
            ("tokenizer.ggml.mask_token_id", .u32(4)), ("tokenizer.ggml.cls_token_id", .u32(2)),
            ("tokenizer.ggml.add_bos_token", .bool(true)),
            ("tokenizer.ggml.add_eos_token", .bool(true)), ("tokenizer.ggml.add_sep_token", .bool(false)),
            ("tokenizer.ggml.normalizer.lowercase", .bool(true)),
        ]
        if classifier { metadata.append(("bert.classifier.output_labels", .strings(["relevance"]))) }
        if let rerankTemplate { metadata.append(("tokenizer.chat_template.rerank", .string(rerankTemplate))) }
        var random = SeededGenerator(seed: seed)
        func tensor(_ name: String, _ shape: [Int], around center: Float = 0, spread: Float = 0.5) -> Tensor {
            let values = (0..<shape.reduce(1, *)).map { _ in center + Float.random(in: -spread...spread, using: &random) }
            return Tensor(name: name, shape: shape.map(UInt64.init), type: 0, data: values.withUnsafeBytes { Data($0) })
        }
        // A layer norm: weights near 1, small biases.
        func norm(_ name: String) -> [Tensor] {
            [tensor("\(name).weight", [hidden], around: 1, spread: 0.1), tensor("\(name).bias", [hidden], spread: 0.1)]
        }
        func linear(_ name: String, _ input: Int, _ output: Int) -> [Tensor] {
            [tensor("\(name).weight", [input, output]), tensor("\(name).bias", [output], spread: 0.1)]
        }
        var tensors = [
            tensor("token_embd.weight", [hidden, tokens.count]), tensor("token_types.weight", [hidden, 2]),
            tensor("position_embd.weight", [hidden, context]),
        ]
        tensors += norm("token_embd_norm")
        for layer in 0..<layers {
            for part in ["attn_q", "attn_k", "attn_v", "attn_output"] { tensors += linear("blk.\(layer).\(part)", hidden, hidden) }
            tensors += norm("blk.\(layer).attn_output_norm")
            tensors += linear("blk.\(layer).ffn_up", hidden, feedForward) + linear("blk.\(layer).ffn_down", feedForward, hidden)
            tensors += norm("blk.\(layer).layer_output_norm")
        }
        if classifier { tensors += linear("cls", hidden, hidden) + linear("cls.output", hidden, 1) }
        return GGUFWriter(metadata: metadata, tensors: tensors)
    }
}
