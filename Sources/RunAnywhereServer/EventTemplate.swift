import Foundation
import OpenAPIRuntime

/// The server-sent events of a stream whose chunks differ only in one string, such as each
/// token's `content` delta: one chunk is encoded by JSONEncoder once, with a mark where the string
/// goes, and each event is that JSON with the string put in its place, quoted as JSONEncoder quotes
/// it. The chunks are the JSON JSONEncoder makes of them (their keys in one order all through the
/// stream, where JSONEncoder picks an order each time), without its generic `Encodable` path per
/// token, which perf showed taking about a seventh of the server's time on a streamed answer.
struct EventTemplate: Sendable {
    private let name: String?
    private let prefix: String
    private let suffix: String

    /// The template of the chunks `chunk` makes of a string, sent as events named `name` when
    /// given; a 500 where a chunk's JSON does not hold its string once, whole (never the case for
    /// the server's chunks).
    init(name: String? = nil, _ chunk: (String) -> some Encodable) throws {
        self.name = name
        // Private-use characters, which JSONEncoder writes as they are and no chunk's other fields hold.
        let mark = "\u{E000}RunAnywhere\u{E001}"
        let json = String(decoding: try JSONEncoder.server.encode(chunk(mark)), as: UTF8.self)
        let quoted = "\"\(mark)\""
        guard let range = json.range(of: quoted), json[range.upperBound...].range(of: quoted) == nil else {
            throw APIError(.internalServerError, "A stream's chunk holds its text \(json.components(separatedBy: quoted).count - 1) times")
        }
        prefix = String(json[..<range.lowerBound])
        suffix = String(json[range.upperBound...])
    }

    /// The event of the chunk for `text`.
    func event(_ text: String) throws -> ServerSentEvent {
        ServerSentEvent(event: name, data: prefix + (try JSONText.quoted(text)) + suffix)
    }
}
