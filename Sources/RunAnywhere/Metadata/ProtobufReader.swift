import Foundation

/// Protocol Buffers' wire format, read one field at a time over a range of bytes: the little that
/// `ONNXMetadataExtractor` needs. Every length is checked against the range, so truncated or
/// foreign bytes throw ``Malformed`` instead of being read past; a length-delimited field (a
/// tensor's weights, a whole graph) is only stepped over until a message is asked to read it.
struct ProtobufReader {
    /// Why the bytes are not a protobuf message.
    struct Malformed: Error {
        let why: String
    }

    /// One field's value by its wire type.
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case fixed32(UInt32)
        /// A length-delimited field (string, bytes, message, packed numbers): where its bytes are.
        case bytes(Range<Int>)
    }

    private let data: Data
    private var offset: Int
    private let end: Int

    /// A reader of the message in `range` of `data` (a buffer indexed from 0); the whole buffer by default.
    init(_ data: Data, range: Range<Int>? = nil) {
        self.data = data
        self.offset = range?.lowerBound ?? 0
        self.end = range?.upperBound ?? data.count
    }

    /// The next field's number and value, or nil at the end of the message.
    mutating func next() throws -> (number: UInt64, value: Value)? {
        guard offset < end else { return nil }
        let key = try varint()
        let number = key >> 3
        guard number > 0, number < 1 << 29 else { throw Malformed(why: "field number \(number) at byte \(offset) is not a valid one") }
        switch key & 7 {
        case 0: return (number, .varint(try varint()))
        case 1: return (number, .fixed64(try fixed(8)))
        case 5: return (number, .fixed32(UInt32(try fixed(4))))
        case 2:
            let length = try varint()
            guard length <= UInt64(end - offset) else {
                throw Malformed(
                    why: "field \(number) claims \(length) bytes at byte \(offset), but only \(end - offset) remain (truncated?)")
            }
            defer { offset += Int(length) }
            return (number, .bytes(offset..<offset + Int(length)))
        default:
            throw Malformed(why: "field \(number) at byte \(offset) has wire type \(key & 7), which is not one in use")
        }
    }

    /// A reader of the message a length-delimited field holds.
    func message(_ range: Range<Int>) -> ProtobufReader { ProtobufReader(data, range: range) }

    /// The UTF-8 text a length-delimited field holds.
    func string(_ range: Range<Int>) -> String { String(decoding: data[range], as: UTF8.self) }

    /// The numbers of a repeated varint field in packed form.
    func packedVarints(_ range: Range<Int>) throws -> [UInt64] {
        var reader = ProtobufReader(data, range: range)
        var values: [UInt64] = []
        while reader.offset < reader.end { values.append(try reader.varint()) }
        return values
    }

    private mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard offset < end else { throw Malformed(why: "a number runs past the end of its message (truncated?)") }
            let byte = data[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return value }
        }
        throw Malformed(why: "a number at byte \(offset) is longer than 10 bytes")
    }

    private mutating func fixed(_ size: Int) throws -> UInt64 {
        guard size <= end - offset else { throw Malformed(why: "a \(size)-byte number runs past the end of its message (truncated?)") }
        defer { offset += size }
        return (0..<size).reduce(UInt64(0)) { $0 | UInt64(data[offset + $1]) << (8 * UInt64($1)) }
    }
}

extension ProtobufReader.Value {
    /// The value as a signed 64-bit number (protobuf's `int64`, `int32` and enums are varints).
    var int64: Int64? { if case .varint(let value) = self { Int64(bitPattern: value) } else { nil } }
    /// Where a length-delimited value's bytes are.
    var bytes: Range<Int>? { if case .bytes(let range) = self { range } else { nil } }
}
