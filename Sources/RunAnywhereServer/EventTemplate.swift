import OpenAPIRuntime

/// The server-sent events of a stream whose chunks differ only in one string, such as each
/// token's `content` delta (``JSONTemplate``).
struct EventTemplate: Sendable {
    private let name: String?
    private let template: JSONTemplate

    /// The template of the chunks `chunk` makes of a string, sent as events named `name` when
    /// given; a 500 where a chunk's JSON does not hold its string once, whole.
    init(name: String? = nil, _ chunk: (String) -> some Encodable) throws {
        self.name = name
        template = try JSONTemplate(strings: 1) { chunk($0[0]) }
    }

    /// The event of the chunk for `text`.
    func event(_ text: String) throws -> ServerSentEvent {
        ServerSentEvent(event: name, data: try template.json([text]))
    }
}
