import Foundation

/// Which CTranslate2 variable becomes which whisper.cpp tensor. CTranslate2 fuses the self-
/// attention query, key and value into one matrix (rows 0..<d, d..<2d, 2d..<3d) and cross-
/// attention key and value into another; whisper.cpp keeps them apart and has no key biases
/// (CTranslate2 stores zeros there, which are dropped).
enum TensorMapping {
    static func tensors(of model: CTranslate2Model, state d: Int) throws -> [GGMLTensor] {
        func v(_ name: String) throws -> CTranslate2Model.Variable { try model.variable(name) }
        func matrix(_ name: String, _ source: String, rows: Range<Int>? = nil) throws -> GGMLTensor {
            let variable = try v(source)
            let shape = [rows?.count ?? variable.shape.first ?? 1] + variable.shape.dropFirst()
            return GGMLTensor(name: name, shape: shape, half: true, source: variable, rows: rows)
        }
        func vector(_ name: String, _ source: String, rows: Range<Int>? = nil, shape: [Int]? = nil) throws -> GGMLTensor {
            let variable = try v(source)
            return GGMLTensor(
                name: name, shape: shape ?? [rows?.count ?? variable.shape.reduce(1, *)], half: false, source: variable, rows: rows)
        }
        func norm(_ name: String, _ source: String) throws -> [GGMLTensor] {
            [try vector("\(name).weight", "\(source)/gamma"), try vector("\(name).bias", "\(source)/beta")]
        }
        func linear(_ name: String, _ source: String) throws -> [GGMLTensor] {
            [try matrix("\(name).weight", "\(source)/weight"), try vector("\(name).bias", "\(source)/bias")]
        }
        func selfAttention(_ block: String, _ layer: String) throws -> [GGMLTensor] {
            let fused = "\(layer)/self_attention/linear_0"
            return [
                try matrix("\(block).attn.query.weight", "\(fused)/weight", rows: 0..<d),
                try vector("\(block).attn.query.bias", "\(fused)/bias", rows: 0..<d),
                try matrix("\(block).attn.key.weight", "\(fused)/weight", rows: d..<2 * d),
                try matrix("\(block).attn.value.weight", "\(fused)/weight", rows: 2 * d..<3 * d),
                try vector("\(block).attn.value.bias", "\(fused)/bias", rows: 2 * d..<3 * d),
            ] + (try linear("\(block).attn.out", "\(layer)/self_attention/linear_1"))
                + (try norm("\(block).attn_ln", "\(layer)/self_attention/layer_norm"))
        }
        func mlp(_ block: String, _ layer: String) throws -> [GGMLTensor] {
            try linear("\(block).mlp.0", "\(layer)/ffn/linear_0") + linear("\(block).mlp.2", "\(layer)/ffn/linear_1")
                + norm("\(block).mlp_ln", "\(layer)/ffn/layer_norm")
        }

        var tensors: [GGMLTensor] = [
            try vector(
                "encoder.positional_embedding", "encoder/position_encodings/encodings",
                shape: try v("encoder/position_encodings/encodings").shape),
            try matrix("encoder.conv1.weight", "encoder/conv1/weight"),
            try vector("encoder.conv1.bias", "encoder/conv1/bias", shape: [d, 1]),
            try matrix("encoder.conv2.weight", "encoder/conv2/weight"),
            try vector("encoder.conv2.bias", "encoder/conv2/bias", shape: [d, 1]),
        ]
        for index in 0..<model.layerCount("encoder") {
            let block = "encoder.blocks.\(index)"
            let layer = "encoder/layer_\(index)"
            tensors += try selfAttention(block, layer) + mlp(block, layer)
        }
        tensors += try norm("encoder.ln_post", "encoder/layer_norm")
        tensors += [
            try vector(
                "decoder.positional_embedding", "decoder/position_encodings/encodings",
                shape: try v("decoder/position_encodings/encodings").shape),
            try matrix("decoder.token_embedding.weight", "decoder/embeddings/weight"),
        ]
        for index in 0..<model.layerCount("decoder") {
            let block = "decoder.blocks.\(index)"
            let layer = "decoder/layer_\(index)"
            let cross = "\(layer)/attention"
            tensors += try selfAttention(block, layer)
            tensors += try linear("\(block).cross_attn.query", "\(cross)/linear_0")
            tensors += [
                try matrix("\(block).cross_attn.key.weight", "\(cross)/linear_1/weight", rows: 0..<d),
                try matrix("\(block).cross_attn.value.weight", "\(cross)/linear_1/weight", rows: d..<2 * d),
                try vector("\(block).cross_attn.value.bias", "\(cross)/linear_1/bias", rows: d..<2 * d),
            ]
            tensors += try linear("\(block).cross_attn.out", "\(cross)/linear_2") + norm("\(block).cross_attn_ln", "\(cross)/layer_norm")
            tensors += try mlp(block, layer)
        }
        tensors += try norm("decoder.ln", "decoder/layer_norm")
        return tensors
    }
}
