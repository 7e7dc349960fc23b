import Foundation

/// Writes GGUF files (version 3 by default): the header, the metadata in the order given, the
/// tensor table, then each tensor's data, every tensor starting at a multiple of 32 bytes from
/// the data section (GGUF's default alignment; the writer does not read `general.alignment`).
/// Converters build their files with it (RunAnywhereLlamaCpp's BERT converter), and the tests their fixtures.
package struct GGUFWriter: Sendable {
    /// A metadata value, by GGUF value type.
    package enum Value: Sendable {
        case u8(UInt8), i8(Int8), u16(UInt16), i16(Int16), u32(UInt32), i32(Int32), f32(Float)
        case bool(Bool), string(String), u64(UInt64), i64(Int64), f64(Double)
        case strings([String]), u32s([UInt32]), i32s([Int32])
    }

    /// A tensor: its name, shape (innermost dimension first, as ggml orders it), ggml type id and
    /// data (written as given: the writer does not check it against the shape and type).
    package struct Tensor: Sendable {
        package let name: String
        package let shape: [UInt64]
        package let type: UInt32
        package let data: Data

        package init(name: String, shape: [UInt64], type: UInt32, data: Data) {
            self.name = name
            self.shape = shape
            self.type = type
            self.data = data
        }
    }

    /// The alignment of the tensor data.
    package static let alignment = 32

    package var metadata: [(String, Value)]
    package var tensors: [Tensor]
    package var version: UInt32 = 3

    package init(metadata: [(String, Value)] = [], tensors: [Tensor] = []) {
        self.metadata = metadata
        self.tensors = tensors
    }

    /// The file's bytes.
    package func data() -> Data {
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
            offset += UInt64(Self.padded(tensor.data.count))
        }
        out.reserveCapacity(Self.padded(out.count) + Int(offset))
        out.append(Data(count: Self.padded(out.count) - out.count))
        for tensor in tensors {
            out.append(tensor.data)
            out.append(Data(count: Self.padded(tensor.data.count) - tensor.data.count))
        }
        return out
    }

    /// Writes the file to `url` through ``AtomicFile``: the previous file stays whole until the new
    /// one is complete, and a full disk is ``ErrorCode/insufficientStorage``.
    package func write(to url: URL) throws {
        try AtomicFile.write(data(), to: url)
    }

    private static func padded(_ count: Int) -> Int { (count + alignment - 1) / alignment * alignment }

    private func appendValue(_ value: Value, to out: inout Data) {
        switch value {
        case .u8(let v):
            append(UInt32(0), to: &out)
            append(v, to: &out)
        case .i8(let v):
            append(UInt32(1), to: &out)
            append(v, to: &out)
        case .u16(let v):
            append(UInt32(2), to: &out)
            append(v, to: &out)
        case .i16(let v):
            append(UInt32(3), to: &out)
            append(v, to: &out)
        case .u32(let v):
            append(UInt32(4), to: &out)
            append(v, to: &out)
        case .i32(let v):
            append(UInt32(5), to: &out)
            append(v, to: &out)
        case .f32(let v):
            append(UInt32(6), to: &out)
            append(v.bitPattern, to: &out)
        case .bool(let v):
            append(UInt32(7), to: &out)
            append(UInt8(v ? 1 : 0), to: &out)
        case .string(let v):
            append(UInt32(8), to: &out)
            appendString(v, to: &out)
        case .u64(let v):
            append(UInt32(10), to: &out)
            append(v, to: &out)
        case .i64(let v):
            append(UInt32(11), to: &out)
            append(v, to: &out)
        case .f64(let v):
            append(UInt32(12), to: &out)
            append(v.bitPattern, to: &out)
        case .strings(let values):
            append(UInt32(9), to: &out)
            append(UInt32(8), to: &out)
            append(UInt64(values.count), to: &out)
            values.forEach { appendString($0, to: &out) }
        case .u32s(let values):
            append(UInt32(9), to: &out)
            append(UInt32(4), to: &out)
            append(UInt64(values.count), to: &out)
            values.forEach { append($0, to: &out) }
        case .i32s(let values):
            append(UInt32(9), to: &out)
            append(UInt32(5), to: &out)
            append(UInt64(values.count), to: &out)
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
