import Foundation

/// A JSON object that names a field twice: JSON leaves what it means open (RFC 8259, 4), and
/// parsers differ (Foundation's decoder keeps the first, Python's and Go's the last), so a proxy
/// that checked one value could pass another. Requests that do so are refused.
enum DuplicateKeys {
    /// The first key an object of `json` (valid UTF-8 JSON) names twice, with where it stands
    /// (`tools.0.parameters.properties`), or nil.
    static func first(in json: Data) -> (key: String, path: String)? {
        json.withUnsafeBytes { bytes in first(in: bytes.bindMemory(to: UInt8.self)) }
    }

    private struct Level {
        /// The keys seen, for an object; nil for an array.
        var keys: Set<String>?
        var expectsKey: Bool
        /// The key or index this value stands at in the level above.
        var name: String
        var count = 0
    }

    private static func first(in bytes: UnsafeBufferPointer<UInt8>) -> (key: String, path: String)? {
        var levels: [Level] = []
        var lastKey = ""
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let name = levels.last.map { $0.keys == nil ? String($0.count) : lastKey } ?? ""
                levels.append(Level(keys: bytes[index] == UInt8(ascii: "{") ? [] : nil, expectsKey: true, name: name))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !levels.isEmpty else { return nil }  // not JSON after all: nothing to say
                levels.removeLast()
            case UInt8(ascii: ","):
                if levels.last?.keys != nil {
                    levels[levels.count - 1].expectsKey = true
                } else if !levels.isEmpty {
                    levels[levels.count - 1].count += 1
                }
            case UInt8(ascii: "\""):
                let start = index
                var escaped = false
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") {
                        escaped = true
                        index += 1
                    }
                    index += 1
                }
                guard let level = levels.last, level.keys != nil, level.expectsKey else { break }
                let literal = UnsafeBufferPointer(rebasing: bytes[start...min(index, bytes.count - 1)])
                let key =
                    escaped
                    ? (try? JSONSerialization.jsonObject(with: Data(literal), options: .fragmentsAllowed)) as? String ?? ""
                    : String(decoding: UnsafeBufferPointer(rebasing: literal.dropFirst().dropLast()), as: UTF8.self)
                if levels[levels.count - 1].keys?.insert(key).inserted == false {
                    return (key, levels.dropFirst().map(\.name).joined(separator: "."))
                }
                levels[levels.count - 1].expectsKey = false
                lastKey = key
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
