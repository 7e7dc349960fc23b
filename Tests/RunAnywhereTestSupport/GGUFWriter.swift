import Foundation

/// Writes small GGUF files for tests: metadata of every value type and tensors of any ggml type,
/// with zeroed data, laid out as the format requires (aligned data section).
public struct GGUFWriter {
    /// A metadata value.
    public enum Value {
        case u8(UInt8), i8(Int8), u16(UInt16), i16(Int16), u32(UInt32), i32(Int32), f32(Float)
        case bool(Bool), string(String), u64(UInt64), i64(Int64), f64(Double)
        case strings([String]), u32s([UInt32])
    }

    /// A tensor: name, shape (innermost first) and ggml type id.
    public struct Tensor {
        public let name: String
        public let shape: [UInt64]
        public let type: UInt32
        public let bytes: Int

        public init(name: String, shape: [UInt64], type: UInt32, bytes: Int) {
            self.name = name
            self.shape = shape
            self.type = type
            self.bytes = bytes
        }
    }

    public var metadata: [(String, Value)]
    public var tensors: [Tensor]
    public var version: UInt32 = 3

    public init(metadata: [(String, Value)] = [], tensors: [Tensor] = []) {
        self.metadata = metadata
        self.tensors = tensors
    }

    /// A tiny llama-style model description: 2 F32 tensors of 64×4 and a Q4_0 tensor of 256×2.
    public static func tinyLlama(chatTemplate: String? = "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}") -> GGUFWriter {
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
        return GGUFWriter(metadata: metadata, tensors: [
            Tensor(name: "token_embd.weight", shape: [64, 4], type: 0, bytes: 64 * 4 * 4),
            Tensor(name: "output_norm.weight", shape: [64], type: 0, bytes: 64 * 4),
            Tensor(name: "blk.0.attn_q.weight", shape: [256, 2], type: 2, bytes: 2 * 8 * 18),
        ])
    }

    /// The file's bytes.
    public func data() -> Data {
        var out = Data("GGUF".utf8)
        append(version, to: &out)
        append(UInt64(tensors.count), to: &out)
        append(UInt64(metadata.count), to: &out)
        for (key, value) in metadata {
            appendString(key, to: &out)
            appendValue(value, to: &out)
        }
        var offset: UInt64 = 0
        for tensor in tensors {
            appendString(tensor.name, to: &out)
            append(UInt32(tensor.shape.count), to: &out)
            tensor.shape.forEach { append($0, to: &out) }
            append(tensor.type, to: &out)
            append(offset, to: &out)
            offset += UInt64((tensor.bytes + 31) / 32 * 32)
        }
        out.append(Data(count: (32 - out.count % 32) % 32))
        for tensor in tensors {
            out.append(Data(count: (tensor.bytes + 31) / 32 * 32))
        }
        return out
    }

    /// Writes the file to `url`.
    public func write(to url: URL) throws {
        try data().write(to: url)
    }

    private func appendValue(_ value: Value, to out: inout Data) {
        switch value {
        case .u8(let v): append(UInt32(0), to: &out); append(v, to: &out)
        case .i8(let v): append(UInt32(1), to: &out); append(v, to: &out)
        case .u16(let v): append(UInt32(2), to: &out); append(v, to: &out)
        case .i16(let v): append(UInt32(3), to: &out); append(v, to: &out)
        case .u32(let v): append(UInt32(4), to: &out); append(v, to: &out)
        case .i32(let v): append(UInt32(5), to: &out); append(v, to: &out)
        case .f32(let v): append(UInt32(6), to: &out); append(v.bitPattern, to: &out)
        case .bool(let v): append(UInt32(7), to: &out); append(UInt8(v ? 1 : 0), to: &out)
        case .string(let v): append(UInt32(8), to: &out); appendString(v, to: &out)
        case .u64(let v): append(UInt32(10), to: &out); append(v, to: &out)
        case .i64(let v): append(UInt32(11), to: &out); append(v, to: &out)
        case .f64(let v): append(UInt32(12), to: &out); append(v.bitPattern, to: &out)
        case .strings(let values):
            append(UInt32(9), to: &out); append(UInt32(8), to: &out); append(UInt64(values.count), to: &out)
            values.forEach { appendString($0, to: &out) }
        case .u32s(let values):
            append(UInt32(9), to: &out); append(UInt32(4), to: &out); append(UInt64(values.count), to: &out)
            values.forEach { append($0, to: &out) }
        }
    }

    private func appendString(_ string: String, to out: inout Data) {
        append(UInt64(string.utf8.count), to: &out)
        out.append(Data(string.utf8))
    }

    private func append<T: FixedWidthInteger>(_ value: T, to out: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }
}
