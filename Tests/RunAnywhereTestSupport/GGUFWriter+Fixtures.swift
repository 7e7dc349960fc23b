import Foundation
import RunAnywhere

/// Small GGUF files for tests, written by the package's ``GGUFWriter``.
extension GGUFWriter.Tensor {
    /// A tensor of `bytes` zero bytes, whatever its shape and type say (so that tests can write
    /// tensors of unknown types, impossible shapes or short data).
    package init(name: String, shape: [UInt64], type: UInt32, bytes: Int) {
        self.init(name: name, shape: shape, type: type, data: Data(count: bytes))
    }
}

extension GGUFWriter {
    /// A tiny llama-style model description: 2 F32 tensors of 64×4 and a Q4_0 tensor of 256×2,
    /// metadata of every value type, zeroed weights.
    package static func tinyLlama(
        chatTemplate: String? = "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    ) -> GGUFWriter {
        var metadata: [(String, Value)] = [
            ("general.architecture", .string("llama")),
            ("general.name", .string("Tiny Test Llama")),
            ("general.license", .string("MIT")),
            ("general.file_type", .u32(2)),
            ("general.alignment", .u32(32)),
            ("llama.context_length", .u32(512)),
            ("llama.embedding_length", .u32(64)),
            ("llama.rope.freq_base", .f32(10000)),
            ("test.signed", .i64(-5)),
            ("test.small", .i8(-3)),
            ("test.flag", .bool(true)),
            ("test.double", .f64(0.25)),
            ("tokenizer.ggml.tokens", .strings((0..<300).map { "tok\($0)" })),
            ("tokenizer.ggml.token_type", .u32s([1, 2, 3])),
        ]
        if let chatTemplate { metadata.append(("tokenizer.chat_template", .string(chatTemplate))) }
        return GGUFWriter(
            metadata: metadata,
            tensors: [
                Tensor(name: "token_embd.weight", shape: [64, 4], type: 0, bytes: 64 * 4 * 4),
                Tensor(name: "output_norm.weight", shape: [64], type: 0, bytes: 64 * 4),
                Tensor(name: "blk.0.attn_q.weight", shape: [256, 2], type: 2, bytes: 2 * 8 * 18),
            ])
    }
}
