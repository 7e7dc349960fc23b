import Foundation

/// Writes safetensors files for tests as the format lays them out: the header's length (8 bytes,
/// little-endian), the JSON header padded with spaces to a multiple of 8 bytes (as the
/// `safetensors` package pads it), then each tensor's bytes in order.
package struct SafetensorsWriter {
    /// A tensor: its name, dtype (`F32`, `F16`…), shape and bytes.
    package struct Tensor {
        package let name: String
        package let dtype: String
        package let shape: [Int]
        package let bytes: Data

        package init(name: String, dtype: String, shape: [Int], bytes: Data) {
            self.name = name
            self.dtype = dtype
            self.shape = shape
            self.bytes = bytes
        }

        /// An F32 tensor holding `values`, row-major.
        package static func float32(_ name: String, shape: [Int], values: [Float]) -> Tensor {
            Tensor(name: name, dtype: "F32", shape: shape, bytes: values.withUnsafeBufferPointer { Data(buffer: $0) })
        }
    }

    package var tensors: [Tensor]
    package var metadata: [String: String]?

    package init(tensors: [Tensor], metadata: [String: String]? = nil) {
        self.tensors = tensors
        self.metadata = metadata
    }

    /// The header's JSON text, before padding.
    package func headerJSON() throws -> Data {
        var header: [String: Any] = [:]
        if let metadata { header["__metadata__"] = metadata }
        var offset = 0
        for tensor in tensors {
            header[tensor.name] = ["dtype": tensor.dtype, "shape": tensor.shape, "data_offsets": [offset, offset + tensor.bytes.count]]
            offset += tensor.bytes.count
        }
        return try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])
    }

    /// The file's bytes.
    package func data() throws -> Data {
        var json = try headerJSON()
        json.append(contentsOf: [UInt8](repeating: UInt8(ascii: " "), count: (8 - json.count % 8) % 8))
        var out = Data((0..<8).map { UInt8(truncatingIfNeeded: UInt64(json.count) >> (8 * $0)) })
        out.append(json)
        for tensor in tensors { out.append(tensor.bytes) }
        return out
    }

    package func write(to url: URL) throws {
        try data().write(to: url)
    }
}
