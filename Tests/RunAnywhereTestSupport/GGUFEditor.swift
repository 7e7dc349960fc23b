import Foundation

/// Rewrites a real GGUF file without some metadata keys, keeping every tensor and its data
/// (used to make a copy of a model that has no chat template).
package enum GGUFEditor {
    package struct Malformed: Error {}

    /// Copies `source` to `destination`, leaving out the keys in `removing`.
    package static func copy(_ source: URL, to destination: URL, removing: Set<String>) throws {
        let data = try Data(contentsOf: source, options: .alwaysMapped)
        var offset = 0
        func read<T: FixedWidthInteger>(_: T.Type) throws -> T {
            guard offset + MemoryLayout<T>.size <= data.count else { throw Malformed() }
            var value: T = 0
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: data[offset..<offset + MemoryLayout<T>.size]) }
            offset += MemoryLayout<T>.size
            return T(littleEndian: value)
        }
        func skipString() throws -> String {
            let length = Int(try read(UInt64.self))
            guard offset + length <= data.count else { throw Malformed() }
            defer { offset += length }
            return String(decoding: data[offset..<offset + length], as: UTF8.self)
        }
        func skipValue(_ type: UInt32) throws {
            let sizes: [UInt32: Int] = [0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8]
            switch type {
            case 8: _ = try skipString()
            case 9:
                let element = try read(UInt32.self)
                let count = try read(UInt64.self)
                for _ in 0..<count { try skipValue(element) }
            default:
                guard let size = sizes[type] else { throw Malformed() }
                offset += size
            }
        }
        guard data.prefix(4) == Data("GGUF".utf8) else { throw Malformed() }
        offset = 4
        let version = try read(UInt32.self)
        let tensorCount = try read(UInt64.self)
        let kvCount = try read(UInt64.self)
        var kept: [Data] = []
        var alignment = 32
        for _ in 0..<kvCount {
            let start = offset
            let key = try skipString()
            let type = try read(UInt32.self)
            if key == "general.alignment", type == 4 { alignment = Int(try read(UInt32.self)) } else { try skipValue(type) }
            if !removing.contains(key) { kept.append(data[start..<offset]) }
        }
        let tensorsStart = offset
        for _ in 0..<tensorCount {
            _ = try skipString()
            let dimensions = try read(UInt32.self)
            offset += Int(dimensions) * 8 + 4 + 8
        }
        let tensorInfos = data[tensorsStart..<offset]
        let dataStart = (offset + alignment - 1) / alignment * alignment

        var out = Data("GGUF".utf8)
        withUnsafeBytes(of: version.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: tensorCount.littleEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(kept.count).littleEndian) { out.append(contentsOf: $0) }
        kept.forEach { out.append($0) }
        out.append(tensorInfos)
        out.append(Data(count: (alignment - out.count % alignment) % alignment))
        out.append(data[dataStart...])
        try out.write(to: destination)
    }
}
