import Foundation

/// The JSON of values that differ from one to the next only in a few strings, such as each
/// token's `content` delta in a stream's chunks: one value is encoded by JSONEncoder once, with a
/// mark where each string goes, and each JSON text after it is that one with the strings put in
/// their places, quoted as JSONEncoder quotes them. The texts are the JSON JSONEncoder makes of
/// the values (their keys in one order all through the stream, where JSONEncoder picks an order
/// each time), without its generic `Encodable` path per token, which perf showed taking about a
/// seventh of the server's time on a streamed answer.
struct JSONTemplate: Sendable {
    /// The JSON around the strings: one more piece than there are strings.
    private let pieces: [String]
    /// Which of the strings goes after each piece but the last.
    private let order: [Int]

    /// The template of the values `value` makes of `count` strings; a 500 where a value's JSON
    /// does not hold each string once, whole (never the case for the server's chunks).
    init(strings count: Int, _ value: ([String]) -> some Encodable) throws {
        // Private-use characters, which JSONEncoder writes as they are and no value's other fields hold.
        let marks = (0..<count).map { "\u{E000}RunAnywhere\($0)\u{E001}" }
        let json = String(decoding: try JSONEncoder.server.encode(value(marks)), as: UTF8.self)
        var places: [(range: Range<String.Index>, string: Int)] = []
        for (index, mark) in marks.enumerated() {
            let quoted = "\"\(mark)\""
            guard let range = json.range(of: quoted), json[range.upperBound...].range(of: quoted) == nil else {
                throw APIError(
                    .internalServerError, "A stream's chunk holds its text \(json.components(separatedBy: quoted).count - 1) times")
            }
            places.append((range, index))
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
        order = places.map(\.string)
    }

    /// The JSON of the value made of `strings`, as many as the template was made for.
    func json(_ strings: [String]) throws -> String {
        var text = pieces[0]
        for (index, string) in order.enumerated() {
            text += try JSONText.quoted(strings[string])
            text += pieces[index + 1]
        }
        return text
    }
}
