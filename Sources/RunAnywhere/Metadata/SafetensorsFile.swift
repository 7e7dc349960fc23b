import Foundation

/// A safetensors file opened to read its tensors: the header parsed and checked as
/// `SafetensorsMetadataExtractor` checks it (every tensor's bytes inside the file, no holes or
/// overlaps), the data mapped rather than read.
package struct SafetensorsFile: Sendable {
    /// A tensor of the file: its name, dtype (`F32`, `F16`, `BF16`…) and shape (outermost first).
    package struct TensorInfo: Sendable, Equatable {
        package let name: String
        package let dtype: String
        package let shape: [Int]
    }

    /// The tensors, in the order of their data.
    package let tensors: [TensorInfo]
    private let data: Data
    private let ranges: [String: Range<Int>]
    private let fileName: String

    /// Opens the safetensors file at `url`: a missing file is ``ErrorCode/fileNotFound``, a
    /// damaged one ``ErrorCode/invalidModelFormat``.
    package init(contentsOf url: URL) throws {
        let data = try fileContents(of: url)
        let fileName = url.lastPathComponent
        let header = try SafetensorsMetadataExtractor.parse(data, name: fileName)
        // parse checked the length and that every tensor lies within the data that follows it.
        let start = 8 + data.prefix(8).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        var tensors: [TensorInfo] = []
        var ranges: [String: Range<Int>] = [:]
        for tensor in header.tensors {
            let shape = try tensor.shape.map { size in
                // Only a tensor with an empty dimension can have another this large.
                guard let size = Int(exactly: size) else {
                    throw SDKError.fileManagement(
                        .invalidModelFormat, "\(fileName): tensor \(tensor.name)'s shape \(tensor.shape) is impossibly large")
                }
                return size
            }
            tensors.append(TensorInfo(name: tensor.name, dtype: tensor.dtype, shape: shape))
            ranges[tensor.name] = start + Int(tensor.offsets.begin)..<start + Int(tensor.offsets.end)
        }
        self.data = data
        self.fileName = fileName
        self.tensors = tensors
        self.ranges = ranges
    }

    /// The tensor named `name`, if the file has one.
    package func tensor(_ name: String) -> TensorInfo? {
        tensors.first { $0.name == name }
    }

    /// The stored bytes of tensor `name` (little-endian, row-major), or nil when there is none.
    package func bytes(of name: String) -> Data? {
        ranges[name].map { data[data.startIndex + $0.lowerBound..<data.startIndex + $0.upperBound] }
    }

    /// The values of tensor `name` as 32-bit floats, row-major: F32 as stored, F16 and BF16 widened
    /// exactly. Another dtype, or no such tensor, is ``ErrorCode/invalidModelFormat``.
    package func floats(of name: String) throws -> [Float] {
        guard let info = tensor(name), let bytes = bytes(of: name) else {
            throw SDKError.fileManagement(.invalidModelFormat, "\(fileName) has no tensor \(name)")
        }
        return try bytes.withUnsafeBytes { raw -> [Float] in
            switch info.dtype {
            case "F32":
                // Copied whole: the file is little-endian, like every machine Swift on Linux runs on.
                var values = [Float](repeating: 0, count: raw.count / 4)
                values.withUnsafeMutableBytes { $0.copyMemory(from: raw) }
                return values
            case "F16":
                return (0..<raw.count / 2).map {
                    Float(Float16(bitPattern: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self))))
                }
            case "BF16":
                return (0..<raw.count / 2).map {
                    Float(bitPattern: UInt32(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self))) << 16)
                }
            default:
                throw SDKError.fileManagement(
                    .invalidModelFormat,
                    "\(fileName): tensor \(name) is \(info.dtype); only F32, F16 and BF16 tensors can be read as floats")
            }
        }
    }
}
