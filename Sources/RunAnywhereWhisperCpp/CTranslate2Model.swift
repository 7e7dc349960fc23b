import Foundation
import RunAnywhere

/// The variables of a CTranslate2 `model.bin` (binary versions 4 to 6): little-endian, packed;
/// strings are a u16 length counting a trailing NUL; each variable is name, rank, dims, dtype,
/// byte count and data.
struct CTranslate2Model {
    struct Variable {
        let shape: [Int]
        /// 0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16.
        let dtype: UInt8
        let data: Data
    }

    let specName: String
    let variables: [String: Variable]

    init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw SDKError.fileManagement(.fileNotFound, "Cannot read \(url.path): \(error.localizedDescription)")
        }
        func bad(_ why: String) -> SDKError {
            SDKError.fileManagement(.invalidModelFormat, "\(url.lastPathComponent) is not a CTranslate2 model: \(why)")
        }
        var offset = data.startIndex
        func take(_ count: Int) throws -> Data {
            guard count >= 0, offset + count <= data.endIndex else { throw bad("it ends early") }
            defer { offset += count }
            return data[offset..<offset + count]
        }
        func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
            let bytes = try take(MemoryLayout<T>.size)
            return bytes.enumerated().reduce(T(0)) { $0 | T($1.element) << (8 * $1.offset) }
        }
        func string() throws -> String {
            let length = Int(try integer(UInt16.self))
            return String(decoding: try take(length).prefix { $0 != 0 }, as: UTF8.self)
        }
        let version = try integer(UInt32.self)
        guard (4...6).contains(version) else { throw bad("binary version \(version) is not supported (4 to 6 are)") }
        specName = try string()
        _ = try integer(UInt32.self)  // spec revision
        let count = try integer(UInt32.self)
        var variables: [String: Variable] = [:]
        for _ in 0..<count {
            let name = try string()
            let rank = Int(try integer(UInt8.self))
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(Int(try integer(UInt32.self))) }
            let dtype = try integer(UInt8.self)
            let bytes = Int(try integer(UInt32.self))
            // Every later slice of the data relies on its size matching the shape (for the types
            // known; the converter refuses the others before slicing them).
            if let width = Self.widths[dtype], shape.reduce(width, { $0.saturatingMultiply($1) }) != bytes {
                throw bad("variable \(name) of shape \(shape) and type \(dtype) does not hold \(bytes) bytes")
            }
            variables[name] = Variable(shape: shape, dtype: dtype, data: try take(bytes))
        }
        self.variables = variables
    }

    /// Bytes per value of each dtype.
    private static let widths: [UInt8: Int] = [0: 4, 1: 1, 2: 2, 3: 4, 4: 2, 5: 2]

    func variable(_ name: String) throws -> Variable {
        guard let variable = variables[name] else {
            throw SDKError.fileManagement(.invalidModelFormat, "The CTranslate2 model has no variable \(name)")
        }
        return variable
    }

    /// Side `index` of the variable `name`'s shape, which must have it.
    func dimension(_ name: String, _ index: Int) throws -> Int {
        let shape = try variable(name).shape
        guard shape.indices.contains(index) else {
            throw SDKError.fileManagement(
                .invalidModelFormat, "The CTranslate2 variable \(name) has the shape \(shape), without a dimension \(index)")
        }
        return shape[index]
    }

    /// A scalar integer variable.
    func integer(_ name: String) throws -> Int {
        let variable = try self.variable(name)
        return variable.data.enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
    }

    /// How many `prefix/layer_N/…` blocks there are.
    func layerCount(_ prefix: String) -> Int {
        var count = 0
        while variables.keys.contains(where: { $0.hasPrefix("\(prefix)/layer_\(count)/") }) { count += 1 }
        return count
    }
}
