import Foundation
import RunAnywhere

/// How a Hugging Face BERT checkpoint's tensors become the ones llama.cpp's BERT loads: their
/// names (`encoder.layer.0.attention.self.query.weight` → `blk.0.attn_q.weight`), the shapes it
/// expects, and their types as llama.cpp's converter writes a bf16 file (matrices BF16; norms,
/// biases, position and token-type embeddings F32).
enum BertTensorMapping {
    /// A tensor llama.cpp's BERT loads: its name and shape in the checkpoint's order (outermost first).
    struct Target: Equatable {
        let name: String
        let shape: [Int]

        /// Whether it is stored as BF16: the 2-D weights but the position and token-type embeddings.
        var storedAsBFloat16: Bool {
            shape.count == 2 && name.hasSuffix(".weight") && !["position_embd.weight", "token_types.weight"].contains(name)
        }
    }

    /// Every tensor llama.cpp's BERT loads for `config`, in the order they are written.
    static func targets(for config: BertSourceConfiguration) -> [Target] {
        let (hidden, ff) = (config.hiddenSize, config.intermediateSize)
        func pair(_ name: String, _ shape: [Int]) -> [Target] {
            [Target(name: "\(name).weight", shape: shape), Target(name: "\(name).bias", shape: [shape[0]])]
        }
        var targets =
            [
                Target(name: "token_embd.weight", shape: [config.vocabularySize, hidden]),
                Target(name: "token_types.weight", shape: [config.tokenTypeCount, hidden]),
                Target(name: "position_embd.weight", shape: [config.positionCount, hidden]),
            ] + pair("token_embd_norm", [hidden])
        for layer in 0..<config.layerCount {
            for name in ["attn_q", "attn_k", "attn_v", "attn_output"] { targets += pair("blk.\(layer).\(name)", [hidden, hidden]) }
            targets += pair("blk.\(layer).attn_output_norm", [hidden])
            targets += pair("blk.\(layer).ffn_up", [ff, hidden]) + pair("blk.\(layer).ffn_down", [hidden, ff])
            targets += pair("blk.\(layer).layer_output_norm", [hidden])
        }
        return targets
    }

    /// llama.cpp's name for checkpoint tensor `source`, or nil for one it has no use for (the
    /// pooler, the pre-training heads, the position ids). A tensor of no known part of a BERT is
    /// ``RunAnywhere/ErrorCode/invalidModelFormat``.
    static func llamaName(of source: String) throws -> String? {
        var name = source.hasPrefix("bert.") ? String(source.dropFirst(5)) : source
        if name.hasSuffix(".gamma") { name = name.dropLast(6) + ".weight" }
        if name.hasSuffix(".beta") { name = name.dropLast(5) + ".bias" }
        if name == "embeddings.position_ids" || name.hasPrefix("pooler.") || name.hasPrefix("cls.") { return nil }
        let (stem, kind) =
            name.hasSuffix(".weight")
            ? (name.dropLast(7), "weight") : name.hasSuffix(".bias") ? (name.dropLast(5), "bias") : (name[...], "")
        let embeddings = [
            "embeddings.word_embeddings": "token_embd", "embeddings.token_type_embeddings": "token_types",
            "embeddings.position_embeddings": "position_embd", "embeddings.LayerNorm": "token_embd_norm",
        ]
        let layerParts = [
            "attention.self.query": "attn_q", "attention.self.key": "attn_k", "attention.self.value": "attn_v",
            "attention.output.dense": "attn_output", "attention.output.LayerNorm": "attn_output_norm",
            "intermediate.dense": "ffn_up", "output.dense": "ffn_down", "output.LayerNorm": "layer_output_norm",
        ]
        if !kind.isEmpty, let mapped = embeddings[String(stem)] { return "\(mapped).\(kind)" }
        let parts = stem.split(separator: ".", maxSplits: 3).map(String.init)
        if !kind.isEmpty, parts.count == 4, parts[0] == "encoder", parts[1] == "layer", let layer = Int(parts[2]), layer >= 0,
            let mapped = layerParts[parts[3]]
        {
            return "blk.\(layer).\(mapped).\(kind)"
        }
        throw SDKError.fileManagement(
            .invalidModelFormat, "model.safetensors has the tensor \(source), which is no part of a BERT model llama.cpp runs")
    }
}
