import Foundation

/// A safetensors file's header: an 8-byte little-endian length, then that many bytes of JSON
/// naming each tensor's `dtype`, `shape` and `data_offsets` (from the end of the header), and an
/// optional `__metadata__` of strings. The tensors' data must fill the rest of the file exactly,
/// without holes or overlaps, as the format's own reader requires.
package struct SafetensorsMetadataExtractor: ModelMetadataExtractor {
    /// ``ModelFormat/safetensors``.
    package let format = ModelFormat.safetensors

    /// The longest header the format's own reader accepts.
    static let maxHeaderLength: UInt64 = 100_000_000

    /// Bits per element of each dtype the format defines.
    static let dtypeBits: [String: Int] = [
        "BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16,
        "I32": 32, "U32": 32, "F32": 32, "I64": 64, "U64": 64, "F64": 64, "C64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
    ]

    /// One tensor of the header.
    struct Tensor: Sendable {
        let name: String
        let dtype: String
        let shape: [UInt64]
        let offsets: (begin: UInt64, end: UInt64)
        /// Checked not to overflow when the tensor was read.
        var elements: UInt64 { shape.reduce(1, *) }
    }

    /// What a header holds: its tensors in the order of their data, and its metadata.
    struct Header: Sendable {
        let tensors: [Tensor]
        let metadata: [String: String]
    }

    /// Creates the extractor.
    package init() {}

    /// Reads the header: parameters and element types from the tensors, the architecture and name
    /// from `__metadata__` when it says (`architecture`, `modelspec.architecture`; `name`,
    /// `modelspec.title`), and all of `__metadata__` as the key/value metadata.
    package func extract(from url: URL) throws -> ModelMetadata {
        try Self.read(url).metadata
    }

    /// The header of the file at `url`, checked, and the metadata it gives.
    static func read(_ url: URL) throws -> (header: Header, metadata: ModelMetadata) {
        let data = try fileContents(of: url)
        let header = try parse(data, name: url.lastPathComponent)
        var types: [String: Int64] = [:]
        for tensor in header.tensors { types[tensor.dtype] = (types[tensor.dtype] ?? 0).saturatingAdd(Int64(clamping: tensor.elements)) }
        let metadata = header.metadata
        let summary = ModelMetadata(
            format: .safetensors, architecture: metadata["architecture"] ?? metadata["modelspec.architecture"] ?? metadata["model_type"],
            name: metadata["name"] ?? metadata["modelspec.title"],
            parameterCount: header.tensors.reduce(Int64(0)) { $0.saturatingAdd(Int64(clamping: $1.elements)) }, tensorTypes: types,
            tensorCount: header.tensors.count, fileSize: UInt64(data.count), values: metadata
        )
        return (header, summary)
    }

    /// Parses and checks safetensors bytes; `name` appears in error messages.
    static func parse(_ data: Data, name: String) throws -> Header {
        func invalid(_ why: String) -> SDKError {
            SDKError.fileManagement(.invalidModelFormat, "\(name) is not a valid safetensors file: \(why)")
        }
        guard data.count >= 8 else { throw invalid("it has \(data.count) bytes, fewer than the 8 of its header's length (truncated?)") }
        let length = data.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        guard length >= 2, length <= maxHeaderLength else {
            throw invalid("its header length, \(length) bytes, is not one the format allows (2 to \(maxHeaderLength))")
        }
        guard length <= UInt64(data.count - 8) else {
            throw invalid("its header length, \(length) bytes, runs beyond the file's \(data.count) bytes (truncated?)")
        }
        let headerEnd = 8 + Int(length)
        let json = data[data.startIndex + 8..<data.startIndex + headerEnd]
        guard json.first == UInt8(ascii: "{") else { throw invalid("its header is not a JSON object") }
        let entries: [String: HeaderEntry]
        do {
            entries = try JSONDecoder().decode([String: HeaderEntry].self, from: json)
        } catch let error as SDKError {
            throw invalid(error.message)
        } catch let error as DecodingError {
            throw invalid("its header is not the format's JSON (\(error.summary))")
        }
        var metadata: [String: String] = [:]
        var tensors: [Tensor] = []
        for (key, entry) in entries {
            switch entry {
            case .metadata(let values):
                guard key == "__metadata__" else { throw invalid("\(key) is not a tensor (it has no dtype, shape and data_offsets)") }
                metadata = values
            case .tensor(let dtype, let shape, let offsets):
                guard key != "__metadata__" else { throw invalid("__metadata__ must map names to strings") }
                tensors.append(try tensor(key, dtype: dtype, shape: shape, offsets: offsets, invalid: invalid))
            }
        }
        tensors.sort { ($0.offsets.begin, $0.offsets.end, $0.name) < ($1.offsets.begin, $1.offsets.end, $1.name) }
        let dataLength = UInt64(data.count - headerEnd)
        var end: UInt64 = 0
        for tensor in tensors {
            guard tensor.offsets.begin == end else {
                throw invalid(
                    tensor.offsets.begin < end
                        ? "tensor \(tensor.name) overlaps the tensor before it" : "there is a hole in the data before tensor \(tensor.name)"
                )
            }
            guard tensor.offsets.end <= dataLength else {
                throw invalid(
                    "tensor \(tensor.name) ends at byte \(tensor.offsets.end) of the data, beyond the file's \(dataLength) bytes of data (truncated?)"
                )
            }
            end = tensor.offsets.end
        }
        guard end == dataLength else { throw invalid("\(dataLength - end) bytes follow the last tensor's data") }
        return Header(tensors: tensors, metadata: metadata)
    }

    /// A tensor entry, checked: a known dtype, and offsets spanning exactly its shape's bytes.
    private static func tensor(_ name: String, dtype: String, shape: [UInt64], offsets: [UInt64], invalid: (String) -> SDKError) throws
        -> Tensor
    {
        guard let bits = dtypeBits[dtype] else { throw invalid("tensor \(name) has the unknown dtype \(dtype)") }
        guard offsets.count == 2, offsets[0] <= offsets[1] else {
            throw invalid("tensor \(name)'s data_offsets \(offsets) are not [begin, end]")
        }
        var elements: UInt64 = 1
        for size in shape {
            let (product, overflow) = elements.multipliedReportingOverflow(by: size)
            guard !overflow else { throw invalid("tensor \(name)'s shape \(shape) is impossibly large") }
            elements = product
        }
        let (totalBits, overflow) = elements.multipliedReportingOverflow(by: UInt64(bits))
        guard !overflow, totalBits % 8 == 0, totalBits / 8 == offsets[1] - offsets[0] else {
            throw invalid(
                "tensor \(name) (\(dtype), shape \(shape)) needs \(overflow ? "more" : String(totalBits / 8)) bytes, but its data_offsets span \(offsets[1] - offsets[0])"
            )
        }
        return Tensor(name: name, dtype: dtype, shape: shape, offsets: (offsets[0], offsets[1]))
    }

    /// One member of the header: a tensor, or the metadata (a map of strings).
    private enum HeaderEntry: Decodable {
        case tensor(dtype: String, shape: [UInt64], offsets: [UInt64])
        case metadata([String: String])

        private enum Keys: String, CodingKey { case dtype, shape, dataOffsets = "data_offsets" }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            guard container.contains(.dtype) || container.contains(.shape) || container.contains(.dataOffsets) else {
                self = .metadata(try decoder.singleValueContainer().decode([String: String].self))
                return
            }
            self = .tensor(
                dtype: try container.decode(String.self, forKey: .dtype),
                shape: try container.decode([Count].self, forKey: .shape).map(\.value),
                offsets: try container.decode([Count].self, forKey: .dataOffsets).map(\.value)
            )
        }
    }

    /// A size or an offset: a whole number of at least 0, named as such when it is not (Foundation's
    /// decoder reports a negative or fractional number where an unsigned one is wanted as "not JSON").
    private struct Count: Decodable {
        let value: UInt64

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(UInt64.self) {
                self.value = value
                return
            }
            let shown = (try? container.decode(Double.self)).map { "\($0) is not" } ?? "expected"
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(shown) a whole number of at least 0")
        }
    }
}
