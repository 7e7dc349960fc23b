import Foundation
import RunAnywhere

/// A tensor of the ggml Whisper file: its name, shape in PyTorch order, and whether it is
/// stored as float16 (weight matrices, convolutions, token embedding) or float32 (the rest).
struct GGMLTensor {
    let name: String
    let shape: [Int]
    let half: Bool
    /// Row-major values, as CTranslate2 stored them.
    let source: CTranslate2Model.Variable
    /// The rows of the source to take, for fused query/key/value matrices.
    let rows: Range<Int>?
}

/// Builds a ggml Whisper file in memory.
final class GGMLWriter {
    private(set) var data = Data()

    func u32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) } }
    func i32(_ value: Int) { withUnsafeBytes(of: Int32(truncatingIfNeeded: value).littleEndian) { data.append(contentsOf: $0) } }
    func append(_ bytes: Data) { data.append(bytes) }

    /// Writes n_dims, name length, type, the shape reversed (ggml's order), the name, the values.
    func tensor(_ tensor: GGMLTensor) throws {
        i32(tensor.shape.count)
        i32(tensor.name.utf8.count)
        i32(tensor.half ? 1 : 0)
        tensor.shape.reversed().forEach { i32($0) }
        data.append(Data(tensor.name.utf8))
        let source = tensor.source
        let rowLength = source.shape.dropFirst().reduce(1, *)  // the whole product fits: CTranslate2Model checked it
        let range = tensor.rows ?? 0..<(source.shape.first ?? 1)
        guard range.lowerBound >= 0, range.upperBound <= source.shape.first ?? 1 else {
            throw SDKError.fileManagement(.invalidModelFormat, "\(tensor.name): rows \(range) of a source of shape \(source.shape)")
        }
        let count = range.count * rowLength
        guard count == tensor.shape.reduce(1, *) else {
            throw SDKError.fileManagement(
                .invalidModelFormat, "\(tensor.name): the source holds \(count) values, the tensor needs \(tensor.shape.reduce(1, *))")
        }
        let width = source.dtype == 4 ? 2 : 4
        guard source.dtype == 4 || source.dtype == 0 else {
            throw SDKError.fileManagement(
                .invalidModelFormat,
                "\(tensor.name) is stored as CTranslate2 type \(source.dtype); only float16 and float32 models can be converted")
        }
        // Within the data: its size is the shape's product times the width, and the rows lie inside the shape.
        let start = source.data.startIndex + range.lowerBound * rowLength * width
        let bytes = source.data[start..<start + count * width]
        switch (source.dtype == 4, tensor.half) {
        case (true, true), (false, false): data.append(bytes)
        case (true, false):
            bytes.withUnsafeBytes { raw in
                for index in 0..<count {
                    let value = Float(
                        Float16(bitPattern: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: index * 2, as: UInt16.self))))
                    withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
                }
            }
        case (false, true):
            bytes.withUnsafeBytes { raw in
                for index in 0..<count {
                    let value = Float16(
                        Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))))
                    withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) }
                }
            }
        }
    }
}
