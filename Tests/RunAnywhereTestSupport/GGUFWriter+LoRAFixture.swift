import Foundation
import RunAnywhere

extension GGUFWriter {
    /// A generated fixture, not a trained adapter: a LoRA adapter GGUF for a llama-architecture
    /// model `embedding` wide with `layers` blocks, changing every block's query projection
    /// (`blk.N.attn_q.weight`) and value projection (`attn_v`, `values` wide: what the KV cache
    /// keeps differs too) by random rank-`rank` products (seeded: the same `seed` gives the same
    /// bytes), strong enough to change the model's greedy answer. Its `architecture` can be set
    /// to another one, to check that a mismatch is refused. All F32.
    package static func loraFixture(
        embedding: Int, values: Int, layers: Int, rank: Int = 4, seed: UInt64 = 1, architecture: String = "llama", spread: Float = 0.2
    ) -> GGUFWriter {
        let metadata: [(String, Value)] = [
            ("general.architecture", .string(architecture)), ("general.type", .string("adapter")),
            ("general.name", .string("LoRA fixture (random weights)")), ("adapter.type", .string("lora")),
            ("adapter.lora.alpha", .f32(Float(rank))),
        ]
        var random = SeededGenerator(seed: seed)
        func tensor(_ name: String, _ shape: [Int]) -> Tensor {
            let values = (0..<shape.reduce(1, *)).map { _ in Float.random(in: -spread...spread, using: &random) }
            return Tensor(name: name, shape: shape.map(UInt64.init), type: 0, data: values.withUnsafeBytes { Data($0) })
        }
        // llama.cpp's layout: A is [input, rank] and B [rank, output], innermost dimension first.
        let tensors = (0..<layers).flatMap { layer in
            [
                tensor("blk.\(layer).attn_q.weight.lora_a", [embedding, rank]),
                tensor("blk.\(layer).attn_q.weight.lora_b", [rank, embedding]),
                tensor("blk.\(layer).attn_v.weight.lora_a", [embedding, rank]),
                tensor("blk.\(layer).attn_v.weight.lora_b", [rank, values]),
            ]
        }
        return GGUFWriter(metadata: metadata, tensors: tensors)
    }

    /// ``loraFixture(embedding:values:layers:rank:seed:architecture:spread:)`` shaped for the
    /// llama-architecture GGUF model at `model` (its width, heads and blocks).
    package static func loraFixture(for model: URL, seed: UInt64 = 1, architecture: String = "llama") throws -> GGUFWriter {
        let metadata = try GGUFReader.read(model)
        let value = { (key: String) in metadata.values["llama.\(key)"]?.intValue }
        guard let embedding = value("embedding_length"), let layers = value("block_count"), let heads = value("attention.head_count"),
            heads > 0
        else { throw SDKError(.invalidInput, "\(model.path) is not a llama-architecture GGUF") }
        let values = embedding / heads * (value("attention.head_count_kv") ?? heads)
        return loraFixture(embedding: embedding, values: values, layers: layers, seed: seed, architecture: architecture)
    }
}
