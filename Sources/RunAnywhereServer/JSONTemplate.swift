import Foundation

/// The JSON of values that differ from one to the next only in a few strings and integers, such
/// as each token's `content` delta in a stream's chunks, or a Responses event's
/// `sequence_number`: one value is encoded by JSONEncoder once, with a mark where each string and
/// integer goes, and each JSON text after it is that one with the values put in their places,
/// strings quoted as JSONEncoder quotes them. The texts are the JSON JSONEncoder makes of the
/// values (their keys in one order all through the stream, where JSONEncoder picks an order each
/// time), without its generic `Encodable` path per token, which perf showed taking about a
/// seventh of the server's time on a streamed answer.
struct JSONTemplate: Sendable {
    private enum Slot: Sendable {
        case string(Int)
        case integer(Int)
    }

    /// The JSON around the values: one more piece than there are slots.
    private let pieces: [String]
    /// Which value goes after each piece but the last.
    private let slots: [Slot]

    /// The template of the values `value` makes of `count` strings; a 500 where a value's JSON
    /// does not hold each string once, whole (never the case for the server's chunks).
    init(strings count: Int, _ value: ([String]) -> some Encodable) throws {
        try self.init(strings: count, integers: 0) { strings, _ in value(strings) }
    }

    /// The template of the values `value` makes of `strings` strings and `integers` integers; a
    /// 500 where a value's JSON does not hold each of them once, whole.
    init(strings: Int, integers: Int, _ value: ([String], [Int]) -> some Encodable) throws {
        // Private-use characters, which JSONEncoder writes as they are and no value's other fields
        // hold; and integers of 19 digits that no count, index or time of the server's reaches.
        let marks = (0..<strings).map { "\u{E000}RunAnywhere\($0)\u{E001}" }
        let numbers = (0..<integers).map { 7_305_964_271_000_000_000 + $0 }
        let json = String(decoding: try JSONEncoder.server.encode(value(marks, numbers)), as: UTF8.self)
        var places: [(range: Range<String.Index>, slot: Slot)] = []
        for (written, slot) in marks.enumerated().map({ ("\"\($1)\"", Slot.string($0)) })
            + numbers.enumerated().map({ (String($1), Slot.integer($0)) })
        {
            guard let range = json.range(of: written), json[range.upperBound...].range(of: written) == nil else {
                throw APIError(
                    .internalServerError,
                    "A stream's chunk holds one of its values \(json.components(separatedBy: written).count - 1) times")
            }
            places.append((range, slot))
        }
        places.sort { $0.range.lowerBound < $1.range.lowerBound }
        var pieces: [String] = []
        var start = json.startIndex
        for place in places {
            pieces.append(String(json[start..<place.range.lowerBound]))
            start = place.range.upperBound
        }
        pieces.append(String(json[start...]))
        self.pieces = pieces
        slots = places.map(\.slot)
    }

    /// The JSON of the value made of `strings` and `integers`, as many as the template was made for.
    func json(_ strings: [String], integers: [Int] = []) throws -> String {
        var text = pieces[0]
        for (index, slot) in slots.enumerated() {
            switch slot {
            case .string(let string): text += try JSONText.quoted(strings[string])
            case .integer(let integer): text += String(integers[integer])
            }
            text += pieces[index + 1]
        }
        return text
    }
}
